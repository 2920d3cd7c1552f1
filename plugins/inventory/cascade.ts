import type { EntityManager } from '@mikro-orm/core';
import type { Database, Logger } from 'ogserve';
import type { ClientView } from './client-view';
import type { Inventory } from './service';

/**
 * Delete something whose database cascade takes clients with it: the clients are read and
 * the row deleted in one transaction, then the `client.removed` and `clients.removed`
 * listeners hear of them (boot files, live connections), failures logged with the request.
 */
export async function deleteWithClients(
  db: Database,
  inventory: Inventory,
  log: Logger,
  clientsOf: (em: EntityManager) => Promise<ClientView[]>,
  remove: (em: EntityManager) => Promise<unknown>,
): Promise<void> {
  const removed = await db.transactional(async (em) => {
    const clients = await clientsOf(em);
    await remove(em);
    return clients;
  });
  inventory.clientsChanged(removed.map((c) => c.id));
  await inventory.notifyRemoved(removed, log);
}

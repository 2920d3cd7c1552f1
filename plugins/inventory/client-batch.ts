import { ConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { type Database, HttpError, type Logger, normalizeMac } from 'ogserve';
import type { ClientRules } from './client-rules';
import { ClientEntity } from './entities/client';
import { type AcceptedClient, ImportedClients } from './imported-clients';
import { requireRow } from './lookups';
import type { Inventory } from './service';

/** A row of a batch that would be refused: its index, and why, as POST /client/add answers it. */
export interface BatchRefusal {
  index: number;
  code: string;
  field?: string;
  message: string;
}

/**
 * Clients another plugin adds many at once (the enrol plugin's new PCs put in a room): each
 * row held to POST /client/add's rules in its order (schema, `client.check` hooks, room,
 * unique IP and MAC, references) and to no IP or MAC twice in the batch, all stored in one
 * transaction with what the caller writes beside them, or none; then told as an import is
 * (`inventory.created`, `client.saved`: boot files, Kea's reservations).
 */
export class ClientBatch {
  constructor(
    private readonly db: Database,
    private readonly inventory: Inventory,
    private readonly rules: ClientRules,
    private readonly imported: ImportedClients,
  ) {}

  /** Why rows would be refused (empty when every one would be added). */
  async check(rows: Record<string, unknown>[], em?: EntityManager): Promise<BatchRefusal[]> {
    return (await this.checked(this.db.unit(em), rows)).refused;
  }

  /**
   * Add every row, or none: the refusals when any row is refused (also when a write that
   * came meanwhile refuses one), else the new clients' ids in order and what went wrong once
   * they were stored (a boot file not written). `alongside` writes in the same transaction.
   */
  async add(
    rows: Record<string, unknown>[],
    options: { log?: Logger; alongside?(em: EntityManager): Promise<void> } = {},
    em?: EntityManager,
  ): Promise<{ refused: BatchRefusal[] } | { ids: number[]; warnings: string[] }> {
    const first = await this.checked(this.db.unit(em), rows);
    if (first.refused.length > 0) return { refused: first.refused };
    let ids: number[];
    try {
      ids = await this.imported.store(first.accepted, options.alongside);
    } catch (error) {
      if (!(error instanceof ConstraintViolationException) && !(error instanceof HttpError)) throw error;
      const again = await this.checked(this.db.unit(em), rows);
      if (again.refused.length > 0) return { refused: again.refused };
      throw error;
    }
    return { ids, warnings: await this.imported.stored(ids, first.accepted, options.log) };
  }

  /**
   * Give client `id` another address or MAC by POST /client/update's rules (for a PC found
   * again with a new network card or address); what went wrong once it was stored. Throws
   * the refusal (an HttpError naming `ip`, `mac` or `id`).
   */
  async readdress(id: number, fields: { ip?: string; mac?: string }, log?: Logger, em?: EntityManager): Promise<string[]> {
    const before = await this.inventory.clientById(id);
    if (!before) await requireRow(this.db.unit(em), ClientEntity, id, 'id');
    await this.inventory.checkClient(fields);
    const mac = fields.mac === undefined ? undefined : normalizeMac(fields.mac);
    await this.db.transactional(async (em) => {
      const client = await requireRow(em, ClientEntity, id, 'id');
      await this.rules.checkUnique(em, { ip: fields.ip, mac }, id);
      if (fields.ip !== undefined) client.ip = fields.ip;
      if (mac !== undefined) client.mac = mac;
      await em.flush();
    });
    this.inventory.clientsChanged([id]);
    const after = (await this.inventory.clientById(id))!;
    if (after.ip !== before!.ip || after.mac !== before!.mac) await this.inventory.notifyRemoved([before!], log);
    return this.inventory.notifySaved([after], log);
  }

  private async checked(
    em: EntityManager,
    rows: Record<string, unknown>[],
  ): Promise<{ accepted: AcceptedClient[]; refused: BatchRefusal[] }> {
    const sameBatch = ImportedClients.sameFile((index) => `row ${index + 1}`);
    const accepted: AcceptedClient[] = [];
    const refused: BatchRefusal[] = [];
    for (const [index, row] of rows.entries()) {
      try {
        const client = await this.imported.check(em, row);
        sameBatch(client, index);
        accepted.push(client);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        refused.push({ index, code: String(error.code), field: error.field, message: error.message });
      }
    }
    return { accepted, refused };
  }
}

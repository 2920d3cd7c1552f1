import { ErrorCode, type Logger, type PluginEvents, badRequest, normalizeMac } from 'ogserve';
import type { ClientBatch, Inventory } from '../inventory';
import type { Discovery } from './discovery';
import { colonMac } from './events';
import type { DiscoveredStore } from './store';

/**
 * PCs found again confirmed as the clients whose serial numbers they reported: a PC with a
 * new MAC (a network card changed) gives the client that MAC and reboots, to take the
 * client's address; a PC at a new address gives the client that address, and its agent,
 * let go, connects again as the client's.
 */
export async function confirmMoved(
  macs: string[],
  d: { store: DiscoveredStore; discovery: Discovery; inventory: Inventory; batch: ClientBatch; events: PluginEvents },
  log?: Logger,
): Promise<{ clients: { mac: string; ip: string; name: string }[]; warnings: string[] }> {
  const asked = [...new Set(macs.map(normalizeMac))];
  const rows = await d.store.byMacs(asked);
  const pairs = [];
  for (const mac of asked) {
    const row = rows.find((r) => r.mac === mac);
    const client = row?.movedClient == null ? null : await d.inventory.clientById(row.movedClient);
    if (!row || !client)
      throw badRequest(ErrorCode.unknownId, `${colonMac(mac)} is not a discovered PC whose serial number names a client`, 'macs');
    pairs.push({ row, client });
  }
  const warnings: string[] = [];
  const clients = [];
  for (const { row, client } of pairs) {
    const newMac = row.mac !== client.mac;
    d.discovery.assigning.add(row.mac);
    try {
      warnings.push(...(await d.batch.readdress(client.id, newMac ? { mac: row.mac } : { ip: row.ip }, log)));
      await d.store.forget([row.mac]);
    } finally {
      d.discovery.assigning.delete(row.mac);
    }
    const guest = d.discovery.guest(row.mac);
    if (guest && newMac) await guest.power('reboot').catch(() => undefined);
    d.discovery.release(row.mac, `confirmed as client ${client.name}`);
    clients.push({ mac: colonMac(row.mac), ip: newMac ? client.ip : row.ip, name: client.name });
  }
  void d.events.emit('discovered.confirmed', { clients }, log);
  return { clients, warnings };
}

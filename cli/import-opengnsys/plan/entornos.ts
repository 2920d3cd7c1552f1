import { bundledParts } from '../parts';
import { refusalOf } from './body-check';
import { UniqueKeys, alreadyThere, decide, idRefusal, label, type Planning } from './context';

const { ServerAdd } = bundledParts.inventory.bodies;

const table = 'entornos';
const columns = { ip: 'ipserveradm', port: 'portserveradm' };

/** Servers (`entornos`), by POST /server's rules; addresses are unique. */
export function planServers(p: Planning): void {
  p.ledger.read(table, p.site.servers.length);
  const addresses = new UniqueKeys('ip', p.rules.held.keys.serverIps);
  for (const server of p.site.servers) {
    const row = label(table, server.id, server.ip);
    const legacy = { row, identity: server.ip, held: p.rules.held.rows.servers, what: 'address' };
    if (alreadyThere(p, p.servers, table, server.id, p.rules.held.servers, legacy)) continue;
    const body = { ip: server.ip, port: server.port };
    const reason = idRefusal(server.id) ?? refusalOf(ServerAdd, body, columns, table) ?? addresses.taken(server.ip);
    const kept = decide(p, p.servers, table, row, server.id, reason, () => ({ id: server.id, ip: server.ip, port: server.port }));
    if (kept) {
      addresses.hold(server.ip, row);
      p.plan.servers.push(kept);
    }
  }
}

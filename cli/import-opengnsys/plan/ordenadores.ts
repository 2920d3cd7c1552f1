import { normalizeMac } from '../../../core/formats';
import { bundledParts } from '../parts';
import type { LegacyClient } from '../model';
import { refusalFromError, refusalOf } from './body-check';
import { UniqueKeys, alreadyThere, idRefusal, keep, label, type Planning, refuse } from './context';

const { ClientAdd } = bundledParts.inventory.bodies;

const table = 'ordenadores';
const columns = {
  ip: 'ip',
  mac: 'mac',
  name: 'nombreordenador',
  serial_number: 'numserie',
  netmask: 'mascara',
  boot: 'arranque',
  netiface: 'netiface',
  netdriver: 'netdriver',
  livedir: 'oglivedir',
  hardware_id: 'idperfilhard',
};

/** A reference of a kept client: the id it keeps (null = none), and why it keeps none when the reference led nowhere. */
interface Reference {
  id: number | null;
  why?: string;
}

/**
 * Computers, by POST /client/add's rules and the checks plugins add to it (pxe-modes: a
 * boot mode without a template), with IP and MAC unique (the MAC in any case or notation).
 * A folder, repository or server that leads nowhere is dropped with a note.
 */
export async function planClients(p: Planning): Promise<void> {
  const clients = p.site.clients;
  p.ledger.read(table, clients.length);
  const ips = new UniqueKeys('ip', p.rules.held.keys.clientIps);
  const macs = new UniqueKeys('mac', p.rules.held.keys.clientMacs);
  for (const [i, client] of clients.entries()) {
    if (i % 500 === 0) p.progress.advance('checking ordenadores', i, clients.length);
    const row = label(table, client.id, client.name, client.ip);
    const mac = client.mac === null ? '' : normalizeMac(client.mac);
    const legacy = { row, identity: mac, held: p.rules.held.rows.clients, what: 'mac' };
    if (alreadyThere(p, p.clients, table, client.id, p.rules.held.clients, legacy)) continue;
    const body = {
      ip: client.ip,
      mac: client.mac ?? undefined,
      room: client.roomId ?? undefined,
      name: client.name ?? '',
      serial_number: client.serialNumber ?? '',
      netmask: client.netmask,
      boot: client.boot,
      netiface: client.netiface ?? '',
      netdriver: client.netdriver,
      livedir: client.livedir,
      hardware_id: client.hardwareProfileId ?? 0,
      remote: client.remote,
      maintenance: client.maintenance,
    };
    let reason =
      idRefusal(client.id) ??
      (client.roomId === null ? 'it is in no room (ordenadores.idaula is NULL)' : p.rooms.whyNot(client.roomId)) ??
      refusalOf(ClientAdd, body, columns, table) ??
      ips.taken(client.ip) ??
      macs.taken(mac);
    const folder = folderOf(p, client);
    const repository = referenceTo(client.repositoryId, (id) => p.repositories.whyNot(id), 'repository');
    const server = referenceTo(client.serverId, (id) => p.servers.whyNot(id), 'server');
    if (reason === undefined) {
      try {
        await p.rules.checkClient(body);
      } catch (error) {
        reason = refusalFromError(error, body, columns, table);
      }
    }
    if (reason !== undefined) {
      refuse(p, p.clients, table, row, client.id, reason);
      continue;
    }
    for (const ref of [folder, repository, server]) if (ref.why) p.ledger.changed(table, row, ref.why);
    ips.hold(client.ip, row);
    macs.hold(mac, row);
    p.plan.clients.push(
      keep(p, p.clients, table, client.id, {
        id: client.id,
        name: body.name,
        serialNumber: body.serial_number,
        ip: client.ip,
        mac,
        roomId: client.roomId!,
        folderId: folder.id,
        hardwareId: body.hardware_id,
        repositoryId: repository.id,
        serverId: server.id,
        netmask: client.netmask,
        boot: client.boot,
        netiface: body.netiface,
        netdriver: client.netdriver,
        livedir: client.livedir,
        remote: client.remote,
        maintenance: client.maintenance,
      }),
    );
  }
  p.progress.advance('checking ordenadores', clients.length, clients.length);
}

/** A repository or server reference: 0 and NULL are none, as in the reference. */
function referenceTo(id: number | null, whyNot: (id: number) => string | undefined, noun: string): Reference {
  if (!id) return { id: null };
  const why = whyNot(id);
  return why === undefined ? { id } : { id: null, why: `${why}: imported without a ${noun}` };
}

/** The computer folder a client goes in: it must be a kept folder of the client's own room. */
function folderOf(p: Planning, client: LegacyClient): Reference {
  if (!client.folderId) return { id: null };
  const folder = p.computerFolders.kept.get(client.folderId);
  const why =
    p.computerFolders.whyNot(client.folderId) ??
    (folder && folder.roomId !== client.roomId ? `computer folder ${client.folderId} belongs to room ${folder.roomId}` : undefined);
  return why === undefined ? { id: client.folderId } : { id: null, why: `${why}: kept at the top of room ${client.roomId}` };
}

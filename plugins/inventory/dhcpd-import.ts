import { ConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { type Database, ErrorCode, HttpError, type Logger, badRequest, execute, ipv4ToInt, isIpv4, isNetmask } from 'ogserve';
import { computerFolder } from './client-rules';
import { type DhcpdHost, type DhcpdSubnet, DhcpdSyntaxError, parseDhcpdConf } from './dhcpd-conf';
import { type AcceptedClient, ImportedClients } from './imported-clients';
import type { DhcpdImported } from './schemas';
import { RoomEntity } from './entities/room';
import { requireRow } from './lookups';

export type DhcpdAnswer = Static<typeof DhcpdImported>;
type Row = DhcpdAnswer['rows'][number];

/** Where every host goes when the caller names it (a room's own import), instead of by network. */
export interface DhcpdTarget {
  room: number;
  /** A computer folder of the room (its public id); 0 or absent: none. */
  folderId?: number;
}

/** The room a host goes in. */
type Placement = { room: number; name: string };

/** A room's network: where a host's address must be for the host to go in it. */
interface RoomNetwork {
  room: number;
  name: string;
  network: number;
  mask: number;
}

declare module 'ogserve' {
  interface CommandLineParts {
    /** `ogserve import-dhcpd`: the clients of a dhcpd.conf, on the config's database. */
    dhcpdImport: typeof DhcpdImport;
  }
}

/**
 * `ogserve import-dhcpd` and POST /client/import-dhcpd: the `host` blocks of an ISC
 * dhcpd.conf as clients, each in the room whose network holds its address. Each host is held
 * to POST /client/add's rules and to no IP or MAC twice in the file; a refused host is
 * answered with its reason and the others are stored, in one transaction.
 */
export class DhcpdImport {
  constructor(
    private readonly db: Database,
    private readonly imported: ImportedClients,
    private readonly maxHosts: number,
  ) {}

  /** The answer, and the ids of the clients stored (none on a dry run). */
  async importConf(
    conf: string,
    dryRun: boolean,
    log?: Logger,
    target?: DhcpdTarget,
    em?: EntityManager,
  ): Promise<{ answer: DhcpdAnswer; ids: number[] }> {
    const parsed = parse(conf);
    const count = parsed.hosts.length + parsed.refused.length;
    if (parsed.hosts.length === 0) throw badRequest(ErrorCode.missingField, 'the file has no host blocks', 'conf');
    if (count > this.maxHosts)
      throw badRequest(
        ErrorCode.invalidField,
        `the file has ${count} hosts; at most ${this.maxHosts} are imported at once (inventory.import_max_rows)`,
        'conf',
      );
    const check = async (em: EntityManager) => {
      const rows: Row[] = parsed.refused.map(({ line, refusal }) => ({ line, name: '', ip: '', mac: '', ok: false, ...refusal }));
      const accepted: AcceptedClient[] = [];
      const place = await placement(em, target);
      const sameFile = ImportedClients.sameFile((line) => `the host at line ${line}`);
      for (const host of parsed.hosts) {
        const row: Row = { line: host.line, name: host.name, ip: host.ip, mac: host.mac, ok: true };
        try {
          const client = await this.checkHost(em, host, place(host.ip, parsed.subnets), target?.folderId, row);
          sameFile(client, host.line);
          accepted.push(client);
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          Object.assign(row, { ok: false, error: String(error.code), field: error.field, message: error.message });
        }
        rows.push(row);
      }
      rows.sort((a, b) => a.line - b.line);
      return { rows, accepted };
    };
    let { rows, accepted } = await check(this.db.unit(em));
    const answer = (): DhcpdAnswer => {
      const refused = rows.filter((r) => !r.ok).length;
      return { rows, added: accepted.length, refused, dry_run: dryRun };
    };
    if (dryRun || accepted.length === 0) return { answer: answer(), ids: [] };
    let ids: number[];
    try {
      ids = await this.imported.store(accepted);
    } catch (error) {
      if (!(error instanceof ConstraintViolationException) && !(error instanceof HttpError)) throw error;
      // Written meanwhile (a client took an address): checked again, the hosts now refused say why.
      ({ rows, accepted } = await check(this.db.unit(em)));
      ids = await this.imported.store(accepted);
    }
    const warnings = await this.imported.stored(ids, accepted, log);
    return { answer: warnings.length > 0 ? { ...answer(), warnings } : answer(), ids };
  }

  /** One host by POST /client/add's rules, after its room is found; the first refusal is thrown. */
  private async checkHost(
    em: EntityManager,
    host: DhcpdHost,
    place: () => Placement,
    folderId: number | undefined,
    row: Row,
  ): Promise<AcceptedClient> {
    if (host.refusal) throw badRequest(host.refusal.error, host.refusal.message, host.refusal.field);
    const { room, name } = place();
    Object.assign(row, { room, room_name: name });
    const fields = { ip: host.ip, mac: host.mac, room, name: host.name };
    return this.imported.check(em, folderId ? { ...fields, folder_id: folderId } : fields);
  }
}

function parse(conf: string) {
  try {
    return parseDhcpdConf(conf);
  } catch (error) {
    if (error instanceof DhcpdSyntaxError) throw badRequest(ErrorCode.invalidField, error.message, 'conf');
    throw error;
  }
}

/**
 * Each room's networks: its gateway's under its netmask; a room without a gateway, those of
 * its clients' addresses. A room with neither has no known network and takes no host.
 */
async function roomNetworks(em: EntityManager): Promise<RoomNetwork[]> {
  const rooms = await execute(em, 'select id, name, netmask, gateway from rooms');
  const clients = await execute(em, 'select room_id, ip from clients');
  const networks = new Map<string, RoomNetwork>();
  for (const room of rooms) {
    const id = Number(room.id);
    const netmask = String(room.netmask);
    if (!isNetmask(netmask)) continue;
    const mask = ipv4ToInt(netmask);
    const gateway = String(room.gateway ?? '');
    const addresses = isIpv4(gateway) ? [gateway] : clients.filter((c) => Number(c.room_id) === id).map((c) => String(c.ip));
    for (const address of addresses) {
      const network = (ipv4ToInt(address) & mask) >>> 0;
      networks.set(`${id}/${network}`, { room: id, name: String(room.name), network, mask });
    }
  }
  return [...networks.values()];
}

/**
 * How hosts are placed: all in the target room, checked once (a 400 naming `room` or
 * `folder_id`), or each in the room whose network holds its address (a refusal naming `room`).
 */
async function placement(
  em: EntityManager,
  target: DhcpdTarget | undefined,
): Promise<(ip: string, subnets: DhcpdSubnet[]) => () => Placement> {
  if (target) {
    const room = await requireRow(em, RoomEntity, target.room, 'room');
    if (target.folderId) await computerFolder(em, target.folderId, room.id);
    return () => () => ({ room: room.id, name: room.name });
  }
  const networks = await roomNetworks(em);
  return (ip: string, subnets: DhcpdSubnet[]) => (): Placement => {
    const rooms = roomsHolding(ip, networks);
    if (rooms.length === 0) throw badRequest(ErrorCode.unknownId, noRoom(ip, subnets), 'room');
    if (rooms.length > 1)
      throw badRequest(
        ErrorCode.conflict,
        `${ip} is in the network of ${rooms.length} rooms (${rooms.map((r) => `'${r.name}' id ${r.room}`).join(', ')}): one room per network`,
        'room',
      );
    return { room: rooms[0]!.room, name: rooms[0]!.name };
  };
}

function roomsHolding(ip: string, networks: RoomNetwork[]): RoomNetwork[] {
  const address = ipv4ToInt(ip);
  const rooms = new Map<number, RoomNetwork>();
  for (const n of networks) if ((address & n.mask) >>> 0 === n.network) rooms.set(n.room, n);
  return [...rooms.values()];
}

/** Why no room takes the address, with the file's subnet that holds it when there is one: the room to add. */
function noRoom(ip: string, subnets: DhcpdSubnet[]): string {
  const subnet = subnets.find(
    (s) => isIpv4(s.network) && isNetmask(s.netmask) && (ipv4ToInt(ip) & ipv4ToInt(s.netmask)) >>> 0 === ipv4ToInt(s.network),
  );
  const base = `no room's network holds ${ip}`;
  if (!subnet) return `${base}: add a room with its gateway and netmask, or a client in it`;
  const gateway = subnet.router ? `gateway ${subnet.router}` : 'a gateway in it';
  return `${base}: add a room with ${gateway} and netmask ${subnet.netmask} (the file's subnet ${subnet.network} at line ${subnet.line})`;
}

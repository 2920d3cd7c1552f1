import { type Database, stringifyAscii } from 'ogserve';
import type { ClientView } from './client-view';
import { computerFolderPublicId } from './folder-ids';

export interface ScopeNode {
  name: string;
  type: 'center' | 'room' | 'folder' | 'computer';
  id: number;
  scope: ScopeNode[];
  ip?: string;
}

type Row = { id: number; name: string; parent: number | null; owner: number };

/** What GET /scopes needs of a client. */
export type ScopeComputer = Pick<ClientView, 'id' | 'name' | 'ip' | 'folderId'> & { room: { id: number } };

/** The rows of centers, room folders, rooms and computer folders: what only a write of the tree itself changes. */
export interface ScopeGroups {
  centers: Row[];
  roomFolders: Row[];
  rooms: Row[];
  computerFolders: Row[];
}

/** A center, folder or room with what it holds, in the order GET /scopes lists it. */
interface Group {
  type: 'center' | 'room' | 'folder';
  id: number;
  name: string;
  members: (Group | ScopeComputer)[];
}

const isGroup = (member: Group | ScopeComputer): member is Group => 'members' in member;

/** The groups in four queries, each by id. */
export async function readGroups(db: Database): Promise<ScopeGroups> {
  const [centers, roomFolders, rooms, computerFolders] = await Promise.all([
    db.query<Row>('select id, name from centers order by id'),
    db.query<Row>('select id, name, parent_id as parent, center_id as owner from room_folders order by id'),
    db.query<Row>('select id, name, folder_id as parent, center_id as owner from rooms order by id'),
    db.query<Row>('select id, name, parent_id as parent, room_id as owner from computer_folders order by id'),
  ]);
  return { centers, roomFolders, rooms, computerFolders };
}

/** The computers straight from the table, for when the index may not hold another process's writes. */
export async function readComputers(db: Database): Promise<ScopeComputer[]> {
  const rows = await db.query<Row & { ip: string }>('select id, name, ip, folder_id as parent, room_id as owner from clients');
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    ip: r.ip,
    folderId: r.parent == null ? 0 : computerFolderPublicId(Number(r.parent)),
    room: { id: Number(r.owner) },
  }));
}

/**
 * center > room folders > rooms > computer folders > computers. Folders come before rooms,
 * and computer folders before computers, as the reference lists them; each by id.
 */
function assemble(groups: ScopeGroups, computers: Iterable<ScopeComputer>): Group[] {
  const group = (type: Group['type'], id: number, name: string): Group => ({ type, id, name, members: [] });
  const centerNodes = new Map(groups.centers.map((c) => [Number(c.id), group('center', Number(c.id), c.name)]));
  const roomFolderNodes = new Map(groups.roomFolders.map((f) => [Number(f.id), group('folder', Number(f.id), f.name)]));
  const roomNodes = new Map(groups.rooms.map((r) => [Number(r.id), group('room', Number(r.id), r.name)]));
  const computerFolderNodes = new Map(
    groups.computerFolders.map((f) => [Number(f.id), group('folder', computerFolderPublicId(Number(f.id)), f.name)]),
  );
  // Clients name their folder by its public id.
  const byPublicId = new Map([...computerFolderNodes.values()].map((n) => [n.id, n]));
  const attach = (rows: Row[], nodes: Map<number, Group>, parents: Map<number, Group>, owners: Map<number, Group>): void => {
    for (const row of rows) {
      const parent = row.parent == null ? owners.get(Number(row.owner)) : parents.get(Number(row.parent));
      parent?.members.push(nodes.get(Number(row.id))!);
    }
  };
  attach(groups.roomFolders, roomFolderNodes, roomFolderNodes, centerNodes);
  attach(groups.rooms, roomNodes, roomFolderNodes, centerNodes);
  attach(groups.computerFolders, computerFolderNodes, computerFolderNodes, roomNodes);
  for (const pc of [...computers].sort((a, b) => a.id - b.id)) {
    const parent = pc.folderId === 0 ? roomNodes.get(pc.room.id) : byPublicId.get(pc.folderId);
    parent?.members.push(pc);
  }
  return [...centerNodes.values()];
}

/** The tree as objects. */
export function scopeNodes(groups: ScopeGroups, computers: Iterable<ScopeComputer>): ScopeNode[] {
  const toNode = (member: Group | ScopeComputer): ScopeNode =>
    isGroup(member)
      ? { name: member.name, type: member.type, id: member.id, scope: member.members.map(toNode) }
      : { name: member.name, type: 'computer', id: member.id, scope: [], ip: member.ip };
  return assemble(groups, computers).map(toNode);
}

/** The tree as objects (to cut it to a token's scope), read whole from the tables. */
export async function buildScopes(db: Database): Promise<ScopeNode[]> {
  const [groups, computers] = await Promise.all([readGroups(db), readComputers(db)]);
  return scopeNodes(groups, computers);
}

/**
 * Each computer's JSON, kept by its record: the inventory's index replaces a client's record
 * when the client changes, so a kept text is never stale, and a build after one client's
 * write serialises that client alone.
 */
const computerJson = new WeakMap<ScopeComputer, string>();

function writeComputer(pc: ScopeComputer): string {
  let text = computerJson.get(pc);
  if (text === undefined) {
    text = `{"name":${stringifyAscii(pc.name)},"type":"computer","id":${pc.id},"scope":[],"ip":${stringifyAscii(pc.ip)}}`;
    computerJson.set(pc, text);
  }
  return text;
}

/** A group of computers alone (no folder inside), as last written. */
interface WrittenGroup {
  name: string;
  members: ScopeComputer[];
  text: string;
}

const onlyComputers = (members: (Group | ScopeComputer)[]): members is ScopeComputer[] => !members.some(isGroup);

/**
 * Writes the answer of GET /scopes. The text of every group holding computers alone (a room
 * without folders, a computer folder) is kept with the records it was written from, and used
 * again while the group's name and its computers (the same records, in the same order) are
 * unchanged: after one client's write, the next answer writes that client's room alone.
 */
export class ScopeWriter {
  private written = new Map<string, WrittenGroup>();

  /** `{"scope":[...]}`, written as stringifyAscii would write the tree of buildScopes. */
  write(groups: ScopeGroups, computers: Iterable<ScopeComputer>): string {
    const kept = new Map<string, WrittenGroup>();
    const writeMember = (member: Group | ScopeComputer): string => {
      if (!isGroup(member)) return writeComputer(member);
      const members = member.members;
      if (!onlyComputers(members)) return writeGroup(member, members.map(writeMember).join(','));
      const key = `${member.type}:${member.id}`;
      const last = this.written.get(key);
      const group =
        last && last.name === member.name && sameRecords(last.members, members)
          ? last
          : { name: member.name, members, text: writeGroup(member, members.map(writeComputer).join(',')) };
      kept.set(key, group);
      return group.text;
    };
    const text = `{"scope":[${assemble(groups, computers).map(writeMember).join(',')}]}`;
    // Groups gone from the tree are forgotten with it.
    this.written = kept;
    return text;
  }
}

function writeGroup(group: Group, members: string): string {
  return `{"name":${stringifyAscii(group.name)},"type":"${group.type}","id":${group.id},"scope":[${members}]}`;
}

function sameRecords(a: ScopeComputer[], b: ScopeComputer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The answer of GET /scopes, `{"scope":[...]}`, written as stringifyAscii would write the tree of buildScopes. */
export function scopesJson(groups: ScopeGroups, computers: Iterable<ScopeComputer>): string {
  return new ScopeWriter().write(groups, computers);
}

import type { Database } from '../../core/database';
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

const node = (type: ScopeNode['type'], id: number, name: string): ScopeNode => ({ name, type, id, scope: [] });

type Computer = Pick<ClientView, 'id' | 'name' | 'ip' | 'folderId'> & { room: { id: number } };

/** The computers straight from the table, for when the index may not hold another process's writes. */
async function computersOf(db: Database): Promise<Computer[]> {
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
 * The whole tree: center > room folders > rooms > computer folders > computers. The groups
 * take four queries; the computers are `clients` (the inventory's index, exact after every
 * write through this server: reading thousands of rows is most of what a build costs) or,
 * without it, a fifth query. Folders come before rooms, and computer folders before
 * computers, as the reference lists them; each by id.
 */
export async function buildScopes(db: Database, clients?: Promise<Iterable<Computer>>): Promise<ScopeNode[]> {
  const [centers, roomFolders, rooms, computerFolders, computerList] = await Promise.all([
    db.query<Row>('select id, name from centers order by id'),
    db.query<Row>('select id, name, parent_id as parent, center_id as owner from room_folders order by id'),
    db.query<Row>('select id, name, folder_id as parent, center_id as owner from rooms order by id'),
    db.query<Row>('select id, name, parent_id as parent, room_id as owner from computer_folders order by id'),
    clients ?? computersOf(db),
  ]);
  const computers = [...computerList].sort((a, b) => a.id - b.id);
  const centerNodes = new Map(centers.map((c) => [Number(c.id), node('center', Number(c.id), c.name)]));
  const roomFolderNodes = new Map(roomFolders.map((f) => [Number(f.id), node('folder', Number(f.id), f.name)]));
  const roomNodes = new Map(rooms.map((r) => [Number(r.id), node('room', Number(r.id), r.name)]));
  const computerFolderNodes = new Map(
    computerFolders.map((f) => [Number(f.id), node('folder', computerFolderPublicId(Number(f.id)), f.name)]),
  );
  // Clients name their folder by its public id.
  const byPublicId = new Map([...computerFolderNodes.values()].map((n) => [n.id, n]));

  const attach = (rows: Row[], nodes: Map<number, ScopeNode>, parents: Map<number, ScopeNode>, owners: Map<number, ScopeNode>): void => {
    for (const row of rows) {
      const parent = row.parent == null ? owners.get(Number(row.owner)) : parents.get(Number(row.parent));
      parent?.scope.push(nodes.get(Number(row.id))!);
    }
  };
  attach(roomFolders, roomFolderNodes, roomFolderNodes, centerNodes);
  attach(rooms, roomNodes, roomFolderNodes, centerNodes);
  attach(computerFolders, computerFolderNodes, computerFolderNodes, roomNodes);
  for (const pc of computers) {
    const parent = pc.folderId === 0 ? roomNodes.get(pc.room.id) : byPublicId.get(pc.folderId);
    parent?.scope.push({ name: pc.name, type: 'computer', id: pc.id, scope: [], ip: pc.ip });
  }
  return [...centerNodes.values()];
}

import type { Database } from '../../core/database';
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

/**
 * The whole tree in five queries: center > room folders > rooms > computer folders > computers.
 * Folders come before rooms, and computer folders before computers, as the reference lists them.
 */
export async function buildScopes(db: Database): Promise<ScopeNode[]> {
  const [centers, roomFolders, rooms, computerFolders, computers] = await Promise.all([
    db.query<Row>('select id, name from centers order by id'),
    db.query<Row>('select id, name, parent_id as parent, center_id as owner from room_folders order by id'),
    db.query<Row>('select id, name, folder_id as parent, center_id as owner from rooms order by id'),
    db.query<Row>('select id, name, parent_id as parent, room_id as owner from computer_folders order by id'),
    db.query<Row & { ip: string }>('select id, name, ip, folder_id as parent, room_id as owner from clients order by id'),
  ]);
  const centerNodes = new Map(centers.map((c) => [Number(c.id), node('center', Number(c.id), c.name)]));
  const roomFolderNodes = new Map(roomFolders.map((f) => [Number(f.id), node('folder', Number(f.id), f.name)]));
  const roomNodes = new Map(rooms.map((r) => [Number(r.id), node('room', Number(r.id), r.name)]));
  const computerFolderNodes = new Map(
    computerFolders.map((f) => [Number(f.id), node('folder', computerFolderPublicId(Number(f.id)), f.name)]),
  );

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
    const parent = pc.parent == null ? roomNodes.get(Number(pc.owner)) : computerFolderNodes.get(Number(pc.parent));
    parent?.scope.push({ name: pc.name, type: 'computer', id: Number(pc.id), scope: [], ip: pc.ip });
  }
  return [...centerNodes.values()];
}

import type { Database } from 'ogserve';
import type { AuditValue } from '../audit';
import { computerFolderPublicId } from './folder-ids';

/** A record's fields as the API names them, references as the record they point at. */
export interface RecordSnapshot {
  /** Its name (a client's name, or its address when it has none). */
  name: string;
  fields: Record<string, AuditValue>;
}

/** The records of one kind by id (public ids for folders). */
export type Snapshots = Map<number, RecordSnapshot>;

type Column =
  | { field: string; sql: string; type: 'text' | 'int' | 'bool' }
  /** A reference: the pointed record's id and name; `publicId` for computer folders. */
  | { field: string; type: 'ref'; id: string; name: string; publicId?: (id: number) => number };

interface RecordKind {
  entity: string;
  from: string;
  /** The record's own id column, as `where` names it. */
  key: string;
  name: string;
  columns: Column[];
}

const text = (field: string, sql: string): Column => ({ field, sql, type: 'text' });
const ref = (field: string, alias: string, name = `${alias}.name`, publicId?: (id: number) => number): Column => ({
  field,
  type: 'ref',
  id: `${alias}.id`,
  name,
  publicId,
});

export type SnapshotKind = 'center' | 'room' | 'room-folder' | 'computer-folder' | 'client' | 'repository' | 'server';

const kinds: Record<SnapshotKind, RecordKind> = {
  center: {
    entity: 'center',
    from: 'centers x',
    key: 'x.id',
    name: 'x.name',
    columns: [text('name', 'x.name'), text('comment', 'x.comment')],
  },
  room: {
    entity: 'room',
    from: 'rooms x join centers ce on ce.id = x.center_id left join room_folders f on f.id = x.folder_id',
    key: 'x.id',
    name: 'x.name',
    columns: [
      text('name', 'x.name'),
      ref('center', 'ce'),
      ref('folder_id', 'f'),
      ...['netmask', 'gateway', 'location', 'ntp', 'dns'].map((c) => text(c, `x.${c}`)),
      { field: 'remote', sql: 'x.remote', type: 'bool' },
    ],
  },
  'room-folder': {
    entity: 'folder',
    from: 'room_folders x join centers ce on ce.id = x.center_id left join room_folders pf on pf.id = x.parent_id',
    key: 'x.id',
    name: 'x.name',
    columns: [text('name', 'x.name'), ref('center', 'ce'), ref('parent', 'pf')],
  },
  'computer-folder': {
    entity: 'folder',
    from: 'computer_folders x join rooms r on r.id = x.room_id left join computer_folders pf on pf.id = x.parent_id',
    key: 'x.id',
    name: 'x.name',
    columns: [text('name', 'x.name'), ref('room', 'r'), ref('parent', 'pf', 'pf.name', computerFolderPublicId)],
  },
  client: {
    entity: 'client',
    from: `clients x join rooms r on r.id = x.room_id left join computer_folders f on f.id = x.folder_id
      left join repositories p on p.id = x.repository_id left join servers s on s.id = x.server_id`,
    key: 'x.id',
    name: 'x.name',
    columns: [
      text('name', 'x.name'),
      text('ip', 'x.ip'),
      text('mac', 'x.mac'),
      ref('room', 'r'),
      ref('folder_id', 'f', 'f.name', computerFolderPublicId),
      ref('repo_id', 'p'),
      ref('server_id', 's', 's.ip'),
      ...['serial_number', 'netmask', 'netiface', 'netdriver', 'livedir', 'boot'].map((c) => text(c, `x.${c}`)),
      { field: 'hardware_id', sql: 'x.hardware_id', type: 'int' },
      { field: 'remote', sql: 'x.remote', type: 'bool' },
      { field: 'maintenance', sql: 'x.maintenance', type: 'bool' },
    ],
  },
  repository: { entity: 'repository', from: 'repositories x', key: 'x.id', name: 'x.name', columns: [text('name', 'x.name')] },
  server: {
    entity: 'server',
    from: 'servers x',
    key: 'x.id',
    name: 'x.ip',
    columns: [text('ip', 'x.ip'), { field: 'port', sql: 'x.port', type: 'int' }],
  },
};

/** The entity a kind's changes name (`folder` for both kinds of folder). */
export function entityOf(kind: SnapshotKind): string {
  return kinds[kind].entity;
}

const inChunk = 500;

/**
 * The records of `kind` with these table ids (computer folders: their table ids, answered by
 * public id), read as they are now, in id order whatever the engine; ids no record has are
 * left out. `by: 'ip'`: the clients at these addresses.
 */
export async function readSnapshots(
  db: Database,
  kind: SnapshotKind,
  keys: readonly (number | string)[],
  by: 'id' | 'ip' = 'id',
): Promise<Snapshots> {
  const { from, key, name, columns } = kinds[kind];
  const select = [`x.id as id`, `${name} as label`];
  columns.forEach((c, i) => {
    if (c.type === 'ref') select.push(`${c.id} as r${i}_id`, `${c.name} as r${i}_name`);
    else select.push(`${c.sql} as c${i}`);
  });
  const out: Snapshots = new Map();
  const where = by === 'ip' ? 'x.ip' : key;
  const values = [...new Set(keys)];
  for (let i = 0; i < values.length; i += inChunk) {
    const chunk = values.slice(i, i + inChunk);
    const rows = await db.query(
      `select ${select.join(', ')} from ${from} where ${where} in (${chunk.map(() => '?').join(',')}) order by x.id`,
      chunk,
    );
    for (const row of rows) {
      const fields: Record<string, AuditValue> = {};
      columns.forEach((c, i) => {
        fields[c.field] = columnValue(c, row, i);
      });
      const id = kind === 'computer-folder' ? computerFolderPublicId(Number(row.id)) : Number(row.id);
      const label = String(row.label ?? '') || String(fields.ip ?? '');
      out.set(id, { name: label, fields });
    }
  }
  if (kind === 'repository') await addAddresses(db, out);
  return out;
}

function columnValue(column: Column, row: Record<string, unknown>, i: number): AuditValue {
  if (column.type === 'ref') {
    const id = row[`r${i}_id`];
    if (id === null || id === undefined) return null;
    const n = Number(id);
    return { id: column.publicId ? column.publicId(n) : n, name: String(row[`r${i}_name`] ?? '') };
  }
  const value = row[`c${i}`];
  if (column.type === 'bool') return value === true || value === 1 || value === '1' || value === 't';
  if (column.type === 'int') return Number(value);
  return value === null || value === undefined ? '' : String(value);
}

/** A repository's addresses, in the order they were given, as one field (`ip`, as /repository/add takes them). */
async function addAddresses(db: Database, repositories: Snapshots): Promise<void> {
  const ids = [...repositories.keys()];
  if (ids.length === 0) return;
  const rows = await db.query<{ repository_id: number; ip: string }>(
    `select repository_id, ip from repository_addresses where repository_id in (${ids.map(() => '?').join(',')}) order by id`,
    ids,
  );
  for (const snapshot of repositories.values()) snapshot.fields.ip = '';
  for (const row of rows) {
    const snapshot = repositories.get(Number(row.repository_id))!;
    snapshot.fields.ip = snapshot.fields.ip ? `${snapshot.fields.ip}, ${row.ip}` : row.ip;
  }
}

import type { IncomingMessage } from 'node:http';
import type { Database, Logger, PluginEvents } from 'ogserve';
import type { AuditChange } from '../audit';
import { parseFolderId } from './folder-ids';
import { entityOf, readSnapshots, type SnapshotKind, type Snapshots } from './record-snapshots';

/** The records one write touches, read before it runs: compared with what they are after it. */
export interface Watched {
  kind: SnapshotKind;
  /** Add: the record is named by the answer's `id`. */
  adds: boolean;
  before: Snapshots;
  /** Table ids of the records read before (computer folders are answered by public id). */
  ids: number[];
  /** The clients a delete of their room or center takes with it, read before it runs. */
  cascade?: Snapshots;
}

/** The clients of a room or of a center, by id: what deleting it takes. */
const clientsOf: Partial<Record<SnapshotKind, string>> = {
  room: 'select id from clients where room_id = ?',
  center: 'select c.id from clients c join rooms r on r.id = c.room_id where r.center_id = ?',
};

const idOf = (value: unknown): number | undefined => {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/** A folder's public id as its kind and table id; undefined for an id no folder can have (the route refuses it). */
function folderOf(publicId: unknown): { kind: SnapshotKind; id: number } | undefined {
  const id = idOf(publicId);
  if (id === undefined) return undefined;
  try {
    const ref = parseFolderId(id, 'id');
    return { kind: ref.kind === 'room' ? 'room-folder' : 'computer-folder', id: ref.id };
  } catch {
    return undefined;
  }
}

const kindOfPath: Record<string, SnapshotKind> = {
  center: 'center',
  room: 'room',
  client: 'client',
  repository: 'repository',
  server: 'server',
};

/**
 * What an inventory write changed, field by field, told to the audit log (`audit.details`)
 * once it committed: the records it names are read before it runs and again after it (and
 * the clients a room's or center's delete takes with it). A refused write tells nothing. `/client/import` tells its clients itself (`added`). The reads
 * are not in the write's transaction: a write of the same records by another request at that
 * very moment shows in this one's entry too (an audit entry is a record of who asked, not a
 * lock).
 */
export class WriteChanges {
  /** `kept`: whether anything keeps what it tells (the audit plugin listens); if not, nothing is read. */
  constructor(
    private readonly db: Database,
    private readonly events: PluginEvents,
    private readonly kept: () => boolean,
  ) {}

  /**
   * Read what the write at `path` is about to change; undefined when it names nothing to
   * compare, or could not be read (logged: the write goes on, its entry without changes).
   */
  async before(method: string, path: string, body: unknown, log: Logger): Promise<Watched | undefined> {
    if (!this.kept()) return undefined;
    try {
      return await this.watch(method, path, body);
    } catch (error) {
      log.error({ err: error }, 'audit details not read: the entry keeps no changes');
      return undefined;
    }
  }

  private async watch(method: string, path: string, body: unknown): Promise<Watched | undefined> {
    const [, resource = '', verb = ''] = path.split('/');
    const fields = (body ?? {}) as { id?: unknown; repo_id?: unknown; clients?: unknown };
    const adds = verb === 'add' || (resource === 'server' && method === 'POST');
    if (resource === 'folder') {
      if (adds) return { kind: 'room-folder', adds, before: new Map(), ids: [] };
      const folder = folderOf(fields.id);
      return folder && this.read(folder.kind, [folder.id]);
    }
    const kind = kindOfPath[resource];
    if (!kind || path === '/client/import' || path === '/client/import-dhcpd') return undefined;
    if (adds) return { kind, adds, before: new Map(), ids: [] };
    if (Array.isArray(fields.clients)) {
      const before = await readSnapshots(this.db, 'client', fields.clients as string[], 'ip');
      return { kind, adds, before, ids: [...before.keys()] };
    }
    const id = idOf(path === '/repository/update' ? fields.repo_id : fields.id);
    if (id === undefined) return undefined;
    const watched = await this.read(kind, [id]);
    const cascading = verb === 'delete' ? clientsOf[kind] : undefined;
    if (cascading) {
      const clients = await this.db.query<{ id: number }>(cascading, [id]);
      watched.cascade = await readSnapshots(
        this.db,
        'client',
        clients.map((c) => Number(c.id)),
      );
    }
    return watched;
  }

  private async read(kind: SnapshotKind, ids: number[]): Promise<Watched> {
    return { kind, adds: false, before: await readSnapshots(this.db, kind, ids), ids };
  }

  /** The write answered `result` without an error: tell what it changed (a failure to read it is logged, never the write's). */
  async after(watched: Watched, result: unknown, req: IncomingMessage, log: Logger): Promise<void> {
    try {
      await this.compare(watched, result, req, log);
    } catch (error) {
      log.error({ err: error }, 'audit details not read: the entry keeps no changes');
    }
  }

  private async compare(watched: Watched, result: unknown, req: IncomingMessage, log: Logger): Promise<void> {
    let { kind, ids } = watched;
    if (watched.adds) {
      const id = idOf((result as { id?: unknown } | undefined)?.id);
      if (id === undefined) return;
      const folder = kind === 'room-folder' ? folderOf(id) : undefined;
      if (folder) kind = folder.kind;
      ids = [folder?.id ?? id];
    }
    const changes = diff(entityOf(kind), watched.before, await readSnapshots(this.db, kind, ids));
    if (watched.cascade) {
      const gone = await readSnapshots(this.db, 'client', [...watched.cascade.keys()]);
      changes.push(...diff('client', watched.cascade, gone));
    }
    await this.tell(req, changes, log);
  }

  /** Clients added by other means than a route of their own (an import): each one's values. */
  async added(req: IncomingMessage, clientIds: number[], log: Logger): Promise<void> {
    if (this.kept()) await this.after({ kind: 'client', adds: false, before: new Map(), ids: clientIds }, undefined, req, log);
  }

  private async tell(req: IncomingMessage, changes: AuditChange[], log: Logger): Promise<void> {
    if (changes.length > 0) await this.events.tell('audit.details', { req, changes }, log);
  }
}

/** A value an add or a delete need not list: a field left at its empty default. */
const empty = (value: unknown): boolean => value === '' || value === null || value === false || value === 0;

/**
 * Field by field: an updated record's fields that differ, an added one's values, a deleted
 * one's last values (empty defaults left out of both).
 */
export function diff(entity: string, before: Snapshots, after: Snapshots): AuditChange[] {
  const changes: AuditChange[] = [];
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(id);
    const now = after.get(id);
    const name = (now ?? was)!.name;
    for (const field of Object.keys((now ?? was)!.fields)) {
      const old = was?.fields[field];
      const value = now?.fields[field];
      if (was && now) {
        if (JSON.stringify(old) !== JSON.stringify(value)) changes.push({ entity, id, name, field, before: old, after: value });
      } else if (now) {
        if (!empty(value)) changes.push({ entity, id, name, field, after: value });
      } else if (!empty(old)) changes.push({ entity, id, name, field, before: old });
    }
  }
  return changes;
}

declare module 'ogserve' {
  interface EventMap {
    'inventory.created': InventoryChange;
    'inventory.updated': InventoryChange;
    'inventory.deleted': InventoryChange;
  }
}

export type InventoryKind = 'center' | 'room' | 'folder' | 'client' | 'repository' | 'server';

/** A write through the inventory's routes, as the event bus announces it. */
export interface InventoryChange {
  kind: InventoryKind;
  /** The record's id, where the request or its answer names one. */
  id?: number;
  /** The client (or clients) a client write touched, by address. */
  client?: string;
  clients?: string[];
}

export type ChangeEvent = 'inventory.created' | 'inventory.updated' | 'inventory.deleted';

const kinds: ReadonlySet<string> = new Set<InventoryKind>(['center', 'room', 'folder', 'client', 'repository', 'server']);

/**
 * What a successful inventory write changed, read from its route and body: `/room/add`
 * creates a room (its id in the answer), `/client/move` updates the clients it lists,
 * `DELETE /server` deletes one. Undefined for a path that is not an inventory write, and
 * for `/client/import` and `/client/import-dhcpd`.
 */
export function describeChange(
  method: string,
  path: string,
  body: unknown,
  result: unknown,
): { event: ChangeEvent; change: InventoryChange } | undefined {
  const [, kind, verb = ''] = path.split('/');
  // An import's body is a file: the route itself announces the clients it added.
  if (!kind || !kinds.has(kind) || path === '/client/import' || path === '/client/import-dhcpd') return undefined;
  const event: ChangeEvent =
    method === 'DELETE' || verb === 'delete'
      ? 'inventory.deleted'
      : verb === 'add' || (kind === 'server' && verb === '')
        ? 'inventory.created'
        : 'inventory.updated';
  const fields = (body ?? {}) as { id?: unknown; repo_id?: unknown; ip?: unknown; clients?: unknown };
  const answered = (result ?? {}) as { id?: unknown };
  const change: InventoryChange = { kind: kind as InventoryKind };
  const id = Number(answered.id ?? (kind === 'repository' && verb === 'update' ? fields.repo_id : fields.id));
  if (Number.isInteger(id) && id > 0) change.id = id;
  if (kind === 'client' && typeof fields.ip === 'string') change.client = fields.ip;
  if (Array.isArray(fields.clients)) change.clients = fields.clients.filter((c): c is string => typeof c === 'string');
  return { event, change };
}

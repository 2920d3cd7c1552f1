import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import { ErrorCode, badRequest, isIpv4, positive, timeOf } from 'ogserve';
import { AuditEntryEntity, type AuditEntry } from './entities/entry';
import type { EntryDetails } from './entry-details';

/** What GET /audit asks for: every field optional, newest first from `before` down. */
export interface AuditQuery {
  from?: number;
  to?: number;
  token?: string;
  client?: string;
  /** With `client`: entries that changed this client's record too (a write that names it by id). */
  clientId?: number;
  path?: string;
  before?: number;
  limit: number;
}

/** An entry as GET /audit answers it: `changes` and `command` where the plugins that served it told them. */
export interface AuditView extends EntryDetails {
  id: number;
  time: string;
  token: string;
  address: string;
  method: string;
  path: string;
  clients: string[];
  status: number | null;
  ms: number;
}

export const defaultLimit = 100;
export const maxLimit = 1000;
const known = new Set(['from', 'to', 'token', 'client', 'path', 'before', 'limit']);

/** The query string of GET /audit, checked: a 400 names the parameter. */
export function parseAuditQuery(query: URLSearchParams): AuditQuery {
  for (const key of query.keys()) {
    if (!known.has(key)) throw badRequest(ErrorCode.invalidField, `${key}: not a filter of GET /audit (use ${[...known].join(', ')})`, key);
  }
  const get = (key: string): string | undefined => query.get(key) ?? undefined;
  const parsed: AuditQuery = { limit: defaultLimit };
  const from = get('from');
  const to = get('to');
  if (from !== undefined) parsed.from = timeOf(from, 'from');
  if (to !== undefined) parsed.to = timeOf(to, 'to');
  const token = get('token');
  if (token !== undefined) {
    if (token.length === 0 || token.length > 64) throw badRequest(ErrorCode.invalidField, 'token: must be a token name', 'token');
    parsed.token = token;
  }
  const client = get('client');
  if (client !== undefined) {
    if (!isIpv4(client)) throw badRequest(ErrorCode.invalidField, `client: '${client}' is not an IPv4 address`, 'client');
    parsed.client = client;
  }
  const path = get('path');
  if (path !== undefined) {
    // No LIKE wildcards can get in: letters, digits, '/', '.' and '-' only.
    if (!/^\/[A-Za-z0-9/.-]{0,254}$/.test(path))
      throw badRequest(ErrorCode.invalidField, 'path: must be an API path such as /image or /client/add', 'path');
    parsed.path = path;
  }
  const before = get('before');
  if (before !== undefined) parsed.before = positive(before, 'before', 2 ** 31 - 1);
  const limit = get('limit');
  if (limit !== undefined) parsed.limit = positive(limit, 'limit', maxLimit);
  return parsed;
}

/**
 * The entries matching `query`, newest first, and the `before` of the next page (null when
 * this is the last). `path` takes the path itself and everything under it.
 */
export async function findEntries(em: EntityManager, query: AuditQuery): Promise<{ entries: AuditView[]; next: number | null }> {
  const where: FilterQuery<AuditEntry>[] = [];
  if (query.from !== undefined) where.push({ at: { $gte: String(query.from) } });
  if (query.to !== undefined) where.push({ at: { $lte: String(query.to) } });
  if (query.token !== undefined) where.push({ token: query.token });
  if (query.client !== undefined) {
    const named: FilterQuery<AuditEntry> = { clients: { $like: `%,${query.client},%` } };
    // A change is kept as {"entity":"client","id":12,...} (write-changes' order): an update naming it by id.
    const changed: FilterQuery<AuditEntry> = { details: { $like: `%{"entity":"client","id":${query.clientId},%` } };
    where.push(query.clientId === undefined ? named : { $or: [named, changed] });
  }
  if (query.before !== undefined) where.push({ id: { $lt: query.before } });
  if (query.path !== undefined) {
    const path = query.path.replace(/\/+$/, '') || '/';
    where.push({ $or: [{ path }, { path: { $like: `${path === '/' ? '' : path}/%` } }] });
  }
  const rows = await em.find(AuditEntryEntity, where.length > 0 ? { $and: where } : {}, {
    orderBy: { id: 'desc' },
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return {
    entries: page.map(viewOf),
    next: rows.length > query.limit ? page[page.length - 1]!.id : null,
  };
}

function viewOf(row: AuditEntry): AuditView {
  return {
    id: row.id,
    time: new Date(Number(row.at)).toISOString(),
    token: row.token,
    address: row.address,
    method: row.method,
    path: row.path,
    clients: row.clients === '' ? [] : row.clients.slice(1, -1).split(','),
    status: row.status,
    ms: row.ms,
    ...(row.details ? (JSON.parse(row.details) as EntryDetails) : {}),
  };
}

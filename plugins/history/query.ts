import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import { ErrorCode, badRequest, isIpv4, positive, timeOf } from 'ogserve';
import { type HistoryChange, HistoryChangeEntity } from './entities/change';

/** What GET /client/history asks for: one client, a time range, a kind, and the page. */
export interface HistoryQuery {
  client: string;
  from?: number;
  to?: number;
  kind?: 'hardware' | 'software';
  before?: number;
  limit: number;
}

/** A change as GET /client/history answers it (and the console's History tab shows it). */
export interface HistoryEntry {
  id: number;
  time: string;
  kind: 'hardware' | 'software';
  change: string;
  /** Hardware: the type code and what GET /hardware calls it. */
  type?: string;
  type_name?: string;
  /** Software: the partition and the package ('' for the OS line). */
  disk?: number;
  partition?: number;
  package?: string;
  before: string | null;
  after: string | null;
  alerts: string[];
}

export const defaultLimit = 100;
export const maxLimit = 1000;
const known = ['client', 'from', 'to', 'kind', 'before', 'limit'];

/** Refuses a query parameter the route does not take, naming it. */
export function onlyKnown(query: URLSearchParams, names: readonly string[], route: string): void {
  for (const key of query.keys()) {
    if (!names.includes(key))
      throw badRequest(ErrorCode.invalidField, `${key}: not a parameter of ${route} (use ${names.join(', ')})`, key);
  }
}

/** The query string of GET /client/history, checked: a 400 names the parameter. */
export function parseHistoryQuery(query: URLSearchParams): HistoryQuery {
  onlyKnown(query, known, 'GET /client/history');
  const client = query.get('client');
  if (client === null || client === '') throw badRequest(ErrorCode.missingField, 'client: the address of the client is required', 'client');
  if (!isIpv4(client)) throw badRequest(ErrorCode.invalidField, `client: '${client.slice(0, 40)}' is not an IPv4 address`, 'client');
  const parsed: HistoryQuery = { client, limit: defaultLimit };
  const from = query.get('from');
  const to = query.get('to');
  if (from !== null) parsed.from = timeOf(from, 'from');
  if (to !== null) parsed.to = timeOf(to, 'to');
  if (parsed.from !== undefined && parsed.to !== undefined && parsed.from > parsed.to)
    throw badRequest(ErrorCode.invalidField, 'to: must not be before from', 'to');
  const kind = query.get('kind');
  if (kind !== null) {
    if (kind !== 'hardware' && kind !== 'software')
      throw badRequest(ErrorCode.invalidField, "kind: must be 'hardware' or 'software'", 'kind');
    parsed.kind = kind;
  }
  const before = query.get('before');
  if (before !== null) parsed.before = positive(before, 'before', 2 ** 31 - 1);
  const limit = query.get('limit');
  if (limit !== null) parsed.limit = positive(limit, 'limit', maxLimit);
  return parsed;
}

/**
 * The changes of one client matching `query`, newest first, and the `before` of the next
 * page (null when this is the last).
 */
export async function findChanges(
  em: EntityManager,
  clientId: number,
  query: HistoryQuery,
  typeName: (code: string) => string,
): Promise<{ changes: HistoryEntry[]; next: number | null }> {
  const where: FilterQuery<HistoryChange>[] = [{ client: clientId }];
  if (query.from !== undefined) where.push({ at: { $gte: String(query.from) } });
  if (query.to !== undefined) where.push({ at: { $lte: String(query.to) } });
  if (query.kind !== undefined) where.push({ kind: query.kind });
  if (query.before !== undefined) where.push({ id: { $lt: query.before } });
  const rows = await em.find(HistoryChangeEntity, { $and: where }, { orderBy: { id: 'desc' }, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  return { changes: page.map((row) => entryOf(row, typeName)), next: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

function entryOf(row: HistoryChange, typeName: (code: string) => string): HistoryEntry {
  const common = { id: row.id, time: new Date(Number(row.at)).toISOString(), change: row.change };
  const tail = { before: row.before, after: row.after, alerts: row.alerts === '' ? [] : row.alerts.split(',') };
  if (row.kind === 'hardware') return { ...common, kind: 'hardware', type: row.item, type_name: typeName(row.item), ...tail };
  return { ...common, kind: 'software', disk: row.disk, partition: row.partition, package: row.item, ...tail };
}

import { ErrorCode, badRequest, timeOf } from 'ogserve';
import type { EnergyQuery, Grouping } from './report';

const dayMs = 86_400_000;
const groupings: readonly Grouping[] = ['client', 'room', 'center', 'day'];
/** A report by day reads every PC at each day's boundary: a year at most. */
const maxDays = 366;

function id(value: string, field: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > 2 ** 31 - 1)
    throw badRequest(ErrorCode.invalidField, `${field}: must be a ${field} id (a whole number from 1)`, field);
  return Number(value);
}

/** Refuses a query parameter the route does not take, naming it. */
export function onlyKnown(query: URLSearchParams, names: readonly string[], route: string): void {
  for (const key of query.keys())
    if (!names.includes(key))
      throw badRequest(ErrorCode.invalidField, `${key}: not a parameter of ${route} (use ${names.join(', ')})`, key);
}

/** The `room` and `center` filters, checked. */
export function scopeFilter(query: URLSearchParams): { room?: number; center?: number } {
  const room = query.get('room');
  const center = query.get('center');
  return { ...(room !== null && { room: id(room, 'room') }), ...(center !== null && { center: id(center, 'center') }) };
}

/**
 * The query string of GET /energy, checked: by default `to` is now and `from` 00:00 UTC seven
 * days before (a midnight, whose readings are written once a day); `by` room.
 */
export function parseEnergyQuery(query: URLSearchParams, now: number): EnergyQuery {
  onlyKnown(query, ['from', 'to', 'by', 'room', 'center', 'format'], 'GET /energy');
  const toText = query.get('to');
  const fromText = query.get('from');
  const to = toText === null ? now : timeOf(toText, 'to');
  const from = fromText === null ? Math.floor(to / dayMs) * dayMs - 7 * dayMs : timeOf(fromText, 'from');
  if (from >= to) throw badRequest(ErrorCode.invalidField, 'to: must be after from', 'to');
  const by = (query.get('by') ?? 'room') as Grouping;
  if (!groupings.includes(by)) throw badRequest(ErrorCode.invalidField, `by: must be one of ${groupings.join(', ')}`, 'by');
  if (by === 'day' && to - from > maxDays * dayMs)
    throw badRequest(ErrorCode.invalidField, `to: a report by day covers at most ${maxDays} days`, 'to');
  return { from, to, by, ...scopeFilter(query) };
}

/** Whether the answer is CSV: `format=csv`, or `Accept: text/csv` without `format`; a 400 naming `format` otherwise. */
export function csvWanted(query: URLSearchParams, accept: string | undefined): boolean {
  const format = query.get('format');
  if (format === null) return /(^|,)\s*text\/csv\b/i.test(accept ?? '');
  if (format === 'json') return false;
  if (format === 'csv') return true;
  throw badRequest(ErrorCode.invalidField, "format: must be 'json' or 'csv'", 'format');
}

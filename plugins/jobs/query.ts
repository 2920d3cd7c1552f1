import { ErrorCode, badRequest, isIpv4, positive } from 'ogserve';
import { type JobState, jobStates } from './entities/job-client';

/** What GET /jobs asks for: filters, and the page (ids below `before`, newest first). */
export interface JobsQuery {
  state?: JobState;
  kind?: string;
  client?: string;
  room?: number;
  who?: string;
  before?: number;
  limit: number;
}

export const defaultLimit = 50;
export const maxLimit = 500;
const known = ['state', 'kind', 'client', 'room', 'who', 'before', 'limit'];

/** A filter's text: at most 255 characters. */
function text(value: string, field: string): string {
  if (value === '' || value.length > 255) throw badRequest(ErrorCode.invalidField, `${field}: 1 to 255 characters`, field);
  return value;
}

/** The query string of GET /jobs, checked: a 400 names the parameter. */
export function parseJobsQuery(query: URLSearchParams): JobsQuery {
  for (const key of query.keys())
    if (!known.includes(key))
      throw badRequest(ErrorCode.invalidField, `${key}: not a parameter of GET /jobs (use ${known.join(', ')})`, key);
  const parsed: JobsQuery = { limit: defaultLimit };
  const state = query.get('state');
  if (state !== null) {
    if (!(jobStates as readonly string[]).includes(state))
      throw badRequest(ErrorCode.invalidField, `state: must be one of ${jobStates.join(', ')}`, 'state');
    parsed.state = state as JobState;
  }
  const client = query.get('client');
  if (client !== null) {
    if (!isIpv4(client)) throw badRequest(ErrorCode.invalidField, `client: '${client.slice(0, 40)}' is not an IPv4 address`, 'client');
    parsed.client = client;
  }
  const kind = query.get('kind');
  if (kind !== null) parsed.kind = text(kind, 'kind');
  const who = query.get('who');
  if (who !== null) parsed.who = text(who, 'who');
  const room = query.get('room');
  if (room !== null) parsed.room = positive(room, 'room');
  const before = query.get('before');
  if (before !== null) parsed.before = positive(before, 'before');
  const limit = query.get('limit');
  if (limit !== null) parsed.limit = positive(limit, 'limit', maxLimit);
  return parsed;
}

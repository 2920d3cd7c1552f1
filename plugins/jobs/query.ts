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

/** Which clients of one job GET /jobs/<id> answers: those after the `after` of the last page, `limit` at most. */
export interface JobPageQuery {
  after?: number;
  limit: number;
}

/**
 * A page of 500 lines of about 150 bytes stays well under the default response cap
 * (`rest.max_response_bytes`, 256 KiB); 1,000 is the most one page may ask for.
 */
export const defaultClientsLimit = 500;
export const maxClientsLimit = 1000;
const pageKnown = ['after', 'limit'];

/** The query string of GET /jobs/<id>, checked: a 400 names the parameter. */
export function parseJobPageQuery(query: URLSearchParams): JobPageQuery {
  for (const key of query.keys())
    if (!pageKnown.includes(key))
      throw badRequest(ErrorCode.invalidField, `${key}: not a parameter of GET /jobs/<id> (use ${pageKnown.join(', ')})`, key);
  const parsed: JobPageQuery = { limit: defaultClientsLimit };
  const after = query.get('after');
  if (after !== null) parsed.after = positive(after, 'after');
  const limit = query.get('limit');
  if (limit !== null) parsed.limit = positive(limit, 'limit', maxClientsLimit);
  return parsed;
}

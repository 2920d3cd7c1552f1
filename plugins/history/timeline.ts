import type { EntityManager } from '@mikro-orm/core';
import { ErrorCode, badRequest, isIpv4, type Logger, type PluginEvents, timeOf } from 'ogserve';
import type { ClientView } from '../inventory';
import { findChanges, onlyKnown } from './query';

/**
 * One thing that happened to a PC, as its timeline shows it. Each plugin that keeps records
 * of PCs says its own: `job` (the jobs plugin: a command and how it ended there, a wake run
 * included), `power` (energy: a stretch in a power state), `session` (energy: a user signed
 * in or out, the user as `who`), `boot` (boot: a network boot's
 * stages), `change` (history: what an inventory found changed), `audit` (audit: a change of
 * the PC's record or settings, with who made it). `summary` says it in English for API
 * readers; `data` holds the fields a reader words it from.
 */
export interface TimelineEntry {
  /** ISO 8601. */
  time: string;
  kind: 'job' | 'power' | 'session' | 'boot' | 'change' | 'audit' | (string & {});
  summary: string;
  /** Who or what acted (a person, a token, a schedule, a calendar), when the record says. */
  who: string | null;
  /** Where that name comes from (`key`, `token`, `local`, `schedule`, `calendar`...). */
  source: string | null;
  /** How it ended, for the records that end: a job's `done`, `failed`, `timed_out`... */
  state: string | null;
  /** The job it belongs to (GET /jobs/:id), when there is one. */
  job: number | null;
  data: Record<string, unknown>;
}

/**
 * What the timeline asks each plugin that keeps records of PCs (`client.timeline`, an
 * internal event: a plugin that is off simply does not answer): this PC's entries older than
 * `before` (ms since 1970), newest first, at most `limit`, read from its own tables.
 */
export interface TimelineQuestion {
  client: Pick<ClientView, 'id' | 'ip' | 'name'>;
  before: number;
  limit: number;
  /** What the caller may read besides `read` (a shell run's script needs `shell`). */
  permissions: ReadonlySet<string>;
  /** The asking request's unit of work: answers read through it rather than each opening one. */
  em: EntityManager;
  add(entries: TimelineEntry[]): void;
}

declare module 'ogserve' {
  interface InternalEventMap {
    /** A PC's timeline is asked for: each plugin that keeps records of PCs adds its entries. */
    'client.timeline': TimelineQuestion;
  }
}

export const defaultTimelineLimit = 50;
/** The latest time a Date holds: a first page has no upper bound (each plugin keeps its own clock). */
const latest = 8_640_000_000_000_000;
export const maxTimelineLimit = 500;

export interface TimelineQuery {
  client: string;
  before: number;
  limit: number;
}

/** The query string of GET /client/timeline, checked: a 400 names the parameter. */
export function parseTimelineQuery(query: URLSearchParams): TimelineQuery {
  onlyKnown(query, ['client', 'before', 'limit'], 'GET /client/timeline');
  const client = query.get('client');
  if (client === null || client === '') throw badRequest(ErrorCode.missingField, 'client: the address of the client is required', 'client');
  if (!isIpv4(client)) throw badRequest(ErrorCode.invalidField, `client: '${client.slice(0, 40)}' is not an IPv4 address`, 'client');
  const rawBefore = query.get('before');
  const before = rawBefore === null ? latest : timeOf(rawBefore, 'before');
  const rawLimit = query.get('limit');
  let limit = defaultTimelineLimit;
  if (rawLimit !== null) {
    if (!/^[1-9][0-9]{0,3}$/.test(rawLimit) || Number(rawLimit) > maxTimelineLimit)
      throw badRequest(ErrorCode.invalidField, `limit: must be a whole number from 1 to ${maxTimelineLimit}`, 'limit');
    limit = Number(rawLimit);
  }
  return { client, before, limit };
}

/**
 * A PC's timeline: every plugin's entries older than `before`, newest first, `limit` at a
 * time, and the `before` of the next page (null on the last). Entries of one millisecond are
 * never split between pages: a page ends before the first it cannot hold whole. A plugin
 * whose answer failed is named in `missing`, and the rest is answered.
 */
export async function timelineOf(
  events: Pick<PluginEvents, 'tell'>,
  client: TimelineQuestion['client'],
  query: TimelineQuery,
  permissions: ReadonlySet<string>,
  em: EntityManager,
  log: Logger,
): Promise<{ entries: TimelineEntry[]; next: number | null; missing: string[] }> {
  const all: TimelineEntry[] = [];
  const failures = await events.tell(
    'client.timeline',
    { client, before: query.before, limit: query.limit, permissions, em, add: (entries) => all.push(...entries) },
    log,
  );
  const at = (e: TimelineEntry) => Date.parse(e.time);
  all.sort((a, b) => at(b) - at(a));
  if (all.length <= query.limit) return { entries: all, next: null, missing: failures.map((f) => f.owner) };
  // Cut at the page's end, but not inside one millisecond: the next page starts with it whole.
  const cut = at(all[query.limit]!);
  let end = query.limit;
  while (end > 0 && at(all[end - 1]!) === cut) end--;
  if (end === 0) {
    // A whole page of one millisecond: shown as it is, the next page starts before it.
    return { entries: all.slice(0, query.limit), next: cut, missing: failures.map((f) => f.owner) };
  }
  return { entries: all.slice(0, end), next: cut + 1, missing: failures.map((f) => f.owner) };
}

/**
 * The history's own entries: what an inventory found changed, one entry per inventory (the
 * hardware, or one partition's software), its changes listed in `data.changes`.
 */
export async function historyEntries(
  em: EntityManager,
  question: TimelineQuestion,
  typeName: (code: string) => string,
): Promise<TimelineEntry[]> {
  // An inventory holds many changes: enough rows for `limit` inventories of a few changes each.
  const { changes } = await findChanges(
    em,
    question.client.id,
    { client: question.client.ip, to: question.before - 1, limit: Math.min(question.limit * 20, 2000) },
    typeName,
  );
  const groups = new Map<string, TimelineEntry>();
  for (const change of changes) {
    const key = `${change.time} ${change.kind} ${change.disk ?? ''} ${change.partition ?? ''}`;
    let entry = groups.get(key);
    if (!entry) {
      if (groups.size === question.limit) break;
      const what = change.kind === 'hardware' ? 'hardware' : `software of disk ${change.disk}, partition ${change.partition}`;
      entry = {
        time: change.time,
        kind: 'change',
        summary: `${what} changed`,
        who: null,
        source: null,
        state: change.alerts.length > 0 ? 'alert' : null,
        job: null,
        data: { inventory: change.kind, disk: change.disk, partition: change.partition, changes: [] },
      };
      groups.set(key, entry);
    }
    (entry.data.changes as unknown[]).push(change);
    if (change.alerts.length > 0) entry.state = 'alert';
  }
  for (const entry of groups.values()) {
    const count = (entry.data.changes as unknown[]).length;
    entry.summary = `${entry.summary}: ${count} change${count === 1 ? '' : 's'}`;
  }
  return [...groups.values()];
}

import type { IncomingMessage } from 'node:http';
import type { AuditChange, AuditDetails } from './details';

/**
 * Changes and PCs an entry keeps, at most: a page of entries must fit one answer
 * (`rest.max_response_bytes`), so a write of thousands of records keeps the first ones and
 * counts the rest (its `clients` still names every address the request did).
 */
export const maxKept = 100;

/** What an entry holds besides the request itself, as GET /audit answers it. */
export interface EntryDetails {
  changes?: AuditChange[];
  /** Changes left out past `maxKept`. */
  changes_omitted?: number;
  command?: { job: number | null; kind: string; count: number; clients: { ip: string; id?: number; name?: string }[] };
  /** The request only checked (an import's dry run): nothing was written. */
  dry_run?: true;
}

/** A field whose value is never kept: only that it changed. */
const secret = /pass|secret|token|api_?key|credential/i;

function withoutSecret(change: AuditChange): AuditChange {
  if (!secret.test(change.field)) return change;
  const { before: _before, after: _after, ...kept } = change;
  return { ...kept, before: '(secret)', after: '(secret)' };
}

/**
 * The details plugins tell of the requests being served (`audit.details`), held by request
 * until its entry is made: several tells add up (a write and the command it sends).
 */
export class RequestDetails {
  private readonly told = new WeakMap<IncomingMessage, EntryDetails>();

  add({ req, changes, command, dry_run }: AuditDetails): void {
    const details = this.told.get(req) ?? {};
    if (dry_run) details.dry_run = true;
    if (changes && changes.length > 0) {
      const kept = details.changes ?? [];
      const room = Math.max(0, maxKept - kept.length);
      details.changes = [...kept, ...changes.slice(0, room).map(withoutSecret)];
      const omitted = (details.changes_omitted ?? 0) + Math.max(0, changes.length - room);
      if (omitted > 0) details.changes_omitted = omitted;
    }
    if (command)
      details.command = { job: command.job, kind: command.kind, count: command.clients.length, clients: command.clients.slice(0, maxKept) };
    this.told.set(req, details);
  }

  /** What was told of `req`, once: undefined when nothing was. */
  take(req: IncomingMessage): EntryDetails | undefined {
    const details = this.told.get(req);
    this.told.delete(req);
    return details && (details.changes || details.command || details.dry_run) ? details : undefined;
  }
}

import type { IncomingMessage } from 'node:http';

/** A value a change shows: the field's own, or for a reference the record it points at. */
export type AuditValue = string | number | boolean | null | { id: number; name: string };

/** One field of one record that a request changed (committed). */
export interface AuditChange {
  /** What kind of record: `client`, `room`, `center`... */
  entity: string;
  id: number;
  /** The record's name (a client's name or address), for readers. */
  name?: string;
  /** As the API names it (`room`, `repo_id`, `boot`). */
  field: string;
  /** Absent when the record did not exist before (an add). */
  before?: AuditValue;
  /** Absent when the record is gone (a delete). */
  after?: AuditValue;
}

/** A command a request sent to agents: the job that follows it and the PCs it named. */
export interface AuditCommand {
  /** Null when no job was recorded. */
  job: number | null;
  /** The agent path: `refresh`, `image/restore`. */
  kind: string;
  clients: { ip: string; id?: number; name?: string }[];
}

/** What a plugin tells of a request it served, for that request's audit entry. */
export interface AuditDetails {
  req: IncomingMessage;
  changes?: AuditChange[];
  command?: AuditCommand;
  /** The request only checked what it would do (an import's `dry_run`): nothing was written. */
  dry_run?: boolean;
}

declare module 'ogserve' {
  interface InternalEventMap {
    /**
     * What a request did, told by the plugin that did it once it is committed and before it
     * answers: its audit entry keeps it. Nobody listens without the audit plugin.
     */
    'audit.details': AuditDetails;
  }
}

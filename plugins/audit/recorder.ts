import { type Database, insertInChunks, type Logger } from 'ogserve';
import { AuditEntryEntity, type AuditEntry } from './entities/entry';
import type { EntryDetails } from './entry-details';

/** One request to an audited route (core/http/routes.ts `audit`), once it was answered or cut off. */
export interface Action {
  /** When it arrived. */
  time: Date;
  /** The key's or token's name; never a secret. */
  token: string;
  /** The source address, without the IPv4-mapped prefix. */
  address: string;
  method: string;
  /** As sent, without the query. */
  path: string;
  /** The client addresses its body named. */
  clients: readonly string[];
  /** Undefined when the connection closed before the answer was sent. */
  status?: number;
  ms: number;
  /** What the plugins that served it told of it (`audit.details`): fields changed, the command's job and PCs. */
  details?: EntryDetails;
}

/** Told what happened to each entry: events and metrics hang here. */
export interface RecorderOutcomes {
  written(actions: Action[]): void;
  dropped(): void;
}

export interface RecorderOptions {
  /** Entries queued before a write starts at once instead of at the next tick. */
  batch: number;
  /** Entries kept while the database cannot take them; newer ones are dropped beyond it. */
  maxQueued: number;
}

/** The row of an action: addresses as `,ip,ip,`, the path cut to its column. */
export function rowOf(action: Action): Omit<AuditEntry, 'id'> {
  return {
    at: String(action.time.getTime()),
    token: action.token.slice(0, 64),
    address: action.address.slice(0, 45),
    method: action.method,
    path: action.path.slice(0, 255),
    clients: action.clients.length > 0 ? `,${action.clients.join(',')},` : '',
    status: action.status ?? null,
    ms: action.ms,
    details: action.details ? JSON.stringify(action.details) : null,
  };
}

/**
 * Audited requests, written in batches off the request path: `record` only queues. A write
 * that fails keeps its entries queued for the next one, so nothing is lost while the
 * database is briefly away; past `maxQueued` new entries are dropped, counted and logged
 * rather than let memory grow without bound.
 */
export class AuditRecorder {
  private queue: Action[] = [];
  private writing?: Promise<void>;
  private soon?: NodeJS.Immediate;
  /** Dropped since the last write that went in: logged once when it starts, and in total after. */
  private dropped = 0;
  private failing = false;

  constructor(
    private readonly db: Database,
    private readonly options: RecorderOptions,
    private readonly log: Logger,
    private readonly outcomes: RecorderOutcomes,
  ) {}

  get queued(): number {
    return this.queue.length;
  }

  record(action: Action): void {
    if (this.queue.length >= this.options.maxQueued) {
      this.outcomes.dropped();
      if (this.dropped++ === 0) this.log.error({ queued: this.queue.length }, 'audit queue full: new entries are dropped until it drains');
      return;
    }
    this.queue.push(action);
    if (this.queue.length >= this.options.batch && !this.soon) {
      this.soon = setImmediate(() => {
        this.soon = undefined;
        void this.flush();
      });
    }
  }

  /** Write everything queued so far; resolves once it is in the database (or the write failed and was logged). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.queue.length === 0) return;
    const taken = this.queue;
    this.queue = [];
    this.writing = this.write(taken).finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }

  private async write(actions: Action[]): Promise<void> {
    try {
      await this.insert(actions);
    } catch (error) {
      // The database answers, so the batch itself is refused: write what can be, so that one
      // entry it cannot take does not hold back every other for ever.
      if (await this.reachable()) {
        this.outcomes.written(await this.insertEach(actions));
        return;
      }
      this.queue = [...actions, ...this.queue].slice(0, this.options.maxQueued);
      if (!this.failing) this.log.error({ err: error, queued: this.queue.length }, 'audit entries not written: kept for the next try');
      this.failing = true;
      return;
    }
    if (this.failing) this.log.info('audit entries written again');
    if (this.dropped > 0) this.log.warn({ dropped: this.dropped }, 'audit entries were dropped while the queue was full');
    this.failing = false;
    this.dropped = 0;
    this.outcomes.written(actions);
  }

  private insert(actions: Action[]): Promise<void> {
    return this.db.transactional((em) => insertInChunks(em, AuditEntryEntity.meta.className, actions.map(rowOf)));
  }

  private async reachable(): Promise<boolean> {
    try {
      await this.db.query('select 1');
      return true;
    } catch {
      return false;
    }
  }

  private async insertEach(actions: Action[]): Promise<Action[]> {
    const written: Action[] = [];
    for (const action of actions) {
      try {
        await this.insert([action]);
        written.push(action);
      } catch (error) {
        this.outcomes.dropped();
        this.log.error(
          { err: error, method: action.method, path: action.path, token: action.token },
          'audit entry refused by the database: dropped',
        );
      }
    }
    return written;
  }
}

import type { Clock } from 'ogserve';

/** How long a PC's transfer stays listed after its last byte (the job page of a restore done in the night). */
const keptMs = 24 * 60 * 60 * 1000;
/** Transfers listed at most; the oldest ended go first. */
const keptAtMost = 20_000;
/** A transfer none of whose bytes moved for this long is `stalled_since` its last byte. */
const stallMs = 5_000;
/** The rate is measured over at least this long. */
const rateWindowMs = 1_000;

/** One PC's transfer of one file as GET /images/transfers answers it. */
export interface PcTransferView {
  client: string | null;
  file: string;
  image: number | null;
  job: number | null;
  /** Where the PC is in the file: the byte after the last it got (a resumed body starts where it asked). */
  bytes: number;
  size: number;
  /** Bytes per second over the last second or so; 0 when nothing moves. */
  rate: number;
  /** ISO time of its last byte when none moved for 5 s and it is not done (cut, or standing still); else null. */
  stalled_since: string | null;
  done: boolean;
  /** Bodies it took (1 unless it resumed with Range). */
  bodies: number;
  /** Its last body ended short of what it asked (cut, or the PC went). */
  cut_short: boolean;
  started: string;
  ended: string | null;
}

interface Entry {
  client?: string;
  file: string;
  image?: number;
  job?: number;
  size: number;
  bytes: number;
  bodies: number;
  cutShort: boolean;
  done: boolean;
  active: number;
  /** Bodies under way whose bytes are told only when they end (nginx sends them): not standing still for want of news. */
  activeToldAtEnd: number;
  started: number;
  moved: number;
  ended?: number;
  rate: number;
  markAt: number;
  markBytes: number;
}

/** One body under way, as the route reports it. */
export interface BodyTracker {
  moved(bytes: number): void;
  /** The body ended: whether its PC now has the whole file, and the job its line is in. */
  ended(cutShort: boolean): { done: boolean; job: number | null };
}

/**
 * Every PC's transfers of image files as they go, kept in memory on the instance serving them:
 * where each PC is in its file, its rate, since when it stands still, whether it is done. A
 * PC that resumes (Range) continues its line; each line names the restore job its PC is in
 * (heard from the jobs plugin's `job.created`, when it is on).
 */
export class PcTransfers {
  private readonly entries = new Map<string, Entry>();
  private readonly jobs = new Map<string, { job: number; at: number }>();

  constructor(private readonly clock: Clock) {}

  /** A restore job was sent to these clients: their next transfers belong to it. */
  jobStarted(job: number, clients: string[]): void {
    const at = this.clock.now();
    for (const client of clients) this.jobs.set(client, { job, at });
  }

  /**
   * A body starts: `start` is the first byte it holds of a file of `size` bytes; `toldAtEnd`
   * when its bytes are told only once it ended (nginx sends them: nginx cuts one that stands
   * still, and its end says so).
   */
  begin(body: { client?: string; file: string; image?: number; size: number; start: number; toldAtEnd?: boolean }): BodyTracker {
    const now = this.clock.now();
    const key = `${body.client ?? ''}|${body.file}`;
    let entry = this.entries.get(key);
    const job = body.client ? this.jobs.get(body.client) : undefined;
    const jobId = job && now - job.at < keptMs ? job.job : undefined;
    // A done line, or one of another job, is over: a new transfer starts a new line.
    if (!entry || (entry.done && entry.active === 0) || entry.job !== jobId || entry.size !== body.size) {
      this.entries.delete(key);
      entry = {
        client: body.client,
        file: body.file,
        image: body.image,
        job: jobId,
        size: body.size,
        bytes: 0,
        bodies: 0,
        cutShort: false,
        done: false,
        active: 0,
        activeToldAtEnd: 0,
        started: now,
        moved: now,
        rate: 0,
        markAt: now,
        markBytes: body.start,
      };
      this.entries.set(key, entry);
      this.prune(now);
    }
    const line = entry;
    line.bodies++;
    line.active++;
    if (body.toldAtEnd) line.activeToldAtEnd++;
    line.ended = undefined;
    line.bytes = body.start;
    line.markAt = now;
    line.markBytes = body.start;
    return {
      moved: (bytes) => {
        const at = this.clock.now();
        line.bytes = body.start + bytes;
        line.moved = at;
        if (at - line.markAt >= rateWindowMs) {
          line.rate = Math.round(((line.bytes - line.markBytes) * 1000) / (at - line.markAt));
          line.markAt = at;
          line.markBytes = line.bytes;
        }
      },
      ended: (cutShort) => {
        line.active--;
        if (body.toldAtEnd) line.activeToldAtEnd--;
        line.cutShort = cutShort;
        line.done = !cutShort && line.bytes >= line.size;
        if (line.active === 0) line.ended = this.clock.now();
        return { done: line.done, job: line.job ?? null };
      },
    };
  }

  /** The lines of a job, of a client, or every line; newest first. */
  list(filter: { job?: number; client?: string } = {}): PcTransferView[] {
    const now = this.clock.now();
    return [...this.entries.values()]
      .filter((e) => (filter.job === undefined || e.job === filter.job) && (filter.client === undefined || e.client === filter.client))
      .sort((a, b) => b.started - a.started)
      .map((e) => {
        const moving = e.active > 0 && (e.activeToldAtEnd > 0 || now - e.moved < stallMs);
        return {
          client: e.client ?? null,
          file: e.file,
          image: e.image ?? null,
          job: e.job ?? null,
          bytes: e.bytes,
          size: e.size,
          rate: moving ? e.rate : 0,
          stalled_since: !e.done && !moving ? new Date(e.moved).toISOString() : null,
          done: e.done,
          bodies: e.bodies,
          cut_short: e.cutShort,
          started: new Date(e.started).toISOString(),
          ended: e.ended === undefined ? null : new Date(e.ended).toISOString(),
        };
      });
  }

  /** Bodies under way now. */
  get active(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.active;
    return n;
  }

  private prune(now: number): void {
    for (const [key, e] of this.entries) if (e.active === 0 && e.ended !== undefined && now - e.ended > keptMs) this.entries.delete(key);
    for (const [client, job] of this.jobs) if (now - job.at > keptMs) this.jobs.delete(client);
    if (this.entries.size <= keptAtMost) return;
    const ended = [...this.entries].filter(([, e]) => e.active === 0).sort(([, a], [, b]) => (a.ended ?? 0) - (b.ended ?? 0));
    for (const [key] of ended.slice(0, this.entries.size - keptAtMost)) this.entries.delete(key);
  }
}

import type { Logger } from 'ogserve';
import { nextOccurrence, type When } from './calendar';
import type { Clock } from './clock';
import type { ScheduleKind } from './entities/schedule';

export interface TimelineEntry {
  id: number;
  kind: ScheduleKind;
  target: number;
  when: When;
  /** The next fire time (ms). */
  at: number;
}

/**
 * The next fire time of every active schedule, with one timer armed for the earliest.
 * Occurrences are computed one at a time from the masks, so a schedule spanning decades
 * costs one entry, and times already past are never run late.
 */
export class Timeline {
  private readonly entries = new Map<number, TimelineEntry>();
  private cancel?: () => void;
  private armedFor?: number;

  constructor(
    private readonly clock: Clock,
    private readonly fire: (entry: TimelineEntry) => Promise<void>,
    private readonly log: Logger,
    /** The zone the schedules' wall-clock times are in (the site's). */
    private readonly zone?: string,
  ) {}

  /** (Re)place a schedule, first firing at or after `from`; none left = not armed. */
  set(entry: Omit<TimelineEntry, 'at'>, from: number): number | null {
    this.entries.delete(entry.id);
    const at = nextOccurrence(entry.when, from, this.zone);
    if (at !== null) this.entries.set(entry.id, { ...entry, at });
    this.arm();
    return at;
  }

  remove(id: number): void {
    if (this.entries.delete(id)) this.arm();
  }

  /** Whether schedule `id` is armed with exactly `when`. */
  holds(id: number, when: When): boolean {
    const entry = this.entries.get(id);
    return entry !== undefined && JSON.stringify(entry.when) === JSON.stringify(when);
  }

  /** Drop every schedule not in `ids`. */
  keepOnly(ids: Set<number>): void {
    let dropped = false;
    for (const id of this.entries.keys()) if (!ids.has(id)) dropped = this.entries.delete(id) || dropped;
    if (dropped) this.arm();
  }

  /** The next fire time of a schedule, if it has one. */
  nextOf(id: number): number | undefined {
    return this.entries.get(id)?.at;
  }

  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.entries.clear();
  }

  private earliest(): number | undefined {
    let at: number | undefined;
    for (const entry of this.entries.values()) if (at === undefined || entry.at < at) at = entry.at;
    return at;
  }

  private arm(): void {
    const at = this.earliest();
    if (at === this.armedFor && this.cancel) return;
    this.cancel?.();
    this.cancel = undefined;
    this.armedFor = at;
    if (at !== undefined) this.cancel = this.clock.setTimer(at, () => this.tick());
  }

  private async tick(): Promise<void> {
    this.cancel = undefined;
    this.armedFor = undefined;
    const now = this.clock.now();
    const due = [...this.entries.values()].filter((e) => e.at <= now).sort((a, b) => a.at - b.at || a.id - b.id);
    for (const entry of due) {
      // The next occurrence is computed before running, from after both the fire time and
      // now: occurrences missed while the process was stalled are skipped, not run late.
      const at = nextOccurrence(entry.when, Math.max(entry.at, now) + 1, this.zone);
      if (at === null) this.entries.delete(entry.id);
      else this.entries.set(entry.id, { ...entry, at });
      try {
        await this.fire(entry);
      } catch (error) {
        this.log.error({ err: error, schedule: entry.id }, 'running a schedule failed');
      }
    }
    this.arm();
  }
}

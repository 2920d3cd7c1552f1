import type { Clock, Logger, PluginCluster } from 'ogserve';
import { type Planned, planned } from './plan';
import type { Calendar } from './store';

const hourMs = 60 * 60 * 1000;

export interface TickerWork {
  clock: Clock;
  zone: string;
  log: Logger;
  calendars(): Promise<Calendar[]>;
  fire(action: Planned): Promise<void>;
}

/**
 * Fires the calendars' actions when their instant comes, on the power clock. Of several
 * instances one holds the role and fires. Each action fires once: the ticker remembers up
 * to when it has fired (`through`), and a timer waits for the next action, or an hour at
 * most, so that a calendar changed on another instance is seen. Actions due while no
 * instance ran (a stop, a restart) are not fired late.
 */
export class PowerTicker {
  private through = 0;
  private held = false;
  private cancel?: () => void;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly work: TickerWork) {}

  /** Hold the role `power-calendars` while this instance is elected. */
  elect(cluster: Pick<PluginCluster, 'elected'>): void {
    cluster.elected(
      'power-calendars',
      () => {
        this.held = true;
        this.through = this.work.clock.now();
        return this.rearm();
      },
      () => this.stop(),
    );
  }

  stop(): void {
    this.held = false;
    this.cancel?.();
    this.cancel = undefined;
  }

  /** Set the timer again from what the calendars say now (one was saved or deleted). */
  rearm(): Promise<void> {
    this.chain = this.chain
      .then(() => this.arm())
      .catch((error: unknown) => this.work.log.error({ err: error }, 'power calendars not armed'));
    return this.chain;
  }

  private async arm(): Promise<void> {
    if (!this.held) return;
    const horizon = this.through + hourMs;
    const next = planned(await this.work.calendars(), this.through, horizon, this.work.zone)[0];
    if (!this.held) return;
    this.cancel?.();
    this.cancel = this.work.clock.setTimer(next?.at ?? horizon, () => {
      this.chain = this.chain
        .then(() => this.tick())
        .catch((error: unknown) => this.work.log.error({ err: error }, 'power calendars not fired'));
      return this.chain;
    });
  }

  private async tick(): Promise<void> {
    if (!this.held) return;
    const now = this.work.clock.now();
    const due = planned(await this.work.calendars(), this.through, now, this.work.zone);
    this.through = now;
    for (const action of due) {
      try {
        await this.work.fire(action);
      } catch (error) {
        this.work.log.error({ err: error, calendar: action.calendar.id, action: action.action }, 'a power calendar action failed');
      }
    }
    await this.arm();
  }
}

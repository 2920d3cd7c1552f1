import { createHmac } from 'node:crypto';
import type { Logger } from '../../core/log';
import type { FleetEvent } from './event-log';
import type { EventFilter } from './filter';

export interface WebhookSettings {
  url: string;
  secret: string;
  filter: EventFilter;
  queueSize: number;
  attempts: number;
  retryMs: number;
  timeoutMs: number;
}

export interface WebhookFigures {
  delivered: number;
  failed: number;
  dropped: number;
}

const maxRetryMs = 5 * 60_000;

/** The signature header's value: HMAC-SHA256 of the exact body, keyed by the hook's secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Delivers events to one URL, in order, one request at a time, from a bounded queue: the
 * server only appends, so a slow or dead receiver never holds anything up. A failed
 * delivery (network error, timeout, an answer other than 2xx) is retried with a doubling
 * delay; after the last attempt the event is given up and logged.
 */
export class WebhookSender {
  private readonly queue: FleetEvent[] = [];
  private busy = false;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private readonly abort = new AbortController();
  readonly figures: WebhookFigures = { delivered: 0, failed: 0, dropped: 0 };

  constructor(
    private readonly settings: WebhookSettings,
    private readonly log: Logger,
  ) {}

  offer(event: FleetEvent): void {
    if (this.stopped || !this.settings.filter.matches(event) || event.type === 'reset') return;
    if (this.queue.length >= this.settings.queueSize) {
      this.queue.shift();
      this.figures.dropped++;
      if (this.figures.dropped === 1 || this.figures.dropped % 1000 === 0)
        this.log.warn(
          { url: this.settings.url, dropped: this.figures.dropped },
          `webhook ${this.settings.url}: queue full, oldest events dropped`,
        );
    }
    this.queue.push(event);
    if (!this.busy) void this.drain();
  }

  get waiting(): number {
    return this.queue.length;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.abort.abort();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (!this.stopped && this.queue.length > 0) {
      const event = this.queue[0]!;
      const delivered = await this.deliver(event);
      if (this.stopped) break;
      this.queue.shift();
      if (delivered) this.figures.delivered++;
      else this.figures.failed++;
    }
    this.busy = false;
  }

  /** Every attempt for one event; false when all of them failed. */
  private async deliver(event: FleetEvent): Promise<boolean> {
    const body = JSON.stringify(event);
    let delay = this.settings.retryMs;
    for (let attempt = 1; attempt <= this.settings.attempts; attempt++) {
      const problem = await this.post(event, body);
      if (problem === undefined || this.stopped) return problem === undefined;
      if (attempt === this.settings.attempts) {
        this.log.warn(
          { url: this.settings.url, event: event.id, attempts: attempt },
          `webhook ${this.settings.url}: event ${event.id} given up after ${attempt} attempts (${problem})`,
        );
        return false;
      }
      await new Promise<void>((resolve) => {
        this.retryTimer = setTimeout(resolve, delay);
      });
      delay = Math.min(delay * 2, maxRetryMs);
    }
    return false;
  }

  /** One POST; undefined when the receiver took it, else what went wrong. */
  private async post(event: FleetEvent, body: string): Promise<string | undefined> {
    try {
      const answer = await fetch(this.settings.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Ogserve-Event': event.type,
          'X-Ogserve-Delivery': String(event.id),
          'X-Ogserve-Signature': signature(this.settings.secret, body),
        },
        body,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      await answer.arrayBuffer().catch(() => undefined);
      return answer.ok ? undefined : `status ${answer.status}`;
    } catch (error) {
      return (error as Error).message;
    }
  }
}

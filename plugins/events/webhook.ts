import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'ogserve';
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
 *
 * Each hook has its own connection (kept alive, one at a time), so a receiver that hangs
 * or fails holds up no other hook; a keep-alive connection to a healthy receiver costs one
 * round trip per event, without a new connection or fetch's stream machinery for each.
 */
export class WebhookSender {
  private readonly queue: FleetEvent[] = [];
  /** Where the queue starts in `queue`: taking from the front is a step, not a copy. */
  private head = 0;
  private busy = false;
  private stopped = false;
  private readonly target: URL;
  private readonly agent: http.Agent;
  private request?: http.ClientRequest;
  private wake?: () => void;
  private retryTimer?: NodeJS.Timeout;
  readonly figures: WebhookFigures = { delivered: 0, failed: 0, dropped: 0 };

  constructor(
    private readonly settings: WebhookSettings,
    private readonly log: Logger,
  ) {
    this.target = new URL(settings.url);
    const secure = this.target.protocol === 'https:';
    this.agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets: 1 });
  }

  offer(event: FleetEvent): void {
    if (this.stopped || !this.settings.filter.matches(event) || event.type === 'reset') return;
    if (this.waiting >= this.settings.queueSize) {
      this.head++;
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
    return this.queue.length - this.head;
  }

  /**
   * No more deliveries: the request under way is abandoned, the retry wait ends, the
   * connection closes. Returns the events not delivered (the one under way first).
   */
  stop(): FleetEvent[] {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.wake?.();
    this.request?.destroy();
    this.agent.destroy();
    const left = this.queue.slice(this.head);
    this.queue.length = 0;
    this.head = 0;
    return left;
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (!this.stopped && this.waiting > 0) {
      const event = this.queue[this.head]!;
      const delivered = await this.deliver(event);
      if (this.stopped) break;
      this.take();
      if (delivered) this.figures.delivered++;
      else this.figures.failed++;
    }
    this.busy = false;
  }

  /** Drop the first event; the array is compacted once the taken part is half of it. */
  private take(): void {
    this.head++;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
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
        this.wake = resolve;
        this.retryTimer = setTimeout(resolve, delay);
      });
      this.wake = undefined;
      delay = Math.min(delay * 2, maxRetryMs);
    }
    return false;
  }

  /** One POST; undefined when the receiver took it, else what went wrong. */
  private post(event: FleetEvent, body: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const req = (this.target.protocol === 'https:' ? https : http).request(this.target, {
        method: 'POST',
        agent: this.agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Ogserve-Event': event.type,
          'X-Ogserve-Delivery': String(event.id),
          'X-Ogserve-Signature': signature(this.settings.secret, body),
        },
      });
      this.request = req;
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${this.settings.timeoutMs} ms`)), this.settings.timeoutMs);
      let settled = false;
      const settle = (problem: string | undefined): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.request === req) this.request = undefined;
        resolve(problem);
      };
      req.once('response', (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is read to its end, so that the connection can take the next event.
        res.resume();
        res.once('end', () => settle(status >= 200 && status < 300 ? undefined : `status ${status}`));
        res.once('error', (error) => settle(error.message));
      });
      req.once('error', (error) => settle(error.message));
      req.once('close', () => settle('connection closed'));
      req.end(body);
    });
  }
}

import { randomBytes } from 'node:crypto';
import type { Logger } from 'ogserve';

/**
 * The internal location of the nginx in front of ogserve (packaging/nginx/ogserve.conf):
 * `X-Accel-Redirect: /_ogserve_bytes/<id><real path>` makes nginx send that file itself, with
 * sendfile, Range and validators, and log the transfer under `<id>`.
 */
export const handoffLocation = '/_ogserve_bytes/';

/** Handed-off bodies whose log line never came (nginx restarted, a datagram lost) end, nothing sent, after this. */
const forgetAfterMs = 24 * 3600_000;

/** One line of nginx's `ogserve_bytes` log format: `$status $body_bytes_sent $request_time "$request_completion" $uri`. */
const logLine = /^(\d{3}) (\d+) ([\d.]+) "(OK)?" \/_ogserve_bytes\/([0-9a-f]{16})\//;

/** How a handed-off body went, from nginx's log line. */
export interface HandedEnd {
  status: number;
  bytes: number;
  ms: number;
  /** nginx's `$request_completion`: the whole answer went out. */
  complete: boolean;
}

/** The end of a body nginx never sent: its line never came, or ogserve's answer never reached nginx. */
const nothingSent: HandedEnd = { status: 0, bytes: 0, ms: 0, complete: false };

interface Pending {
  since: number;
  ended: (end: HandedEnd) => void;
}

/**
 * The bodies ogserve handed to nginx, until nginx's access log (syslog datagrams on a loopback
 * port, `transfers.handoff_log_port`) says how each went. ogserve still decides who gets what
 * and tells each transfer's end as when it sends the bytes itself; nginx moves the bytes at a
 * thirtieth of Node's CPU per GB (issue 52's figures), off ogserve's event loop.
 */
export class NginxHandoff {
  private readonly pending = new Map<string, Pending>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly log: Logger) {
    this.sweep = setInterval(() => this.forgetOld(), 3600_000);
    this.sweep.unref();
  }

  /** The X-Accel-Redirect value that has nginx send the file at `real` (a checked real path); `ended` hears its log line. */
  redirect(real: string, ended: (end: HandedEnd) => void): string {
    const id = randomBytes(8).toString('hex');
    this.pending.set(id, { since: Date.now(), ended });
    const encoded = real.split('/').map(encodeURIComponent).join('/');
    return `${handoffLocation}${id}${encoded}`;
  }

  /**
   * ogserve's answer carrying `redirect` never reached nginx (its connection went first): no
   * line will come, and the body ends now, with nothing sent.
   */
  abandon(redirect: string): void {
    this.end(redirect.slice(handoffLocation.length, handoffLocation.length + 16), nothingSent);
  }

  /** A syslog datagram from nginx: `<pri>ogserve: <line>`. Anything else is ignored. */
  receive(datagram: string): void {
    const line = datagram.slice(datagram.indexOf(': ') + 2);
    const parsed = logLine.exec(line);
    if (!parsed) return;
    this.end(parsed[5]!, {
      status: Number(parsed[1]),
      bytes: Number(parsed[2]),
      ms: Math.round(Number(parsed[3]) * 1000),
      complete: parsed[4] === 'OK',
    });
  }

  private end(id: string, end: HandedEnd): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    try {
      pending.ended(end);
    } catch (error) {
      this.log.warn({ err: error }, `handed-off transfer not told: ${(error as Error).message}`);
    }
  }

  /** Bodies handed off whose end nginx has not told yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  close(): void {
    clearInterval(this.sweep);
  }

  private forgetOld(): void {
    const before = Date.now() - forgetAfterMs;
    for (const [id, pending] of this.pending) if (pending.since < before) this.end(id, nothingSent);
  }
}

import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';

/** How a body went: the bytes handed to the connection, how long it took, whether it was cut for standing still. */
export interface Flow {
  bytes: number;
  ms: number;
  stalled: boolean;
}

/**
 * The bodies sent at once (`boot.max_transfers`, say) and how long one may stand still
 * (`boot.stall_s`). A slot is taken when a body starts and given back when it ended or its
 * connection went, so answers without a body (304, 416, HEAD, refusals) never hold one; and a
 * body none of whose bytes moved for `stallMs` (a reader that stopped, or that takes less
 * than a chunk in that time) is cut, so that no reader keeps a slot longer.
 */
export class TransferSlots {
  private active = 0;

  constructor(
    private readonly max: number,
    private readonly stallMs: number,
  ) {}

  /** Bodies under way (the metric). */
  get inFlight(): number {
    return this.active;
  }

  /** Whether every slot is taken: a new body must wait. */
  get full(): boolean {
    return this.active >= this.max;
  }

  /**
   * Send `body` on `res`, whose head is written, in a slot (the caller saw one free). `ended`
   * hears how it went once the answer ended or its connection closed; `failed`, a read error
   * (the connection is cut: its head promised bytes that will not come); `moved`, the bytes
   * handed on so far each time a chunk moves.
   */
  flow(
    body: Readable,
    res: ServerResponse,
    ended: (flow: Flow) => void,
    failed: (error: Error) => void,
    moved?: (bytes: number) => void,
  ): void {
    this.active++;
    const started = performance.now();
    let bytes = 0;
    let stalled = false;
    const stall = setTimeout(() => {
      stalled = true;
      res.destroy();
    }, this.stallMs);
    res.once('close', () => {
      clearTimeout(stall);
      // pipe() leaves its source open when the answer closes first: the file is let go here.
      body.destroy();
      this.active--;
      ended({ bytes, ms: Math.round(performance.now() - started), stalled });
    });
    body.once('error', (error) => {
      failed(error);
      res.destroy();
    });
    // The file is read only as the connection takes what was read before: a chunk read is progress.
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      stall.refresh();
      moved?.(bytes);
    });
    body.pipe(res);
  }
}

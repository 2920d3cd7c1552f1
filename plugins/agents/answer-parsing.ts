import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'ogserve';
import { UnusableBody, parseBody } from './answer-body';
import type { ParseJob, ParseResult } from './answer-worker';
import { QuietCollector, collectGarbage } from './quiet-collector';

/**
 * Bodies from this size up are parsed on another thread. Below it parsing takes a few
 * milliseconds at most, less than handing the body over would.
 */
const offThreadBytes = 256 * 1024;
/** Once this many MiB of large bodies were parsed and none came for the quiet time, their memory is given back. */
const mibBeforeCollection = 32;
const quietBeforeCollectionMs = 5000;

/**
 * Parses agent answer bodies: small ones at once, large ones (a software list, a long shell
 * output: up to agents.max_answer_bytes) on one parse thread, so that REST keeps answering
 * while ten agents' 15 MB answers are decoded and parsed. The bytes move to the thread
 * without a copy and the parsed body comes back. The thread starts when a large body comes;
 * once large bodies stop coming, it ends and one compacting collection runs: the memory of
 * the bodies (the thread's heap, the decoded text, the parsed values) goes back to the system.
 */
export class AnswerParsing {
  private worker?: Worker;
  private readonly waiting = new Map<number, { resolve(body: unknown): void; reject(error: Error): void }>();
  private nextId = 0;
  private readonly quiet: QuietCollector;

  constructor(
    private readonly maxValues: number,
    log: Logger,
  ) {
    this.quiet = new QuietCollector(
      mibBeforeCollection,
      quietBeforeCollectionMs,
      ({ deaths, ...report }) =>
        log.info({ mib: deaths, ...report }, `${deaths} MiB of large agent answers parsed: memory collected in ${report.ms} ms`),
      () => {
        this.endIdleThread();
        collectGarbage();
      },
    );
  }

  /** Whether this body is parsed on the parse thread. */
  static offThread(body: Buffer): boolean {
    return body.length >= offThreadBytes;
  }

  /** A small body as JSON, parsed at once; throws UnusableBody when it cannot be used. */
  parseNow(body: Buffer): unknown {
    return parseBody(body, this.maxValues);
  }

  /** A large body as JSON, parsed on the parse thread; rejects with UnusableBody when it cannot be used. */
  parseOffThread(body: Buffer): Promise<unknown> {
    const worker = this.started();
    const id = this.nextId++;
    const mib = Math.ceil(body.length / 2 ** 20);
    // A body that owns its memory block moves to the thread as it is; any other is copied first.
    const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
    const bytes = owned ? (body.buffer as ArrayBuffer) : new Uint8Array(body).buffer;
    return new Promise<unknown>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, bytes, maxValues: this.maxValues } satisfies ParseJob, [bytes]);
    }).finally(() => this.quiet.died(mib));
  }

  /** Ends the parse thread; bodies still being parsed are refused. */
  async stop(): Promise<void> {
    this.quiet.stop();
    const worker = this.worker;
    this.worker = undefined;
    this.failAll('the service is stopping');
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(path.join(__dirname, 'answer-worker.js'));
    // Only bodies being parsed keep it busy, and their connections keep the process alive.
    worker.unref();
    worker.on('message', (result: ParseResult) => this.done(result));
    worker.on('error', (error) => this.ended(worker, `the answer parse thread failed: ${error.message}`));
    worker.on('exit', () => this.ended(worker, 'the answer parse thread ended'));
    this.worker = worker;
    return worker;
  }

  private done(result: ParseResult): void {
    const waiter = this.waiting.get(result.id);
    this.waiting.delete(result.id);
    if ('unusable' in result) waiter?.reject(new UnusableBody(result.unusable));
    else waiter?.resolve(result.body);
  }

  /** The thread's heap goes with it; a thread still parsing is left to end at the next quiet time. */
  private endIdleThread(): void {
    if (!this.worker || this.waiting.size > 0) return;
    const worker = this.worker;
    this.worker = undefined;
    void worker.terminate();
  }

  /** The thread died (out of memory on a hostile body, say): what it was parsing cannot be used. */
  private ended(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.failAll(why);
  }

  private failAll(why: string): void {
    for (const waiter of this.waiting.values()) waiter.reject(new UnusableBody(why));
    this.waiting.clear();
  }
}

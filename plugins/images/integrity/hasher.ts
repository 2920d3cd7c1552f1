import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { HashAnswer, HashRequest } from './hash-worker';

/** What hashing a file found: its bytes, and each digest asked for in hex. */
export interface FileHash {
  size: number;
  sha256: string;
  md5?: string;
}

/** The file could not be read (`code` ENOENT when it is not there). */
export class HashError extends Error {
  override name = 'HashError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Bytes a worker reads at a time: large reads, few calls. */
const blockBytes = 4 * 1024 * 1024;

/**
 * Hashes files off the main thread: each file on a worker thread of its own, reading in
 * 4 MiB blocks, `concurrency` files at a time (the others wait their turn: hashing is
 * bound by the disk, and a nightly check of a whole repository must not take every core).
 */
export class FileHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly concurrency = 1) {}

  /** sha256 of the file (and md5 with `withMd5`), streamed through a worker thread. */
  async hash(file: string, options: { withMd5?: boolean } = {}): Promise<FileHash> {
    await this.turn();
    try {
      const algorithms = options.withMd5 ? ['sha256', 'md5'] : ['sha256'];
      const answer = await runWorker({ file, algorithms, blockBytes });
      if ('error' in answer) throw new HashError(answer.error, answer.code);
      return { size: answer.size, sha256: answer.digests.sha256!, ...(options.withMd5 ? { md5: answer.digests.md5 } : {}) };
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Files being hashed now, and waiting. */
  get busy(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private turn(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.running++;
        resolve();
      }),
    );
  }
}

function runWorker(request: HashRequest): Promise<HashAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(path.join(__dirname, 'hash-worker.js'), { workerData: request });
    let answered = false;
    worker.once('message', (answer: HashAnswer) => {
      answered = true;
      resolve(answer);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new HashError(`the hashing thread ended (${code}) without an answer`));
    });
  });
}

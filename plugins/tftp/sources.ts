import { type FileHandle, open, readFile } from 'node:fs/promises';
import type { Found } from './paths';

/** The bytes of a file being sent: what `read` answers for a range of it. */
export interface Source {
  readonly size: number;
  /** `length` bytes from `offset` (fewer at the end of the file). */
  read(offset: number, length: number): Buffer | Promise<Buffer>;
  /** The transfer is over: let go of what it held. */
  release(): void;
}

interface Held {
  key: string;
  bytes: Promise<Buffer>;
  size: number;
  users: number;
  timer?: NodeJS.Timeout;
}

/** How long a whole file stays in memory after its last transfer: the next PCs of a storm ask within seconds. */
const keepMs = 30_000;
/** What a large file's transfer reads at a time. */
const chunkBytes = 1 << 20;

/**
 * The files being sent: each file up to `maxFileBytes` read whole once and shared by every
 * transfer of it (a room asking for the same loader at once reads it once), within
 * `budgetBytes` in all; a larger file, or one past the budget, is read a chunk at a time by
 * its own transfer. A file changed on disk (size, mtime, inode) is a new entry.
 */
export class Sources {
  private readonly held = new Map<string, Held>();
  private heldBytes = 0;

  constructor(
    private readonly maxFileBytes: number,
    private readonly budgetBytes: number,
  ) {}

  async open(found: Found): Promise<Source> {
    const key = `${found.real}\0${found.size}\0${found.mtimeMs}\0${found.ino}`;
    let held = this.held.get(found.real);
    if (held && held.key !== key) {
      this.drop(found.real, held);
      held = undefined;
    }
    if (!held && found.size <= this.maxFileBytes && this.heldBytes + found.size <= this.budgetBytes) {
      held = { key, bytes: readFile(found.real), size: found.size, users: 0 };
      this.held.set(found.real, held);
      this.heldBytes += found.size;
      held.bytes.catch(() => this.drop(found.real, held!));
    }
    if (held) return this.shared(found.real, held);
    return chunked(await open(found.real, 'r'), found.size);
  }

  private async shared(real: string, held: Held): Promise<Source> {
    held.users++;
    clearTimeout(held.timer);
    let bytes: Buffer;
    try {
      bytes = await held.bytes;
    } catch (error) {
      held.users--;
      throw error;
    }
    let released = false;
    return {
      // What was read: a file that grew or shrank meanwhile is sent as it was read.
      size: bytes.length,
      read: (offset, length) => bytes.subarray(offset, offset + length),
      release: () => {
        if (released) return;
        released = true;
        if (--held.users === 0) held.timer = setTimeout(() => this.drop(real, held), keepMs).unref();
      },
    };
  }

  private drop(real: string, held: Held): void {
    if (this.held.get(real) !== held) return;
    clearTimeout(held.timer);
    this.held.delete(real);
    this.heldBytes -= held.size;
  }

  /** Forget every file held (the plugin stops). */
  clear(): void {
    for (const [real, held] of this.held) this.drop(real, held);
  }
}

/** A file read a chunk at a time through its own descriptor. */
function chunked(handle: FileHandle, size: number): Source {
  let start = 0;
  let chunk = Buffer.alloc(0);
  let closed = false;
  return {
    size,
    async read(offset, length) {
      if (offset < start || offset + length > start + chunk.length) {
        const buffer = Buffer.allocUnsafe(Math.max(chunkBytes, length));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        start = offset;
        chunk = buffer.subarray(0, bytesRead);
      }
      return chunk.subarray(offset - start, offset - start + length);
    },
    release() {
      if (closed) return;
      closed = true;
      void handle.close().catch(() => undefined);
    },
  };
}

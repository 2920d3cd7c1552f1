import { stringifyAscii } from 'ogserve';

/**
 * The reverse-HTTP framing of the reference agent. The server writes HTTP/1.1 requests on
 * the connection the agent opened; the agent writes HTTP/1.0 answers back, each with a
 * Content-Length body, and unsolicited `103 Early Hints` events between them.
 */

export type Method = 'GET' | 'POST';

/** Request bytes exactly as the reference server writes them (both headers always present). */
export function encodeRequest(method: Method, path: string, body?: object): Buffer {
  // Non-ASCII is escaped so that characters equal bytes: the Python agent compares the
  // decoded text length with Content-Length and would wait forever on multi-byte UTF-8.
  const json = body === undefined ? '' : stringifyAscii(body);
  return Buffer.from(
    `${method} /${path} HTTP/1.1\r\nContent-Length: ${json.length}\r\nContent-Type: application/json\r\n\r\n${json}`,
    'latin1',
  );
}

/** One answer read off the wire. */
export interface Frame {
  status: number;
  body: Buffer;
}

/** The stream cannot be read any further; the connection must be dropped. */
export class FramingError extends Error {
  override name = 'FramingError';
}

/** A header block larger than this is not an agent's. */
const maxHeaderBytes = 8192;
const headerEnd = Buffer.from('\r\n\r\n');
const statusLine = /^HTTP\/1\.[01] ([1-5][0-9]{2})(?: [\x20-\x7e]*)?$/;
const headerLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/**
 * Incremental parser of agent answers: feed it whatever each TCP read returned and it hands
 * back every complete answer, however the bytes were split or coalesced. Unlike the
 * reference, bytes after an answer are kept (a 103 event in the same read is not lost).
 */
export class AnswerParser {
  /** Bytes of a header block not yet complete. */
  private head: Buffer = Buffer.alloc(0);
  /**
   * The answer whose body is being read, into a buffer of its declared length made when its
   * header arrives: bytes are copied in as they come (no list of reads kept, no concatenation
   * of them all at the end), and a large body owns its memory, which can move to another
   * thread without a copy. Pages of the buffer are taken only as bytes fill them.
   */
  private current?: { status: number; body: Buffer; have: number };

  constructor(private readonly maxAnswerBytes: number) {}

  /** True when no answer is half-read (a close now loses nothing). */
  get idle(): boolean {
    return this.current === undefined && this.head.length === 0;
  }

  /** Bytes held for answers not yet complete: nothing once the last answer is read, however large it was. */
  get bufferedBytes(): number {
    return this.head.length + (this.current?.have ?? 0);
  }

  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let rest = chunk;
    while (rest.length > 0) {
      if (this.current) {
        const { body, have } = this.current;
        const take = Math.min(rest.length, body.length - have);
        rest.copy(body, have, 0, take);
        this.current.have += take;
        rest = rest.subarray(take);
        if (this.current.have === body.length) frames.push(this.finish());
        continue;
      }
      const buffered = this.head.length === 0 ? rest : Buffer.concat([this.head, rest]);
      // Search from just before the new bytes: the terminator may straddle two reads.
      const end = buffered.indexOf(headerEnd, Math.max(0, this.head.length - 3));
      if (end < 0) {
        if (buffered.length > maxHeaderBytes) throw new FramingError(`answer header exceeds ${maxHeaderBytes} bytes`);
        this.head = Buffer.from(buffered);
        return frames;
      }
      if (end > maxHeaderBytes) throw new FramingError(`answer header exceeds ${maxHeaderBytes} bytes`);
      const { status, length } = this.parseHead(buffered.subarray(0, end).toString('latin1'));
      this.head = Buffer.alloc(0);
      rest = buffered.subarray(end + headerEnd.length);
      // Buffer.allocUnsafe gives bodies of 4 KiB and more a memory block of their own.
      this.current = { status, body: Buffer.allocUnsafe(length), have: 0 };
      if (length === 0) frames.push(this.finish());
    }
    return frames;
  }

  private finish(): Frame {
    const { status, body } = this.current!;
    this.current = undefined;
    return { status, body };
  }

  private parseHead(text: string): { status: number; length: number } {
    const lines = text.split('\r\n');
    const first = statusLine.exec(lines[0]!);
    if (!first) throw new FramingError(`not an HTTP/1.0 status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`);
    let length: number | undefined;
    for (const line of lines.slice(1)) {
      const header = headerLine.exec(line);
      if (!header) throw new FramingError(`malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
      if (header[1]!.toLowerCase() !== 'content-length') continue;
      if (!/^[0-9]{1,15}$/.test(header[2]!)) throw new FramingError(`bad Content-Length: ${JSON.stringify(header[2]!.slice(0, 40))}`);
      const value = Number(header[2]);
      if (length !== undefined && length !== value) throw new FramingError('conflicting Content-Length headers');
      length = value;
    }
    // The reference takes a missing Content-Length as 0.
    length ??= 0;
    if (length > this.maxAnswerBytes)
      throw new FramingError(`answer of ${length} bytes exceeds agents.max_answer_bytes (${this.maxAnswerBytes})`);
    return { status: Number(first[1]), length };
  }
}

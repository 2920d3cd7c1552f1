import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createGunzip, createGzip, type Gzip } from 'node:zlib';

/**
 * The backup file: gzip around JSON lines. The first line is the header (what wrote it, the
 * engine, the plugins and their schema versions); then parts, each a `{"part": ...}` line
 * followed by its body lines (a table's rows as arrays, a file's bytes as base64 strings);
 * the last line is the manifest: every part with its row or byte count and the sha256 of its
 * body lines, and the sha256 of every byte before it. A file without that last line, or
 * whose bytes do not match it, is refused before anything is written.
 */
export const formatName = 'ogserve-backup';
export const formatVersion = 1;

export interface Header {
  format: typeof formatName;
  version: number;
  ogserve: string;
  engine: string;
  created: string;
  /** Schema version recorded in the database for each enabled plugin, in load order. */
  plugins: Record<string, number>;
}

export type PartHeader =
  | { part: 'table'; name: string; plugin: string; columns: string[] }
  | { part: 'file'; name: string; area: string; mode: number }
  | { part: 'api-token'; name: 'api-token' }
  | { part: 'config'; name: 'config'; file: string };

export interface PartSummary {
  part: PartHeader['part'];
  name: string;
  /** Rows of a table, bytes of a file. */
  count: number;
  sha256: string;
}

export interface Manifest extends Header {
  parts: PartSummary[];
}

/** A file refused for what it is (damaged, foreign, from another release): one line says why. */
export class BackupRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupRefused';
  }
}

/** Writes a backup as it is read: lines go through gzip to the file, with backpressure. */
export class BackupWriter {
  private readonly gzip: Gzip;
  private readonly out: WriteStream;
  private readonly whole = createHash('sha256');
  private part?: { header: PartHeader; hash: Hash; count: number };
  readonly parts: PartSummary[] = [];
  private readonly closed: Promise<void>;

  constructor(file: string) {
    this.gzip = createGzip({ level: 6 });
    this.out = createWriteStream(file, { mode: 0o600 });
    this.gzip.pipe(this.out);
    this.closed = new Promise((resolve, reject) => {
      this.out.on('close', resolve);
      this.out.on('error', reject);
      this.gzip.on('error', reject);
    });
  }

  private async line(text: string): Promise<Buffer> {
    const bytes = Buffer.from(`${text}\n`, 'utf8');
    this.whole.update(bytes);
    if (!this.gzip.write(bytes)) await once(this.gzip, 'drain');
    return bytes;
  }

  header(header: Header): Promise<Buffer> {
    return this.line(JSON.stringify(header));
  }

  async begin(header: PartHeader): Promise<void> {
    this.end();
    await this.line(JSON.stringify(header));
    this.part = { header, hash: createHash('sha256'), count: 0 };
  }

  /** Rows of the current table part: a page goes out as one write. */
  async rows(rows: unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    let text = '';
    for (const values of rows) text += `${JSON.stringify(values)}\n`;
    const bytes = Buffer.from(text, 'utf8');
    this.whole.update(bytes);
    this.part!.hash.update(bytes);
    this.part!.count += rows.length;
    if (!this.gzip.write(bytes)) await once(this.gzip, 'drain');
  }

  /** Some bytes of the current file part. */
  async bytes(chunk: Buffer): Promise<void> {
    const bytes = await this.line(JSON.stringify(chunk.toString('base64')));
    this.part!.hash.update(bytes);
    this.part!.count += chunk.length;
  }

  private end(): void {
    if (!this.part) return;
    const { header, hash, count } = this.part;
    this.parts.push({ part: header.part, name: header.name, count, sha256: hash.digest('hex') });
    this.part = undefined;
  }

  /** The manifest, then the file closed and flushed to disk. */
  async finish(header: Header): Promise<Manifest> {
    this.end();
    const manifest: Manifest = { ...header, parts: this.parts };
    const sha256 = this.whole.digest('hex');
    const bytes = Buffer.from(`${JSON.stringify({ manifest, sha256 })}\n`, 'utf8');
    this.gzip.end(bytes);
    await this.closed;
    return manifest;
  }

  /** Stop writing (a failed backup); the caller removes the file. */
  async abort(): Promise<void> {
    this.gzip.destroy();
    this.out.destroy();
    await this.closed.catch(() => undefined);
  }
}

const maxLine = 16 * 2 ** 20;

/** The decompressed lines of a backup file, each with its bytes; damage in the gzip layer is one BackupRefused. */
async function* lines(file: string): AsyncGenerator<{ text: string; bytes: Buffer }> {
  const input = createReadStream(file);
  const head = await new Promise<Buffer>((resolve, reject) => {
    input.once('readable', () => {
      const first = input.read(2) as Buffer | null;
      if (first) input.unshift(first);
      resolve(first ?? Buffer.alloc(0));
    });
    input.once('error', reject);
  });
  if (head.length < 2 || head[0] !== 0x1f || head[1] !== 0x8b) {
    input.destroy();
    throw new BackupRefused(`${file} is not an ogserve backup (not a gzip file)`);
  }
  const gunzip = createGunzip();
  input.pipe(gunzip);
  input.on('error', (error) => gunzip.destroy(error));
  let pending: Buffer[] = [];
  let pendingLength = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      let start = 0;
      for (let i = chunk.indexOf(10, start); i !== -1; i = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, i + 1);
        const bytes = pending.length ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingLength = 0;
        start = i + 1;
        yield { text: bytes.toString('utf8', 0, bytes.length - 1), bytes };
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingLength += chunk.length - start;
        if (pendingLength > maxLine) throw new BackupRefused(`${file} is not an ogserve backup (a line longer than 16 MiB)`);
      }
    }
  } catch (error) {
    if (error instanceof BackupRefused) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR' || /unexpected end of file/i.test((error as Error).message))
      throw new BackupRefused(`${file} is damaged: it ends before its manifest (truncated)`);
    if (typeof code === 'string' && code.startsWith('Z_'))
      throw new BackupRefused(`${file} is damaged: its compressed data does not check (${(error as Error).message})`);
    throw error;
  } finally {
    input.destroy();
  }
  if (pendingLength > 0) throw new BackupRefused(`${file} is damaged: it ends before its manifest (truncated)`);
}

export type Item = { kind: 'part'; header: PartHeader } | { kind: 'row'; values: unknown[] } | { kind: 'bytes'; chunk: Buffer };

function parse(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BackupRefused(`${file} is damaged: a line is not JSON`);
  }
}

/**
 * Read a backup from its header to its manifest, checking as it goes: the header names the
 * format, every part's body matches its sha256 and count in the manifest, and the manifest's
 * sha256 matches every byte before it. `onItem` sees each part, row and file chunk (a check
 * alone passes none); nothing is trusted until this resolves.
 */
export async function readBackup(
  file: string,
  onHeader: (header: Header) => void,
  onItem?: (item: Item) => Promise<void> | void,
  onPart?: (header: PartHeader) => void,
): Promise<Manifest> {
  const whole = createHash('sha256');
  let header: Header | undefined;
  let manifest: { manifest: Manifest; sha256: string } | undefined;
  const seen: PartSummary[] = [];
  let current: { header: PartHeader; hash: Hash; count: number } | undefined;
  const close = () => {
    if (!current) return;
    seen.push({ part: current.header.part, name: current.header.name, count: current.count, sha256: current.hash.digest('hex') });
    current = undefined;
  };
  for await (const { text, bytes } of lines(file)) {
    if (manifest) throw new BackupRefused(`${file} is damaged: it goes on after its manifest`);
    if (!header) {
      const first = parse(file, text) as Partial<Header> | null;
      if (first?.format !== formatName) throw new BackupRefused(`${file} is not an ogserve backup (its first line is not a backup header)`);
      if (first.version !== formatVersion)
        throw new BackupRefused(
          `${file} is an ogserve backup of format version ${first.version}; this ogserve reads version ${formatVersion}`,
        );
      header = first as Header;
      whole.update(bytes);
      onHeader(header);
      continue;
    }
    const c = text.charCodeAt(0);
    if (c === 0x5b /* [ */ || c === 0x22 /* " */) {
      if (!current) throw new BackupRefused(`${file} is damaged: data outside a part`);
      whole.update(bytes);
      current.hash.update(bytes);
      if (c === 0x5b) {
        if (current.header.part !== 'table') throw new BackupRefused(`${file} is damaged: a row inside a file part`);
        current.count++;
        if (onItem) await onItem({ kind: 'row', values: parse(file, text) as unknown[] });
      } else {
        if (current.header.part === 'table') throw new BackupRefused(`${file} is damaged: file bytes inside a table part`);
        const chunk = Buffer.from(parse(file, text) as string, 'base64');
        current.count += chunk.length;
        if (onItem) await onItem({ kind: 'bytes', chunk });
      }
      continue;
    }
    const control = parse(file, text) as { part?: string; manifest?: Manifest; sha256?: string };
    if (control.manifest) {
      close();
      manifest = control as { manifest: Manifest; sha256: string };
      continue;
    }
    if (typeof control.part !== 'string') throw new BackupRefused(`${file} is damaged: a line it cannot place`);
    close();
    whole.update(bytes);
    current = { header: control as PartHeader, hash: createHash('sha256'), count: 0 };
    onPart?.(current.header);
    if (onItem) await onItem({ kind: 'part', header: current.header });
  }
  if (!header) throw new BackupRefused(`${file} is not an ogserve backup (it is empty)`);
  if (!manifest) throw new BackupRefused(`${file} is damaged: it ends before its manifest (truncated)`);
  const listed = manifest.manifest.parts;
  if (listed.length !== seen.length)
    throw new BackupRefused(`${file} is damaged: its manifest lists ${listed.length} parts, it holds ${seen.length}`);
  for (const [i, part] of seen.entries()) {
    const want = listed[i]!;
    if (want.name !== part.name || want.part !== part.part)
      throw new BackupRefused(`${file} is damaged: part ${part.name} is not where its manifest says`);
    if (want.sha256 !== part.sha256 || want.count !== part.count)
      throw new BackupRefused(`${file} is damaged: the checksum of ${part.part} ${part.name} does not match its manifest`);
  }
  if (manifest.sha256 !== whole.digest('hex')) throw new BackupRefused(`${file} is damaged: its checksum does not match its contents`);
  return manifest.manifest;
}

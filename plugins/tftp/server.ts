import dgram from 'node:dgram';
import type { Logger } from 'ogserve';
import { Op, TftpError, errorPacket, parseRequest, type Request } from './packets';
import { requestPath } from './paths';
import type { Source } from './sources';
import { type Agreed, type Ended, Transfer } from './transfer';

/** What the server needs of its config section. */
export interface ServerSettings {
  max_transfers: number;
  timeout_ms: number;
  retries: number;
  max_blksize: number;
  max_windowsize: number;
}

/** A file a request names, ready to be sent; or why it is not sent. */
export type Lookup =
  | { name: string; size: number; open(): Promise<Source> }
  | { refused: 'not_found' | 'access' | 'damaged'; message: string };

/** Why a request was not answered with a file. */
export type Refusal = 'not_found' | 'access' | 'damaged' | 'busy' | 'rate' | 'not_allowed' | 'write' | 'bad_request';

/** A transfer once it ended, for the timeline and the metrics. */
export interface TransferEnd extends Ended {
  /** The path asked for, and the one served in its place (they differ for a substituted loader). */
  asked: string;
  served: string;
  address: string;
  size: number;
}

export interface ServerHooks {
  /** May `address` be served at all (the allow list), and is it under its rate (0, else seconds to wait). */
  allowed(address: string): boolean;
  overRate(address: string): boolean;
  lookup(file: string, address: string): Promise<Lookup>;
  refused(reason: Refusal, address: string, file?: string): void;
  started(): void;
  ended(end: TransferEnd): void;
}

/** netascii is for text: configuration files, never a kernel. */
const maxNetasciiBytes = 1 << 20;

/**
 * The TFTP server: RRQs on the listening socket, each transfer on a socket of its own.
 * Read only; at most `max_transfers` at once (a request beyond, or over its address's rate,
 * is dropped unanswered: PXE clients send their request again after a few seconds, and a
 * flood gets nothing back to amplify); one transfer per client port at a time (a request the
 * client sent again while the first was starting is not a second transfer).
 */
export class TftpServer {
  readonly socket = dgram.createSocket({ type: 'udp4' });
  private readonly transfers = new Map<string, Transfer | null>();
  private bindAddress = '0.0.0.0';

  constructor(
    private readonly settings: ServerSettings,
    private readonly hooks: ServerHooks,
    private readonly log: Logger,
  ) {
    this.socket.on('message', (packet, from) => void this.request(packet, from));
    this.socket.on('error', (error) => this.log.warn({ err: error }, `TFTP socket error: ${error.message}`));
  }

  /** Transfers under way (the metric). */
  get active(): number {
    return this.transfers.size;
  }

  /** Transfers answer from the address the server listens on (the route's when that is every address). */
  listening(address: string): void {
    this.bindAddress = address;
  }

  close(): void {
    for (const transfer of this.transfers.values()) transfer?.abort();
    this.transfers.clear();
    this.socket.close();
  }

  private async request(packet: Buffer, from: dgram.RemoteInfo): Promise<void> {
    if (packet.length < 4) return;
    const op = packet.readUInt16BE(0);
    // Only requests come to this port: a stray ACK or DATA gets nothing (nothing to reflect).
    if (op !== Op.rrq && op !== Op.wrq) return;
    const { address, port } = from;
    const peer = `${address}:${port}`;
    if (this.transfers.has(peer)) return;
    if (!this.hooks.allowed(address)) return this.hooks.refused('not_allowed', address);
    if (this.hooks.overRate(address)) return this.hooks.refused('rate', address);
    if (this.transfers.size >= this.settings.max_transfers) return this.hooks.refused('busy', address);
    const request = parseRequest(packet);
    if (typeof request === 'string') return this.refuse(from, 'bad_request', TftpError.illegalOperation, `Malformed request: ${request}`);
    if (request.op === Op.wrq) return this.refuse(from, 'write', TftpError.accessViolation, 'This server is read-only', request.file);
    if (request.mode !== 'octet' && request.mode !== 'netascii')
      return this.refuse(from, 'bad_request', TftpError.illegalOperation, `Mode '${request.mode}' is not served`, request.file);
    const file = requestPath(request.file);
    if (file === undefined) return this.refuse(from, 'access', TftpError.accessViolation, 'Access violation', request.file);
    // Held while the file is looked up: the limit counts it, a repeated request is ignored.
    this.transfers.set(peer, null);
    try {
      await this.start(request, file, from, peer);
    } catch (error) {
      this.transfers.delete(peer);
      this.log.warn({ err: error, file, client: address }, `TFTP transfer not started: ${(error as Error).message}`);
      this.socket.send(errorPacket(TftpError.undefined, 'Server error'), port, address);
    }
  }

  private async start(request: Request, file: string, from: dgram.RemoteInfo, peer: string): Promise<void> {
    const { address, port } = from;
    const found = await this.hooks.lookup(file, address);
    if ('refused' in found) {
      this.transfers.delete(peer);
      const code = found.refused === 'not_found' ? TftpError.notFound : TftpError.accessViolation;
      return this.refuse(from, found.refused, code, found.message, file);
    }
    let source = await found.open();
    if (request.mode === 'netascii') source = await netascii(source);
    const agreed = this.agree(request, source.size);
    const socket = dgram.createSocket({ type: 'udp4' });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: this.bindAddress, port: 0 }, () => {
        socket.off('error', reject);
        resolve();
      });
    }).catch((error: Error) => {
      source.release();
      socket.close();
      throw error;
    });
    this.hooks.started();
    const transfer = new Transfer(socket, { address, port }, source, agreed, this.settings.retries, (ended) => {
      this.transfers.delete(peer);
      this.hooks.ended({ ...ended, asked: file, served: found.name, address, size: source.size });
    });
    if (this.transfers.has(peer)) this.transfers.set(peer, transfer);
    else transfer.abort(); // the server closed meanwhile
  }

  private refuse(from: dgram.RemoteInfo, reason: Refusal, code: number, message: string, file?: string): void {
    this.hooks.refused(reason, from.address, file);
    this.socket.send(errorPacket(code, message), from.port, from.address);
  }

  /**
   * The options taken from a request (RFC 2347): blksize (8-65464, at most `max_blksize`),
   * tsize (the file's size), timeout (1-255 s) and windowsize (1-65535, at most
   * `max_windowsize`); others, and values out of range, are left out of the OACK.
   */
  private agree(request: Request, size: number): Agreed {
    const { options } = request;
    const agreed: Agreed = { blksize: 512, windowsize: 1, timeoutMs: this.settings.timeout_ms, oack: new Map() };
    const number = (name: string, min: number, max: number): number | undefined => {
      const text = options.get(name);
      if (text === undefined || !/^[0-9]{1,6}$/.test(text)) return undefined;
      const value = Number(text);
      return value >= min && value <= max ? value : undefined;
    };
    const blksize = number('blksize', 8, 65464);
    if (blksize !== undefined) {
      agreed.blksize = Math.min(blksize, this.settings.max_blksize);
      agreed.oack.set('blksize', String(agreed.blksize));
    }
    if (options.has('tsize') && request.mode === 'octet') agreed.oack.set('tsize', String(size));
    const timeout = number('timeout', 1, 255);
    if (timeout !== undefined) {
      agreed.timeoutMs = timeout * 1000;
      agreed.oack.set('timeout', String(timeout));
    }
    const windowsize = number('windowsize', 1, 65535);
    if (windowsize !== undefined) {
      agreed.windowsize = Math.min(windowsize, this.settings.max_windowsize);
      agreed.oack.set('windowsize', String(agreed.windowsize));
    }
    return agreed;
  }
}

/** A text file as netascii sends it: each LF as CR LF, each lone CR as CR NUL. */
async function netascii(source: Source): Promise<Source> {
  if (source.size > maxNetasciiBytes) {
    source.release();
    throw Object.assign(new Error(`netascii is served for files up to ${maxNetasciiBytes} bytes: ask in octet mode`), { tftp: true });
  }
  const raw = await source.read(0, source.size);
  source.release();
  const out: number[] = [];
  for (const byte of raw) {
    if (byte === 0x0a) out.push(0x0d, 0x0a);
    else if (byte === 0x0d) out.push(0x0d, 0x00);
    else out.push(byte);
  }
  const bytes = Buffer.from(out);
  return { size: bytes.length, read: (offset, length) => bytes.subarray(offset, offset + length), release: () => undefined };
}

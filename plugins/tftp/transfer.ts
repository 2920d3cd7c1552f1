import type dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { TftpError, dataHead, errorPacket, oackPacket, parseReply } from './packets';
import type { Source } from './sources';

/** What a transfer was agreed to be: the options of its OACK (none: RFC 1350's 512-byte blocks). */
export interface Agreed {
  blksize: number;
  windowsize: number;
  timeoutMs: number;
  /** The options taken, as the OACK names them; empty when the request had none we take. */
  oack: Map<string, string>;
}

/** How a transfer ended. */
export type Outcome = 'done' | 'timed_out' | 'cut_short' | 'failed';

export interface Ended {
  outcome: Outcome;
  /** Data bytes the PC acknowledged (its whole file when done). */
  bytes: number;
  /** Data blocks sent again after a time-out or an acknowledgement that asked for them. */
  retransmits: number;
  ms: number;
  /** The PC's error message when it stopped the transfer itself. */
  message?: string;
}

/**
 * One read transfer on its own socket (its own TID, RFC 1350): the OACK when options were
 * taken, then windows of `windowsize` blocks (RFC 7440), each acknowledged by its last block;
 * an acknowledgement of an earlier block sends again from the block after it. With nothing
 * heard for `timeoutMs`, the unacknowledged part is sent again, up to `retries` times; then the
 * transfer ends `timed_out`. Duplicate acknowledgements are ignored (RFC 1123's Sorcerer's
 * Apprentice), packets from another address or port answered with ERROR 5.
 */
export class Transfer {
  private readonly lastBlock: number;
  /** The highest block the PC acknowledged (0: none, or the OACK). */
  private acked = 0;
  /** The highest block sent so far. */
  private sent = 0;
  private tries = 0;
  private retransmits = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly started = performance.now();
  private finished = false;
  /** A window being sent from a source that reads asynchronously. */
  private sending = false;
  private resend = false;
  /** An OACK was sent and the PC has not acknowledged it (block 0) yet. */
  private oackPending: boolean;

  constructor(
    private readonly socket: dgram.Socket,
    private readonly peer: { address: string; port: number },
    private readonly source: Source,
    private readonly agreed: Agreed,
    private readonly retries: number,
    private readonly ended: (ended: Ended) => void,
  ) {
    this.lastBlock = Math.floor(source.size / agreed.blksize) + 1;
    this.oackPending = agreed.oack.size > 0;
    this.timer = setTimeout(() => this.timedOut(), agreed.timeoutMs);
    socket.on('message', (packet, from) => this.heard(packet, from));
    socket.on('error', () => this.finish('failed'));
    if (this.oackPending) this.send(oackPacket(agreed.oack));
    else this.sendWindow();
  }

  /** Stop now (the plugin stops): the PC hears nothing more. */
  abort(): void {
    this.finish('failed');
  }

  private heard(packet: Buffer, from: dgram.RemoteInfo): void {
    if (this.finished) return;
    if (from.port !== this.peer.port || from.address !== this.peer.address) {
      this.socket.send(errorPacket(TftpError.unknownTid, 'Unknown transfer ID'), from.port, from.address);
      return;
    }
    const reply = parseReply(packet);
    if ('error' in reply) {
      this.finish('cut_short', reply.message);
      return;
    }
    if (!('ack' in reply)) {
      this.send(errorPacket(TftpError.illegalOperation, 'Illegal TFTP operation'));
      this.finish('failed');
      return;
    }
    if (this.oackPending) {
      if (reply.ack !== 0) return;
      this.oackPending = false;
      this.tries = 0;
      this.sendWindow();
      return;
    }
    // The block numbers wrap at 65536: the acknowledged block is the one nearest above what was acknowledged.
    const ahead = (reply.ack - this.acked) & 0xffff;
    const block = this.acked + ahead;
    if (ahead === 0 || block > this.sent) return; // a duplicate, or a block never sent
    this.acked = block;
    this.tries = 0;
    if (block === this.lastBlock) {
      this.finish('done');
      return;
    }
    if (block < this.sent) this.retransmits += this.sent - block;
    this.sendWindow();
  }

  private timedOut(): void {
    if (this.finished) return;
    if (++this.tries > this.retries) {
      this.finish('timed_out');
      return;
    }
    if (this.oackPending) {
      this.send(oackPacket(this.agreed.oack));
      this.timer.refresh();
      return;
    }
    this.retransmits += this.sent - this.acked;
    this.sendWindow();
  }

  /** Send the blocks after the last acknowledged one, a window of them. */
  private sendWindow(): void {
    this.timer.refresh();
    if (this.sending) {
      this.resend = true;
      return;
    }
    const last = Math.min(this.acked + this.agreed.windowsize, this.lastBlock);
    const { blksize } = this.agreed;
    for (let block = this.acked + 1; block <= last; block++) {
      const payload = this.source.read((block - 1) * blksize, blksize);
      if (!Buffer.isBuffer(payload)) return void this.sendAsync(block, last, payload);
      this.send(dataHead(block), payload);
      if (block > this.sent) this.sent = block;
    }
  }

  /** The rest of a window whose blocks are read from disk. */
  private async sendAsync(from: number, last: number, first: Promise<Buffer>): Promise<void> {
    this.sending = true;
    try {
      let payload = await first;
      for (let block = from; block <= last && !this.finished; block++) {
        if (block > from) payload = await this.source.read((block - 1) * this.agreed.blksize, this.agreed.blksize);
        this.send(dataHead(block), payload);
        if (block > this.sent) this.sent = block;
      }
    } catch {
      this.send(errorPacket(TftpError.undefined, 'Read error'));
      return this.finish('failed');
    } finally {
      this.sending = false;
    }
    if (this.resend && !this.finished) {
      this.resend = false;
      this.sendWindow();
    }
  }

  private send(head: Buffer, payload?: Buffer): void {
    if (this.finished) return;
    this.socket.send(payload ? [head, payload] : head, this.peer.port, this.peer.address);
  }

  private finish(outcome: Outcome, message?: string): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    this.source.release();
    this.socket.close();
    const bytes = Math.min(this.acked * this.agreed.blksize, this.source.size);
    this.ended({ outcome, bytes, retransmits: this.retransmits, ms: Math.round(performance.now() - this.started), message });
  }
}

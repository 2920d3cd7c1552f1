import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { forgetSender, recordSender } from './leftovers';
import { LineSplitter, type StampedFact, readLine } from './sender-log';

/** What a session's sender is started with (udp-sender's options, each from the config or the session). */
export interface SenderOptions {
  /** The program: `udp-sender`, or a path (a site's wrapper). */
  program: string;
  /** The image file, inside the repository directory. */
  file: string;
  port: number;
  /** The address of the room's network the stream leaves from (udp-sender's --interface takes an address). */
  address: string;
  minReceivers: number;
  maxWaitS: number;
  retriesUntilDrop: number;
  /** udp-sender's notation ('600m'); '' for no limit. */
  maxBitrate: string;
}

/** How a sender ended: its exit code or signal, and the first line it wrote that was no fact (an error it printed). */
export interface SenderExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  lastWords: string;
}

/** udp-sender's arguments: it reads no keyboard; without --log it says everything on stderr, which ogserve reads. */
export function senderArgs(o: SenderOptions): string[] {
  const args = ['--file', o.file, '--portbase', String(o.port), '--interface', o.address, '--min-receivers', String(o.minReceivers)];
  // --max-wait counts from the first receiver; --start-timeout ends a session nobody joins.
  args.push('--max-wait', String(o.maxWaitS), '--start-timeout', String(o.maxWaitS), '--retries-until-drop', String(o.retriesUntilDrop));
  if (o.maxBitrate) args.push('--max-bitrate', o.maxBitrate);
  return [...args, '--nokbd'];
}

/** How long a sender asked to stop may take before it is killed. */
const stopGraceMs = 3000;

/**
 * One udp-sender, supervised: started with its session's options, each line it writes read
 * as it comes and told as a fact, copied to the session's log file (each line with the time
 * ogserve read it), and recorded (pid and
 * start time) under the plugin's directory until it exits, so that a start after a killed
 * ogserve finds and ends it. udp-sender blocks SIGTERM while it sends (it would finish the
 * image first), so stop() sends SIGINT, then SIGKILL.
 */
export class SenderProcess {
  readonly exited: Promise<SenderExit>;
  private readonly child: ChildProcess;
  private readonly log: WriteStream;
  private lastWords = '';

  constructor(options: SenderOptions, record: { dir: string; session: number }, onFact: (fact: StampedFact) => void) {
    mkdirSync(record.dir, { recursive: true });
    this.log = createWriteStream(path.join(record.dir, `session-${record.session}.log`), { flags: 'a' });
    this.child = spawn(options.program, senderArgs(options), { stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = this.child.pid;
    if (pid !== undefined) recordSender(record.dir, { session: record.session, pid, port: options.port });
    const lines = new LineSplitter((text) => {
      this.log.write(`${new Date().toISOString()} ${text}\n`);
      const fact = readLine(text);
      // An error comes first, details after (the interfaces it found instead).
      if (fact?.kind === 'other' && !this.lastWords) this.lastWords = fact.text;
      if (fact) onFact(fact);
    });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => lines.push(chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => lines.push(chunk));
    this.exited = new Promise((resolve) => {
      let spawnError = '';
      this.child.once('error', (error) => (spawnError = `${options.program}: ${error.message}`));
      // 'close': the pipes are read to their end, so every line came before the exit is told.
      this.child.once('close', (code, signal) => {
        lines.end();
        if (pid !== undefined) forgetSender(record.dir, record.session);
        this.log.end();
        resolve({ code, signal, lastWords: spawnError || this.lastWords });
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ask it to stop, kill it if it does not; resolves once it is gone. */
  async stop(): Promise<SenderExit> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGINT');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), stopGraceMs);
      timer.unref();
      const exit = await this.exited;
      clearTimeout(timer);
      return exit;
    }
    return this.exited;
  }
}

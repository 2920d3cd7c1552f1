import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const mainScript = path.resolve(__dirname, '..', '..', 'cli', 'main.js');

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `ogserve <args>` as a real child process, to its end. */
export function ogserve(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [mainScript, ...args],
      { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    // What the command reads on its standard input (a password piped in); nothing otherwise.
    child.stdin?.end(input ?? '');
  });
}

export interface ChildRun {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolve with the first stdout line matching `pattern`; reject on timeout or exit. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGKILL, and wait until the process is gone. */
  kill(): Promise<void>;
  /** Resolves with the exit code when the process is gone (null after a signal). */
  exited: Promise<number | null>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Extra node flags, e.g. --max-semi-space-size. */
  nodeArgs?: string[];
  /** Run under `ulimit -n` this value. */
  descriptorLimit?: number;
}

/** Run a node script as a real child process, watching its stdout line by line. */
export function runNode(script: string, args: string[], options: RunOptions = {}): ChildRun {
  const argv = [...(options.nodeArgs ?? []), script, ...args];
  const spawnOptions = { stdio: ['ignore', 'pipe', 'pipe'] as ('ignore' | 'pipe')[], env: options.env, cwd: options.cwd };
  // exec keeps the pid: the limits, RSS and signals are the script's, not bash's.
  const quoted = [process.execPath, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = options.descriptorLimit
    ? spawn('bash', ['-c', `ulimit -n ${options.descriptorLimit} && exec ${quoted}`], spawnOptions)
    : spawn(process.execPath, argv, spawnOptions);
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  let stderr = '';
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        const m = line.match(w.pattern);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    waitFor(pattern, timeoutMs = 30_000) {
      const seen = lines.map((l) => l.match(pattern)).find((m) => m);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; stderr: ${stderr}`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`the process exited before printing ${pattern}; stderr: ${stderr}`));
        });
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const mainScript = path.resolve(__dirname, '..', '..', 'cli', 'main.js');

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `ogserve <args>` as a real child process, to its end. */
export function ogserve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CommandRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [mainScript, ...args],
      { env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
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
}

/** Run a node script as a real child process, watching its stdout line by line. */
export function runNode(script: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildRun {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: options.env, cwd: options.cwd });
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
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    lines,
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

/** The real service, `node dist/cli/main.js --config FILE`, up and listening. */
export async function spawnServer(configFile: string): Promise<ChildRun & { port: number }> {
  const run = runNode(mainScript, ['--config', configFile]);
  try {
    const m = await run.waitFor(/REST interface listening on [0-9.]+:(\d+)/);
    return Object.assign(run, { port: Number(m[1]) });
  } catch (error) {
    await run.kill();
    throw error;
  }
}

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { lockSqliteFile } from '../../core/sqlite-lock';
import { eventually } from '../support/fake-agent';

/**
 * `npm start` is how a checkout runs the service, and a stop sent to the npm process (SIGTERM,
 * as `kill` or a supervisor sends it) must stop the service: npm runs the script through
 * `sh -c`, and a shell that stays the service's parent lets the signal die with it.
 */

const root = path.resolve(__dirname, '../../..');

/** The pids of `pid`'s descendants, from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone while listed.
    }
  }
  const found: number[] = [];
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

/** Whether `pid` still runs (a zombie waiting for its parent to reap it does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

test('SIGTERM to `npm start` stops the service: nothing of it left running, both ports free, the SQLite lock released', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-npm-start-'));
  const state = path.join(dir, 'state');
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ rest: { ip: '127.0.0.1', port: 0 }, agents: { ip: '127.0.0.1', port: 0 } }));
  // --ignore-scripts: not prestart's build, which could compile in the checkout while other tests run from it.
  const npm = spawn('npm', ['start', '--ignore-scripts', '--', '--config', config], {
    cwd: root,
    env: { ...process.env, OGSERVE_STATE_DIR: state },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  npm.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const npmExited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  let started: number[] = [];
  try {
    const [rest, agents] = (await eventually(
      () => {
        const rest = /REST interface listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
        const agents = /agent interface listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
        return rest && agents ? [Number(rest), Number(agents)] : undefined;
      },
      'npm start listening',
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; it wrote:\n${out}`);
    }))!;
    assert.equal((await fetch(`http://127.0.0.1:${rest}/healthz`)).status, 200, 'it answers');
    started = descendants(npm.pid!);
    assert.ok(started.length > 0, 'npm runs the service as its child');

    npm.kill('SIGTERM');
    await npmExited;
    await eventually(() => started.every((pid) => !running(pid)), `every process npm started to end (${started.join(', ')})`, 30_000);
    assert.ok(await portFree(rest), `the REST port ${rest} free`);
    assert.ok(await portFree(agents), `the agent port ${agents} free`);
    assert.ok(existsSync(path.join(state, 'ogserve.sqlite.lock')), 'the service took the lock');
    const lock = await lockSqliteFile(path.join(state, 'ogserve.sqlite'));
    await lock.release();
    assert.match(out, /SIGTERM received, shutting down/, 'the service itself was told to stop');
  } finally {
    npm.kill('SIGKILL');
    for (const pid of started.filter(running)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import type { App } from '../../core/app';
import { StartupError } from '../../core/errors';
import { freePort } from '../support/child-server';
import { deepMerge, makeTestDir, removeTestStore } from '../support/server';
import { testDatabaseSection } from '../support/test-db';
import { createApp } from '../../cli/config';

/**
 * A listener that cannot open (port taken, address not on this machine) stops the start
 * with one line naming the config key, the address and the port, after closing everything
 * opened before it. Ports are ones these tests hold themselves on 127.0.0.1; the foreign
 * address is TEST-NET-1 (192.0.2.1), which no machine here has: binding it fails at once
 * and sends nothing.
 */

const mainJs = path.resolve(__dirname, '../../cli/main.js');
const foreign = '192.0.2.1';

/** A TCP port held on 127.0.0.1 until `release`. */
async function occupiedPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    release: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function canListen(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

interface Attempt {
  app: App;
  error: unknown;
  logs: string[];
  dir: string;
  configFile: string;
}

/** Create the service on `config` and try to start it; the caller removes `dir`. */
async function attempt(config: Record<string, unknown>): Promise<Attempt> {
  const dir = makeTestDir();
  const configFile = path.join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify(
      deepMerge(
        {
          rest: { ip: '127.0.0.1', port: 0, api_token: 'k' },
          agents: { ip: '127.0.0.1', port: 0 },
          database: testDatabaseSection(dir),
          'pxe-modes': { bios_dir: path.join(dir, 'bios'), uefi_dir: path.join(dir, 'uefi') },
          live: { directory: path.join(dir, 'tftp') },
          repository: { directory: path.join(dir, 'images') },
        },
        config,
      ),
    ),
  );
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push((JSON.parse(line) as { msg: string }).msg);
      done();
    },
  });
  const app = await createApp({ configFile, logStream, env: {}, stateDir: dir });
  const error = await app.listen().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { app, error, logs, dir, configFile };
}

/** After a failed start: the database is closed, and a new service may open it (no lock left). */
async function assertClosed(a: Attempt): Promise<void> {
  assert.equal(await a.app.database.orm.isConnected(), false, 'the database connection is closed');
  const again = await createApp({
    configFile: a.configFile,
    env: {},
    stateDir: a.dir,
    logStream: new Writable({ write: (_c, _e, done) => done() }),
  });
  await again.close();
}

test('rest.port taken: one line naming the key, address and port; the agent listener and the database closed', async () => {
  const taken = await occupiedPort();
  const agentPort = await freePort();
  const a = await attempt({ rest: { port: taken.port }, agents: { port: agentPort } });
  try {
    assert.ok(a.error instanceof StartupError, `a startup error: ${a.error}`);
    assert.equal(
      (a.error as Error).message,
      `rest.port: cannot listen on 127.0.0.1:${taken.port}: the port is already in use by another process`,
    );
    assert.ok(
      a.logs.some((l) => l.startsWith(`agent interface listening on 127.0.0.1:${agentPort}, `)),
      'the agent listener had opened',
    );
    assert.equal(await canListen(agentPort), true, 'the agent port is free again');
    await assertClosed(a);
  } finally {
    await taken.release();
    await removeTestStore(a.dir);
  }
});

test('agents.port taken: the REST interface never opens, the database is closed', async () => {
  const taken = await occupiedPort();
  const a = await attempt({ agents: { port: taken.port } });
  try {
    assert.equal(
      (a.error as Error).message,
      `agents.port: cannot listen on 127.0.0.1:${taken.port}: the port is already in use by another process`,
    );
    assert.ok(!a.logs.some((l) => l.startsWith('REST interface listening')), 'no REST listener');
    assert.equal(a.app.restPort(), 0, 'no REST port');
    await assertClosed(a);
  } finally {
    await taken.release();
    await removeTestStore(a.dir);
  }
});

test('an address not on this machine names the ip key', async () => {
  const restPort = await freePort();
  const rest = await attempt({ rest: { ip: foreign, port: restPort } });
  try {
    assert.equal((rest.error as Error).message, `rest.ip: cannot listen on ${foreign}:${restPort}: the address is not one of this machine`);
    await assertClosed(rest);
  } finally {
    await removeTestStore(rest.dir);
  }
  const agentPort = await freePort();
  const agents = await attempt({ agents: { ip: foreign, port: agentPort } });
  try {
    assert.equal(
      (agents.error as Error).message,
      `agents.ip: cannot listen on ${foreign}:${agentPort}: the address is not one of this machine`,
    );
    await assertClosed(agents);
  } finally {
    await removeTestStore(agents.dir);
  }
});

test("a plugin's own listener (UDP here) gets the same treatment through ctx.listen", async () => {
  const holder = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => holder.bind(0, '127.0.0.1', resolve));
  const taken = holder.address().port;
  const agentPort = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-plugin-'));
  const plugin = path.join(dir, 'echo.js');
  writeFileSync(
    plugin,
    `const dgram = require('node:dgram');
module.exports = {
  name: 'udp-echo',
  register(ctx) {
    const socket = dgram.createSocket('udp4');
    ctx.onStart(() => ctx.listen(socket, { name: 'echo service', ip: '127.0.0.1', port: ${taken}, ipKey: 'udp-echo.ip', portKey: 'udp-echo.port' }));
    ctx.onStop(() => new Promise((resolve) => socket.close(() => resolve())).catch(() => undefined));
  },
};`,
  );
  const a = await attempt({ plugins: ['inventory', 'agents', plugin], agents: { port: agentPort } });
  try {
    assert.equal(
      (a.error as Error).message,
      `udp-echo.port: cannot listen on 127.0.0.1:${taken}: the port is already in use by another process`,
    );
    assert.equal(await canListen(agentPort), true, "the agents plugin's listener, opened before, is closed");
    await assertClosed(a);
  } finally {
    holder.close();
    await removeTestStore(a.dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the program exits 1 with that one line, no stack trace, and does not hang', async () => {
  const taken = await occupiedPort();
  const dir = makeTestDir();
  try {
    const configFile = path.join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        rest: { ip: '127.0.0.1', port: String(taken.port), api_token: 'k' },
        agents: { ip: '127.0.0.1', port: 0 },
        database: { type: 'sqlite', path: path.join(dir, 'db.sqlite') },
        plugins: ['inventory', 'agents'],
      }),
    );
    const run = spawnSync(process.execPath, [mainJs, '--config', configFile], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.signal, null, 'exited by itself within 20 s');
    assert.equal(run.status, 1, 'exit code');
    assert.equal(
      run.stderr,
      `ogserve: rest.port: cannot listen on 127.0.0.1:${taken.port}: the port is already in use by another process\n`,
      'one line',
    );
  } finally {
    await taken.release();
    await removeTestStore(dir);
  }
});

test.run();

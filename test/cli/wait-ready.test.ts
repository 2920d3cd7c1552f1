import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import { makeTestDir, startServer } from '../support/server';

const main = path.resolve(__dirname, '..', '..', 'cli', 'main.js');

function waitReady(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, 'wait-ready', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

test('wait-ready exits 0 once the service of the config answers GET /readyz', async () => {
  const s = await startServer();
  try {
    const config = path.join(s.dir, 'ready.json');
    writeFileSync(config, JSON.stringify({ rest: { ip: '127.0.0.1', port: s.port } }));
    const run = await waitReady(['--config', config, '--timeout', '10']);
    assert.equal(run.code, 0, run.stderr);
  } finally {
    await s.close();
  }
});

test('wait-ready gives up after --timeout with exit 1 and one line naming the address; a bad timeout is a usage error', async () => {
  // A port that nothing listens on: bound, then released.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const dir = makeTestDir();
  try {
    const config = path.join(dir, 'nothing.json');
    writeFileSync(config, JSON.stringify({ rest: { ip: '127.0.0.1', port } }));
    const run = await waitReady(['--config', config, '--timeout', '0.5']);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `ogserve: not ready at http://127.0.0.1:${port}/readyz after 0.5 s (no answer)\n`);
    const bad = await waitReady(['--config', config, '--timeout', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--timeout must be a number of seconds/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { refusedListen } from '../support/listen-guard';
import { connectSide, testEngine } from '../support/test-db';

const runner = path.resolve(__dirname, '..', 'support', 'run.js');
const fixtures = path.resolve(__dirname, '..', 'fixtures', 'suite');

function runSuite(
  dir = fixtures,
  pattern = 'failures\\.fixture\\.js$',
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; signal: string | null; output: string }> {
  // The fixture suite runs whole, whichever shard of CI's runs this test (its shard is not the fixtures').
  const { OGSERVE_TEST_SHARD: _shard, ...inherited } = process.env;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner, dir, pattern], {
      env: { ...inherited, FORCE_COLOR: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // A hang is what this test is about: kill it well after it should have ended.
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

test('the suite exits after failed listens and a server left open, names what was open, and drops the test database', async () => {
  const { code, signal, output } = await runSuite();
  assert.equal(signal, null, `the runner ended by itself, not killed after 120 s:\n${output}`);
  assert.equal(code, 1, `a failed run exits 1:\n${output}`);
  assert.match(output, /EADDRINUSE|already in use/, 'the taken port fails its test');
  assert.match(output, /may not listen on 0\.0\.0\.0:0: use 127\.0\.0\.1/, 'every-address listen refused');
  assert.match(output, /the last test ran/, 'the tests after the failures ran');
  assert.match(output, /Total:\s+4\s+Passed:\s+1/, `uvu's totals:\n${output}`);
  assert.match(output, /left resources open \(.*TCPServerWrap.*\)/, 'the open server is named');
  const leftOpen = /left open: (\S+)/.exec(output)?.[1];
  assert.ok(leftOpen, 'the fixture named its database');
  if (testEngine !== 'sqlite') {
    const side = await connectSide('', true);
    try {
      const rows =
        testEngine === 'postgresql'
          ? await side.query('select 1 from pg_database where datname = ?', [leftOpen])
          : await side.query('select 1 from information_schema.schemata where schema_name = ?', [leftOpen]);
      assert.equal(rows.length, 0, `the database ${leftOpen} of the failed test was dropped`);
    } finally {
      await side.close();
    }
  }
});

test('a run of the agent command tests alone ends with nothing left running', async () => {
  // One of them stops the service while an agent answer is still being stored: the store used
  // to reach the database after it closed, and its pool kept the process alive for 60 s.
  const { code, output } = await runSuite(path.resolve(__dirname, '..'), 'plugins/agents/commands\\.test\\.js$');
  assert.doesNotMatch(output, /left resources open/, output.slice(-2000));
  assert.equal(code, 0, output.slice(-2000));
});

test('an engine-independent file runs in the SQLite pass only, and each run names its slowest files', async () => {
  const pattern = 'engine-independent\\.fixture\\.js$';
  const onSqlite = await runSuite(fixtures, pattern, { OGSERVE_TEST_DB: 'sqlite' });
  assert.equal(onSqlite.code, 0, onSqlite.output);
  assert.match(onSqlite.output, /engine-independent fixture ran/, onSqlite.output);
  assert.match(onSqlite.output, /Slowest files \(\d+ s in all\):\n +\d+\.\d s {2}engine-independent\.fixture\.js/, onSqlite.output);
  const onServer = await runSuite(fixtures, pattern, { OGSERVE_TEST_DB: 'postgresql' });
  assert.equal(onServer.code, 0, onServer.output);
  assert.doesNotMatch(onServer.output, /fixture ran/, onServer.output);
  assert.match(onServer.output, /1 engine-independent file\(s\) left to the SQLite pass/, onServer.output);
});

test('the listen guard refuses the default ports and non-loopback addresses, and only those', () => {
  for (const [port, host] of [
    [8888, '127.0.0.1'],
    [8889, '127.0.0.1'],
    ['8889', '127.0.0.1'],
    [0, '0.0.0.0'],
    [0, undefined],
    [0, '::'],
  ] as const)
    assert.ok(refusedListen(port, host), `${host}:${port} refused`);
  for (const own of Object.values(os.networkInterfaces())
    .flat()
    .filter((i) => i && !i.internal))
    assert.ok(refusedListen(0, own!.address), `this machine's ${own!.address} refused`);
  for (const [port, host] of [
    [0, '127.0.0.1'],
    [40000, '127.0.0.2'],
    [0, '::1'],
    // Not an address of this machine (TEST-NET-1): the listen fails by itself.
    [0, '192.0.2.1'],
  ] as const)
    assert.equal(refusedListen(port, host), undefined, `${host}:${port} allowed`);
  assert.throws(() => net.createServer().listen(0), /may not listen on every address/, 'the guard is installed in this run');
});

test.run();

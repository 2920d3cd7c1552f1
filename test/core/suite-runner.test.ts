import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/** Neither CI nor the package test's leave: a developer's run, where what is missing is skipped. */
const developer = { CI: '', OGSERVE_TEST_PACKAGE: '' };

test('a file whose program is missing is skipped, saying what to install; under CI the run fails naming it', async () => {
  const pattern = 'needs-bsdtar\\.fixture\\.js$';
  // A PATH without bsdtar, and one with a program of that name (the check looks for it; the fixture never runs it).
  const bin = mkdtempSync(path.join(os.tmpdir(), 'ogserve-path-'));
  try {
    const without = await runSuite(fixtures, pattern, { ...developer, PATH: path.join(bin, 'none') });
    assert.equal(without.code, 0, without.output);
    assert.match(
      without.output,
      /^ {2}Not on this machine: bsdtar missing\. The files needing it are skipped; to run them: apt-get update && apt-get install -y libarchive-tools$/m,
      without.output,
    );
    assert.match(without.output, /^ {2}skipped needs-bsdtar\.fixture\.js: bsdtar missing$/m, without.output);
    assert.match(without.output, /1 file\(s\) not run, each named with why/, without.output);
    assert.doesNotMatch(without.output, /fixture ran/, 'not run');

    const underCi = await runSuite(fixtures, pattern, { ...developer, CI: 'true', PATH: path.join(bin, 'none') });
    assert.equal(underCi.code, 1, `a missing program fails a CI run:\n${underCi.output}`);
    assert.match(underCi.output, /^ {2}bsdtar: bsdtar missing \(needed by needs-bsdtar\.fixture\.js\)$/m, underCi.output);
    assert.match(underCi.output, /^ {2}to install: apt-get update && apt-get install -y libarchive-tools$/m, underCi.output);
    assert.doesNotMatch(underCi.output, /fixture ran/, 'nothing ran');

    writeFileSync(path.join(bin, 'bsdtar'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, 'bsdtar'), 0o755);
    const withIt = await runSuite(fixtures, pattern, { ...developer, CI: 'true', PATH: bin });
    assert.equal(withIt.code, 0, withIt.output);
    assert.match(withIt.output, /bsdtar fixture ran/, withIt.output);
    assert.doesNotMatch(withIt.output, /skipped/, withIt.output);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test('a file that installs packages runs only when asked to (OGSERVE_TEST_PACKAGE=required, CI), saying so', async () => {
  const { code, output } = await runSuite(fixtures, 'installs-packages\\.fixture\\.js$', developer);
  assert.equal(code, 0, output);
  assert.match(
    output,
    /^ {2}skipped installs-packages\.fixture\.js: it installs the \.deb on this machine with apt-get \(and purges it after\): OGSERVE_TEST_PACKAGE=required runs it, as CI does$/m,
    output,
  );
  assert.doesNotMatch(output, /fixture ran/, 'not run');
});

test('a PostgreSQL-only file is skipped on the other engines with one line saying so, and runs on PostgreSQL', async () => {
  const pattern = 'postgresql-only\\.fixture\\.js$';
  const onSqlite = await runSuite(fixtures, pattern, { OGSERVE_TEST_DB: 'sqlite' });
  assert.equal(onSqlite.code, 0, onSqlite.output);
  assert.match(
    onSqlite.output,
    /^ {2}skipped postgresql-only\.fixture\.js: runs on PostgreSQL only \(OGSERVE_TEST_DB=postgresql; this pass is sqlite\)$/m,
    onSqlite.output,
  );
  assert.doesNotMatch(onSqlite.output, /\(0 \/ 0\)|fixture ran/, onSqlite.output);
  const onPostgresql = await runSuite(fixtures, pattern, { OGSERVE_TEST_DB: 'postgresql' });
  assert.equal(onPostgresql.code, 0, onPostgresql.output);
  assert.match(onPostgresql.output, /postgresql-only fixture ran/, onPostgresql.output);
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

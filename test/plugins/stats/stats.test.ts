// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { meminfoBytes, swapFigures } from '../../../plugins/stats/system';
import { startServer } from '../../support/server';

const config = { plugins: ['stats'] };

test('GET /stats answers the spec shape with integer figures', async () => {
  const before = Math.floor(Date.now() / 1000);
  const s = await startServer({ config });
  try {
    const r = await s.get('/stats');
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(Object.keys(r.body).sort(), ['memory', 'swap', 'time'], 'top-level keys');
    assert.deepEqual(Object.keys(r.body.time).sort(), ['boot', 'now', 'start'], 'time keys');
    for (const group of ['memory', 'swap']) assert.deepEqual(Object.keys(r.body[group]).sort(), ['free', 'size'], `${group} keys`);
    for (const [group, values] of Object.entries(r.body as Record<string, Record<string, unknown>>)) {
      for (const [key, value] of Object.entries(values)) {
        assert.ok(Number.isSafeInteger(value) && (value as number) >= 0, `${group}.${key} is a non-negative integer: ${value}`);
      }
    }
    const after = Math.floor(Date.now() / 1000);
    const { time, memory, swap } = r.body;
    assert.ok(time.now >= before && time.now <= after, `time.now ${time.now} is the current epoch second`);
    assert.ok(time.start >= before && time.start <= time.now, `time.start ${time.start} is the epoch second the service started`);
    assert.ok(Math.abs(time.boot - os.uptime()) < 5, `time.boot ${time.boot} is the system uptime`);
    assert.equal(memory.size, os.totalmem(), 'memory.size is the total memory in bytes');
    assert.ok(memory.free > 0 && memory.free <= memory.size, 'memory.free is within memory.size');
    assert.ok(swap.free <= swap.size, 'swap.free is within swap.size');
  } finally {
    await s.close();
  }
});

test('GET /stats keeps time.start fixed while time.now moves on', async () => {
  const s = await startServer({ config });
  try {
    const first = await s.get('/stats');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await s.get('/stats');
    assert.equal(second.body.time.start, first.body.time.start, 'start does not change between requests');
    assert.ok(second.body.time.now > first.body.time.now, 'now advances');
  } finally {
    await s.close();
  }
});

test('with stats.start "uptime" (as the reference and ogCP) time.start counts the seconds since the service started', async () => {
  const s = await startServer({ config: { ...config, stats: { start: 'uptime' } } });
  try {
    const first = await s.get('/stats');
    assert.ok(
      Number.isSafeInteger(first.body.time.start) && first.body.time.start >= 0 && first.body.time.start < 5,
      `just started: ${first.body.time.start}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await s.get('/stats');
    assert.ok(second.body.time.start >= first.body.time.start + 1, `it grows: ${first.body.time.start} then ${second.body.time.start}`);
    const bad = await startServer({ config: { ...config, stats: { start: 'since' } } }).then(
      async (x) => {
        await x.close();
        return 'started';
      },
      (error: Error) => error.message,
    );
    assert.match(bad, /stats\.start/, 'an unknown value is a config error naming the key');
  } finally {
    await s.close();
  }
});

test('GET /stats with a body is refused', async () => {
  const s = await startServer({ config });
  try {
    for (const body of [{}, { a: 1 }, 'null']) {
      const r = await s.get('/stats', body);
      assert.equal(r.status, 400, `a body (${JSON.stringify(body)}) is an error: ${r.text}`);
      assert.equal(r.body.error, 'body_not_allowed', 'error code names the rule');
    }
  } finally {
    await s.close();
  }
});

test('POST /stats is a wrong method', async () => {
  const s = await startServer({ config });
  try {
    const r = await s.post('/stats');
    assert.equal(r.status, 405, `status: ${r.text}`);
  } finally {
    await s.close();
  }
});

test('swap figures come from /proc/meminfo in bytes, zeros when unreadable', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ogserve-stats-'));
  try {
    const file = path.join(dir, 'meminfo');
    writeFileSync(
      file,
      'MemTotal:       16000000 kB\nSwapCached:            0 kB\nSwapTotal:       2097148 kB\nSwapFree:        1048576 kB\n',
    );
    assert.deepEqual(await swapFigures(file), { size: 2097148 * 1024, free: 1048576 * 1024 }, 'KiB converted to bytes');
    assert.deepEqual(await swapFigures(path.join(dir, 'missing')), { size: 0, free: 0 }, 'no file means no swap');
    assert.equal(meminfoBytes('SwapCached: 5 kB\n', 'SwapTotal'), 0, 'an absent key is zero, not a prefix match');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

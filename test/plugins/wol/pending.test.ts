import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../../core/clock';
import { PendingWakes } from '../../../plugins/wol/pending';

const until = async (condition: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

test('entries are listed oldest first and released on demand', () => {
  const pending = new PendingWakes(60_000);
  try {
    pending.mark('127.0.0.3');
    pending.mark('127.0.0.1');
    pending.mark('127.0.0.2');
    pending.mark('127.0.0.3');
    assert.deepEqual([...pending.ips()], ['127.0.0.3', '127.0.0.1', '127.0.0.2'], 'a re-marked entry keeps its place');
    assert.equal(pending.release('127.0.0.1'), true, 'a present entry is released');
    assert.equal(pending.release('127.0.0.1'), false, 'releasing twice is harmless');
    assert.deepEqual([...pending.ips()], ['127.0.0.3', '127.0.0.2'], 'the released entry is gone');
  } finally {
    pending.clear();
  }
});

test('an entry expires after its lifetime; marking again restarts it', async () => {
  const pending = new PendingWakes(1000);
  try {
    pending.mark('127.0.0.1');
    pending.mark('127.0.0.2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    pending.mark('127.0.0.2');
    await until(() => !pending.has('127.0.0.1'));
    assert.ok(pending.has('127.0.0.2'), 'the restarted entry outlives the other one');
    await until(() => !pending.has('127.0.0.2'));
    assert.deepEqual([...pending.ips()], [], 'both expired');
  } finally {
    pending.clear();
  }
});

test('on an injected clock an entry lives exactly its lifetime, counted again from each mark', async () => {
  const clock = new ManualClock(1_000_000);
  const pending = new PendingWakes(60_000, clock);
  try {
    pending.mark('127.0.0.1');
    pending.mark('127.0.0.2');
    await clock.advance(30_000);
    pending.mark('127.0.0.2');
    await clock.advance(29_999);
    assert.deepEqual([...pending.ips()], ['127.0.0.1', '127.0.0.2'], 'both present 1 ms before the first expires');
    await clock.advance(1);
    assert.deepEqual([...pending.ips()], ['127.0.0.2'], 'the first expires at its lifetime');
    await clock.advance(29_999);
    assert.ok(pending.has('127.0.0.2'), 'the re-marked one counts from its second mark');
    await clock.advance(1);
    assert.deepEqual([...pending.ips()], [], 'then it expires too');
    pending.mark('127.0.0.3');
    pending.release('127.0.0.3');
    assert.deepEqual(clock.pendingTimers(), [], 'a released entry leaves no timer armed');
  } finally {
    pending.clear();
  }
});

test.run();

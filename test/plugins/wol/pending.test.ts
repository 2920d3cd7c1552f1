import assert from 'node:assert/strict';
import { test } from 'uvu';
import type { Clock } from '../../../core/clock';
import { ManualClock } from '../../../testing';
import { PendingWakes } from '../../../plugins/wol/pending';

const until = async (condition: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** A PendingWakes of 60 s on a manual clock, cleared after `fn`. */
async function onManualClock(fn: (pending: PendingWakes, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(1_000_000);
  const pending = new PendingWakes({ pending_timeout_s: 60 }, clock);
  try {
    await fn(pending, clock);
  } finally {
    pending.clear();
  }
}

test('entries are listed oldest first and released on demand', () => {
  const pending = new PendingWakes({ pending_timeout_s: 60 });
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
  const pending = new PendingWakes({ pending_timeout_s: 1 });
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

test('on an injected clock an entry lives exactly its lifetime, counted again from each mark', () =>
  onManualClock(async (pending, clock) => {
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
  }));

test('one timer serves every entry; entries marked at different times each expire at their own', () =>
  onManualClock(async (pending, clock) => {
    pending.mark('127.0.0.1');
    await clock.advance(10);
    pending.mark('127.0.0.2');
    pending.mark('127.0.0.3');
    await clock.advance(10);
    pending.mark('127.0.0.4');
    assert.deepEqual(clock.pendingTimers(), [1_060_000], 'a single timer, for the earliest expiry');
    await clock.advanceTo(1_059_999);
    assert.deepEqual([...pending.ips()], ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'], 'all present before the first expiry');
    await clock.advanceTo(1_060_000);
    assert.deepEqual([...pending.ips()], ['127.0.0.2', '127.0.0.3', '127.0.0.4'], 'the first expires alone');
    assert.deepEqual(clock.pendingTimers(), [1_060_010], 'the timer is armed again for the next expiry');
    await clock.advanceTo(1_060_009);
    assert.equal([...pending.ips()].length, 3, 'the next ones not yet');
    await clock.advanceTo(1_060_010);
    assert.deepEqual([...pending.ips()], ['127.0.0.4'], 'the two marked together expire together');
    await clock.advanceTo(1_060_019);
    assert.ok(pending.has('127.0.0.4'), 'the last one 1 ms before its expiry');
    await clock.advanceTo(1_060_020);
    assert.deepEqual([...pending.ips()], [], 'then it expires');
    assert.deepEqual(clock.pendingTimers(), [], 'no timer is left armed');
  }));

test('marking again the entry the timer is armed for pushes its expiry back; the others keep theirs', () =>
  onManualClock(async (pending, clock) => {
    pending.mark('127.0.0.1');
    await clock.advance(10);
    pending.mark('127.0.0.2');
    await clock.advance(10);
    pending.mark('127.0.0.1');
    await clock.advanceTo(1_060_000);
    assert.deepEqual([...pending.ips()], ['127.0.0.1', '127.0.0.2'], 'nothing expires at the first mark’s old expiry');
    await clock.advanceTo(1_060_010);
    assert.deepEqual([...pending.ips()], ['127.0.0.1'], 'the other one expires at its own time');
    await clock.advanceTo(1_060_019);
    assert.ok(pending.has('127.0.0.1'), 'the re-marked one lives its lifetime from the second mark');
    await clock.advanceTo(1_060_020);
    assert.deepEqual([...pending.ips()], [], 'then it expires');
    assert.deepEqual(clock.pendingTimers(), [], 'no timer is left armed');
  }));

test('releasing the entry the timer is armed for leaves the others their expiry; releasing the last disarms it', () =>
  onManualClock(async (pending, clock) => {
    pending.mark('127.0.0.1');
    await clock.advance(10);
    pending.mark('127.0.0.2');
    await clock.advance(10);
    pending.mark('127.0.0.3');
    assert.equal(pending.release('127.0.0.1'), true, 'the earliest is released');
    await clock.advanceTo(1_060_009);
    assert.deepEqual([...pending.ips()], ['127.0.0.2', '127.0.0.3'], 'the others are still there');
    await clock.advanceTo(1_060_010);
    assert.deepEqual([...pending.ips()], ['127.0.0.3'], 'the second expires at its own time');
    assert.equal(pending.release('127.0.0.3'), true, 'the last one is released');
    assert.deepEqual(clock.pendingTimers(), [], 'nothing left: no timer armed');
    pending.mark('127.0.0.4');
    await clock.advance(59_999);
    assert.ok(pending.has('127.0.0.4'), 'an entry marked after that is armed afresh');
    await clock.advance(1);
    assert.deepEqual([...pending.ips()], [], 'and expires at its lifetime');
  }));

test('clear drops every entry and its timer', () => {
  const clock = new ManualClock(1_000_000);
  const pending = new PendingWakes({ pending_timeout_s: 60 }, clock);
  pending.mark('127.0.0.1');
  pending.mark('127.0.0.2');
  pending.clear();
  assert.deepEqual([...pending.ips()], [], 'no entry');
  assert.deepEqual(clock.pendingTimers(), [], 'no timer armed');
});

/** A clock that can also be set back (as the system clock can be); timers run when it reaches them. */
class SettableClock implements Clock {
  private timers: { at: number; fn: () => void | Promise<void> }[] = [];

  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  setTimer(at: number, fn: () => void | Promise<void>): () => void {
    const timer = { at, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  armed(): number[] {
    return this.timers.map((t) => t.at).sort((a, b) => a - b);
  }

  async set(time: number): Promise<void> {
    this.time = time;
    for (let due = this.timers.find((t) => t.at <= time); due; due = this.timers.find((t) => t.at <= time)) {
      this.timers = this.timers.filter((t) => t !== due);
      await due.fn();
    }
  }
}

test('an entry marked after the clock was set back expires at its own time, before the older one', async () => {
  const clock = new SettableClock(1_000_000);
  const pending = new PendingWakes({ pending_timeout_s: 60 }, clock);
  try {
    pending.mark('127.0.0.1');
    await clock.set(990_000);
    pending.mark('127.0.0.2');
    assert.deepEqual(clock.armed(), [1_050_000], 'the timer moved to the earlier expiry, and only one is armed');
    await clock.set(1_049_999);
    assert.deepEqual([...pending.ips()], ['127.0.0.1', '127.0.0.2'], 'both present 1 ms before');
    await clock.set(1_050_000);
    assert.deepEqual([...pending.ips()], ['127.0.0.1'], 'the later-marked one expires at its lifetime');
    await clock.set(1_060_000);
    assert.deepEqual([...pending.ips()], [], 'the older one at its own');
  } finally {
    pending.clear();
  }
});

test.run();

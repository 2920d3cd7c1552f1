// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import { EventBus } from '../../core/events';
import { createLogger } from '../../core/log';

declare module 'ogserve' {
  interface EventMap {
    'bus-test.announced': { n: number };
  }
  interface InternalEventMap {
    'bus-test.internal': { n: number };
  }
  interface HookMap {
    'bus-test.check': { value: string };
  }
}

function busWithLog() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger('info', sink);
  return { bus: new EventBus(log), log, lines };
}

test('a failing listener does not stop the others; it is logged with the given logger, counted and returned with its task', async () => {
  const { bus, log, lines } = busWithLog();
  const heard: string[] = [];
  bus.on('a', 'bus-test.announced', ({ n }) => void heard.push(`a ${n}`));
  bus.on('b', 'bus-test.announced', () => Promise.reject(new Error('disk full')), 'write the files');
  bus.on('c', 'bus-test.announced', () => {
    throw 'not an Error';
  });
  bus.on('d', 'bus-test.announced', ({ n }) => void heard.push(`d ${n}`));
  const failures = await bus.emit('bus-test.announced', { n: 1 }, log.child({ request: 'POST /x' }));
  assert.deepEqual(heard, ['a 1', 'd 1'], 'every listener ran, in order');
  assert.deepEqual(
    failures.map((f) => [f.owner, f.task, f.error.message]),
    [
      ['b', 'write the files', 'disk full'],
      ['c', undefined, 'not an Error'],
    ],
  );
  assert.equal(bus.failures, 2, 'counted');
  await new Promise((resolve) => setImmediate(resolve));
  const errors = lines.filter((l) => l.level === 'error');
  assert.deepEqual(
    errors.map((l) => [l.msg, l.request, l.plugin]),
    [
      ['b: could not write the files: disk full', 'POST /x', 'b'],
      ['c: handling bus-test.announced failed: not an Error', 'POST /x', 'c'],
    ],
  );
});

test('announced events reach onAny listeners; internal ones reach only their own listeners', async () => {
  const { bus } = busWithLog();
  const streamed: string[] = [];
  const internal: number[] = [];
  bus.onAny((name) => streamed.push(name));
  bus.on('x', 'bus-test.internal', ({ n }) => void internal.push(n));
  await bus.emit('bus-test.announced', { n: 1 });
  await bus.tell('bus-test.internal', { n: 2 });
  assert.deepEqual(streamed, ['bus-test.announced']);
  assert.deepEqual(internal, [2]);
  assert.deepEqual(await bus.tell('bus-test.internal', { n: 3 }), [], 'no failure to report');
});

test('hooks run in turn and the first refusal stops the rest', async () => {
  const { bus } = busWithLog();
  const ran: string[] = [];
  bus.hook('bus-test.check', async ({ value }) => {
    ran.push(`first ${value}`);
  });
  bus.hook('bus-test.check', ({ value }) => {
    ran.push(`second ${value}`);
    if (value === 'bad') throw new Error('refused: bad');
  });
  bus.hook('bus-test.check', ({ value }) => void ran.push(`third ${value}`));
  await bus.check('bus-test.check', { value: 'good' });
  await assert.rejects(bus.check('bus-test.check', { value: 'bad' }), /refused: bad/);
  assert.deepEqual(ran, ['first good', 'second good', 'third good', 'first bad', 'second bad']);
  assert.equal(bus.failures, 0, 'a refusal is an answer, not a listener failure');
});

test.run();

// Engine-independent: runs once, on SQLite.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventLog } from '../../../plugins/events/event-log';

test('ids increase by one from 1; each event has its type, an ISO time and its data', () => {
  const log = new EventLog(4);
  const first = log.append('agent.connected', { client: '127.0.0.2' }, Date.UTC(2026, 10, 23, 12));
  const second = log.append('agent.disconnected', { client: '127.0.0.2' });
  assert.equal(first, { id: 1, type: 'agent.connected', time: '2026-11-23T12:00:00.000Z', data: { client: '127.0.0.2' } });
  assert.is(second.id, 2);
  assert.is(log.lastId, 2);
});

test('after(id) gives what came later, oldest first, while it is kept; else undefined', () => {
  const log = new EventLog(3);
  assert.equal(log.after(0), [], 'nothing yet');
  for (let i = 0; i < 5; i++) log.append('x.y', { n: i });
  // ids 1..5, the last 3 kept (3, 4, 5)
  assert.equal(
    log.after(2)?.map((e) => e.id),
    [3, 4, 5],
  );
  assert.equal(
    log.after(4)?.map((e) => e.id),
    [5],
  );
  assert.equal(log.after(5), []);
  assert.is(log.after(1), undefined, 'event 2 is gone: the subscriber must re-read');
  assert.is(log.after(6), undefined, 'an id this process never gave (a restart)');
  assert.is(log.after(-1), undefined);
  assert.is(log.after(1.5), undefined);
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { Inventory } from '../../../plugins/inventory';
import { bulkInsert, ipFor } from '../../support/bulk';
import { addCenter, addRoom, macFor } from '../../support/fixtures';
import { TOKEN, send, withServer } from '../../support/server';
import { jobsSite } from './helpers';

/** GET /jobs/<id> answers a job's PCs a page at a time: a job of any size is a 200, never a 500 over the response cap. */

test('a job of 2,000 PCs pages under the default response cap: 500 lines a page, every PC once, counted whole on each page', async () => {
  await withServer(async (s) => {
    const center = await addCenter(s, 'Center');
    const room = await addRoom(s, center, 'Big', '255.0.0.0');
    const ips = Array.from({ length: 2000 }, (_, i) => ipFor(i + 1));
    await bulkInsert(
      s.app.database,
      'clients',
      ['name', 'ip', 'mac', 'room_id'],
      ips.map((ip, i) => [`pc-${i}`, ip, macFor(i + 1), room]),
    );
    s.app.container.resolve(Inventory).tablesChanged();
    // None of them has an agent: a job of 2,000 lines, each skipped.
    const sent = await s.post('/refresh', { clients: ips });
    assert.equal(sent.status, 200, sent.text);
    const id = (await s.get('/jobs')).body.jobs[0].id as number;
    const seen: string[] = [];
    let after: number | null = null;
    let pages = 0;
    do {
      const r = await s.get(`/jobs/${id}${after === null ? '' : `?after=${after}`}`);
      assert.equal(r.status, 200, `page ${pages + 1}: ${r.text.slice(0, 200)}`);
      assert.deepEqual([r.body.total, r.body.states], [2000, { skipped: 2000 }], 'each page counts the whole job');
      assert.ok(r.body.clients.length <= 500, `page ${pages + 1} has ${r.body.clients.length} lines`);
      seen.push(...r.body.clients.map((c: { addr: string }) => c.addr));
      after = r.body.next;
      pages++;
    } while (after !== null && pages < 10);
    assert.equal(pages, 4, '2,000 lines in pages of 500');
    assert.deepEqual(seen, ips, 'every PC once, in the order they were sent');
  });
});

test('a small job answers every PC at once with next null, as before; limit and after page it; bad ones are a 400 naming them', async () => {
  const x = await jobsSite();
  try {
    const sent = await x.s.post('/refresh', { clients: [...x.inA, ...x.inB] });
    assert.equal(sent.status, 200, sent.text);
    const id = sent.body.job ?? (await x.s.get('/jobs')).body.jobs[0].id;
    const whole = await x.s.get(`/jobs/${id}`);
    assert.equal(whole.status, 200, whole.text);
    assert.equal(whole.body.clients.length, 4, whole.text);
    assert.equal(whole.body.next, null, 'one page holds a small job');
    const first = await x.s.get(`/jobs/${id}?limit=3`);
    assert.deepEqual(
      [first.body.clients.length, first.body.total, typeof first.body.next],
      [3, 4, 'number'],
      'a page of 3, the job counted whole',
    );
    const second = await x.s.get(`/jobs/${id}?limit=3&after=${first.body.next}`);
    assert.deepEqual(
      [...first.body.clients, ...second.body.clients].map((c: { addr: string }) => c.addr),
      whole.body.clients.map((c: { addr: string }) => c.addr),
      'the pages together are the whole job, in order',
    );
    assert.equal(second.body.next, null, 'the last page says so');
    const cases: [string, string][] = [
      [`/jobs/${id}?limit=0`, 'limit'],
      [`/jobs/${id}?limit=1001`, 'limit'],
      [`/jobs/${id}?after=x`, 'after'],
      [`/jobs/${id}?page=2`, 'page'],
    ];
    for (const [path, field] of cases) {
      const r = await send(x.s.port, 'GET', path, undefined, { Authorization: TOKEN });
      assert.deepEqual([r.status, r.body.error, r.body.field], [400, 'invalid_field', field], `${path}: ${r.text}`);
    }
  } finally {
    await x.close();
  }
});

test.run();

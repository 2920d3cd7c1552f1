import assert from 'node:assert/strict';
import { test } from 'uvu';
import { send } from '../../support/server';
import { jobOnce, jobsSite, roomA, roomB, start } from './helpers';

/** GET /jobs: each filter, pages newest first, and the retention that deletes old jobs. */

const hourMs = 60 * 60 * 1000;

test('filters by state, kind, client, room and who; pages newest first; jobs past the retention are deleted', async () => {
  const x = await jobsSite({ jobs: { retention_days: 1 } });
  try {
    const [a1, a2] = roomA as [string, string];
    const b1 = roomB[0]!;
    const ids = async (query: string): Promise<number[]> => {
      const r = await x.s.get(`/jobs${query}`);
      assert.equal(r.status, 200, `${query}: ${r.text}`);
      return r.body.jobs.map((j: { id: number }) => j.id);
    };
    // Nobody connected: both skipped.
    const first = (await x.s.post('/refresh', { clients: [a1, b1] })).body.job as number;
    const ops = (await x.s.post('/tokens', { name: 'ops', role: 'operator' })).body.secret as string;
    const second = (await send(x.s.port, 'POST', '/reboot', { clients: [a2] }, { Authorization: ops })).body.job as number;
    await x.connect(a1);
    const third = (await x.s.post('/refresh', { clients: [a1] })).body.job as number;
    await jobOnce(x, third, (j) => j.finished !== null, 'the third job ended');

    assert.deepEqual(await ids(''), [third, second, first], 'newest first');
    assert.deepEqual(await ids('?state=done'), [third]);
    assert.deepEqual(await ids('?state=skipped'), [second, first]);
    assert.deepEqual(await ids('?kind=reboot'), [second]);
    assert.deepEqual(await ids(`?client=${b1}`), [first]);
    assert.deepEqual(await ids(`?room=${x.roomB}`), [first]);
    assert.deepEqual(await ids(`?room=${x.roomA}&state=skipped`), [second, first]);
    assert.deepEqual(await ids('?who=ops'), [second]);
    assert.deepEqual(await ids('?who=api_token&kind=refresh'), [third, first]);

    const page = await x.s.get('/jobs?limit=2');
    assert.deepEqual([page.body.jobs.map((j: { id: number }) => j.id), page.body.next], [[third, second], second]);
    const last = await x.s.get(`/jobs?limit=2&before=${page.body.next}`);
    assert.deepEqual([last.body.jobs.map((j: { id: number }) => j.id), last.body.next], [[first], null]);
    const listed = page.body.jobs[0];
    assert.deepEqual(
      { ...listed, id: 0 },
      {
        id: 0,
        kind: 'refresh',
        who: 'api_token',
        source: 'key',
        params: {},
        created: new Date(start).toISOString(),
        finished: listed.finished,
        total: 1,
        states: { done: 1 },
      },
    );

    // A day on, a new job; an hour later the prune deletes the older three only.
    await x.clock.advanceTo(start + 24 * hourMs);
    const young = (await x.s.post('/stop', { clients: [b1] })).body.job as number;
    await x.clock.advanceTo(start + 25 * hourMs);
    assert.deepEqual(await ids(''), [young]);
    assert.equal((await x.s.get(`/jobs/${first}`)).status, 404);
    const [row] = await x.s.app.database.query<{ n: number | string }>('select count(*) as n from job_clients');
    assert.equal(Number(row!.n), 1, "the deleted jobs' clients went with them");
  } finally {
    await x.close();
  }
});

test.run();

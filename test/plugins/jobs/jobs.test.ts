import assert from 'node:assert/strict';
import { test } from 'uvu';
import { EventStreamClient } from '../../support/event-stream';
import { send } from '../../support/server';
import { jobOnce, jobsSite, roomA, roomB, start, statesOf } from './helpers';

/**
 * Commands sent to real fake agents become jobs: each client's state (answered, refused,
 * not connected, never answering, busy), who asked, the job id in the answer, the events.
 */

test('a job per command: done, failed, skipped (not connected, busy) and timed out by the per-command timeout; who asked; events', async () => {
  const x = await jobsSite({ jobs: { timeouts_s: { refresh: 60 } } });
  const stream = await EventStreamClient.open(x.s.port, 'types=job.created,job.client,job.finished');
  try {
    const [ok, refused, silent] = roomA as [string, string, string];
    const off = roomB[0]!;
    await x.connect(ok);
    (await x.connect(refused)).on('refresh', { status: 500 });
    (await x.connect(silent)).on('refresh', { none: true });

    const r = await x.s.post('/refresh', { clients: [ok, refused, silent, off] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.clients, [
      { addr: ok, outcome: 'sent' },
      { addr: refused, outcome: 'sent' },
      { addr: silent, outcome: 'sent' },
      { addr: off, outcome: 'not_connected' },
    ]);
    assert.ok(Number.isInteger(r.body.job), 'the answer names its job');
    const id = r.body.job as number;

    const answered = await jobOnce(x, id, (j) => j.states.sent === 1, 'the answering clients ended');
    assert.deepEqual(statesOf(answered), { [ok]: 'done', [refused]: 'failed', [silent]: 'sent', [off]: 'skipped' });
    assert.equal(answered.kind, 'refresh');
    assert.equal(answered.who, 'api_token');
    assert.equal(answered.source, 'key');
    assert.equal(answered.created, new Date(start).toISOString());
    assert.equal(answered.finished, null, 'a client still runs');
    const listed = async () => (await x.s.get('/jobs')).body.jobs.find((j: { id: number }) => j.id === id);
    assert.deepEqual((await listed()).states, { done: 1, failed: 1, sent: 1, skipped: 1 }, 'GET /jobs counts a running job');
    const line = (ip: string) => answered.clients.find((c: { addr: string }) => c.addr === ip);
    assert.deepEqual([line(refused).status, line(refused).outcome], [500, 'the agent answered 500']);
    assert.deepEqual([line(off).reason, line(ok).status, line(ok).room], ['not_connected', 200, x.roomA]);

    // The silent client is busy: a command to it now is skipped as busy, by an operator's token.
    const made = await x.s.post('/tokens', { name: 'ops', role: 'operator' });
    const busy = await send(x.s.port, 'POST', '/hardware', { clients: [silent] }, { Authorization: made.body.secret });
    assert.equal(busy.status, 200, busy.text);
    const skipped = (await x.s.get(`/jobs/${busy.body.job}`)).body;
    assert.deepEqual([skipped.who, skipped.source, skipped.clients[0].reason], ['ops', 'token', 'busy']);
    assert.equal(skipped.finished, new Date(start).toISOString(), 'a job nobody was sent is finished');

    // The refresh's own timeout: 60 s on the jobs' clock.
    await x.clock.advance(60_000);
    const ended = await jobOnce(x, id, (j) => j.finished !== null, 'the job timed out');
    assert.equal(statesOf(ended)[silent], 'timed_out');
    assert.equal(ended.clients.find((c: { addr: string }) => c.addr === silent).outcome, 'no answer within 60 s');
    assert.deepEqual(ended.states, { done: 1, failed: 1, timed_out: 1, skipped: 1 });
    // Listed twice: once counted, once as kept; neither as it was while it ran.
    for (const time of ['first', 'second'])
      assert.deepEqual(
        [(await listed()).states, (await listed()).finished],
        [ended.states, ended.finished],
        `GET /jobs lists the ended job anew (${time} time)`,
      );

    await stream.waitFor((e) => e.type === 'job.finished' && e.data.job === id, 'job.finished');
    const of = (type: string) => stream.events.filter((e) => e.type === type && e.data.job === id).map((e) => e.data);
    assert.deepEqual(of('job.created'), [
      { job: id, kind: 'refresh', who: 'api_token', source: 'key', clients: [ok, refused, silent, off] },
    ]);
    assert.deepEqual(
      of('job.client')
        .map((e) => `${e.client} ${e.state}`)
        .sort(),
      [
        `${ok} done`,
        `${ok} sent`,
        `${refused} failed`,
        `${refused} sent`,
        `${silent} sent`,
        `${silent} timed_out`,
        `${off} skipped`,
      ].sort(),
    );
  } finally {
    stream.close();
    await x.close();
  }
});

test.run();

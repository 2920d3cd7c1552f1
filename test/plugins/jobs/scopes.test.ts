import assert from 'node:assert/strict';
import { test } from 'uvu';
import { EventStreamClient } from '../../support/event-stream';
import { send } from '../../support/server';
import { jobsSite } from './helpers';

/** A token limited to room A sees only the jobs touching its clients, and only those clients in them, in answers and events. */

test('a limited token: jobs touching its room only, counted and listed over its clients; others are not found nor streamed', async () => {
  const x = await jobsSite({}, ['127.0.10.1', '127.0.10.2', '127.0.10.3'], ['127.0.11.1']);
  const streams: EventStreamClient[] = [];
  try {
    const [a1] = x.inA as [string];
    const b1 = x.inB[0]!;
    const made = await x.s.post('/tokens', { name: 'roomA', role: 'reader', rooms: [x.roomA] });
    assert.equal(made.status, 200, made.text);
    const key = { Authorization: made.body.secret as string };
    const get = (path: string) => send(x.s.port, 'GET', path, undefined, key);
    const limited = await EventStreamClient.open(x.s.port, 'types=job.*', key);
    streams.push(limited);
    const all = await EventStreamClient.open(x.s.port, 'types=job.*');
    streams.push(all);

    const both = (await x.s.post('/refresh', { clients: [a1, b1] })).body.job as number;
    const outside = (await x.s.post('/refresh', { clients: [b1] })).body.job as number;
    await all.waitFor((e) => e.type === 'job.finished' && e.data.job === outside, 'the second job, to the whole fleet');
    await limited.waitFor((e) => e.type === 'job.finished' && e.data.job === both, 'the first job, to the limited token');
    assert.deepEqual(
      limited.events.map((e) => [e.type, e.data.job, e.data.client ?? e.data.clients]),
      [
        ['job.created', both, [a1]],
        ['job.client', both, a1],
        ['job.finished', both, [a1]],
      ],
      'only its client, of the first job only',
    );

    const list = await get('/jobs');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.jobs.map((j: { id: number; total: number; states: object }) => [j.id, j.total, j.states]),
      [[both, 1, { skipped: 1 }]],
    );
    assert.deepEqual((await get(`/jobs?client=${b1}`)).body.jobs, [], 'a client outside finds nothing');
    const one = await get(`/jobs/${both}`);
    assert.deepEqual(
      one.body.clients.map((c: { addr: string }) => c.addr),
      [a1],
    );
    const hidden = await get(`/jobs/${outside}`);
    assert.deepEqual([hidden.status, hidden.body.error], [404, 'not_found']);
    // The unlimited key sees both, whole.
    assert.equal((await x.s.get(`/jobs/${both}`)).body.clients.length, 2);
    assert.equal((await x.s.get('/jobs')).body.jobs.length, 2);
  } finally {
    for (const stream of streams) stream.close();
    await x.close();
  }
});

test("a limited token's stream filter naming a client outside is a 403, as a room outside is: it would pick out that client's jobs", async () => {
  const x = await jobsSite({}, ['127.0.12.1'], ['127.0.13.1']);
  const streams: EventStreamClient[] = [];
  try {
    const [a1] = x.inA as [string];
    const b1 = x.inB[0]!;
    const made = await x.s.post('/tokens', { name: 'roomA', role: 'reader', rooms: [x.roomA] });
    const key = { Authorization: made.body.secret as string };
    for (const clients of [b1, `${a1},${b1}`, '127.0.99.1']) {
      const refused = await EventStreamClient.open(x.s.port, `types=job.*&clients=${clients}`, key);
      assert.deepEqual(
        [refused.status, refused.json?.error, refused.json?.field],
        [403, 'forbidden', 'clients'],
        `clients=${clients}: ${refused.body}`,
      );
    }
    const refused = await EventStreamClient.open(x.s.port, `clients=${b1}`, key);
    assert.match(
      refused.json.message,
      new RegExp(`^clients: client ${b1.replace(/\./g, '\\.')} is outside what the key 'roomA' may reach`),
    );

    const own = await EventStreamClient.open(x.s.port, `types=job.*&clients=${a1}`, key);
    streams.push(own);
    assert.equal(own.status, 200, 'its own client');
    const whole = await EventStreamClient.open(x.s.port, `types=job.*&clients=${b1}`);
    streams.push(whole);
    assert.equal(whole.status, 200, 'the unlimited key may name any client');

    const both = (await x.s.post('/refresh', { clients: [a1, b1] })).body.job as number;
    await whole.waitFor((e) => e.type === 'job.finished' && e.data.job === both, 'the job, to the unlimited key');
    await own.waitFor((e) => e.type === 'job.finished' && e.data.job === both, 'the job, to the limited token');
    assert.deepEqual(
      own.events.map((e) => [e.type, e.data.client ?? e.data.clients]),
      [
        ['job.created', [a1]],
        ['job.client', a1],
        ['job.finished', [a1]],
      ],
    );
    assert.ok(!JSON.stringify(own.events).includes(b1), 'no trace of the client outside');
  } finally {
    for (const stream of streams) stream.close();
    await x.close();
  }
});

test.run();

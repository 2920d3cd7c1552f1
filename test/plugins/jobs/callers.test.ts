// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { send } from '../../support/server';
import { jobOnce, jobsSite, statesOf } from './helpers';

/** Who asks besides REST callers of the relayed commands: a shell run, the scheduler. */

test('a shell run is a job with its params, shown only to callers who may run scripts', async () => {
  const x = await jobsSite({}, ['127.0.18.1'], ['127.0.19.1']);
  try {
    const ip = x.inA[0]!;
    (await x.connect(ip)).on('shell/run', { body: { out: 'hi', retcode: 0 } });
    const r = await x.s.post('/shell/run', { clients: [ip], run: 'echo hi' });
    assert.equal(r.status, 200, r.text);
    const job = await jobOnce(x, r.body.job, (j) => j.finished !== null, 'the shell job ended');
    assert.deepEqual([job.kind, job.params, statesOf(job)[ip]], ['shell/run', { run: 'echo hi' }, 'done']);
    // The script's text is as sensitive as its output: a reader sees no params.
    const reader = (await x.s.post('/tokens', { name: 'reader', role: 'reader' })).body.secret as string;
    const read = (path: string) => send(x.s.port, 'GET', path, undefined, { Authorization: reader });
    assert.equal((await read(`/jobs/${job.id}`)).body.params, null);
    assert.equal((await read('/jobs')).body.jobs[0].params, null);
  } finally {
    await x.close();
  }
});

test('a scheduled command is a job the scheduler asked for', async () => {
  const x = await jobsSite({ plugins: ['+scheduler'] }, ['127.0.14.1'], ['127.0.15.1']);
  try {
    const ip = x.inA[0]!;
    // The real agent answers run/schedule 200 with no body: the scheduler then sends what is queued.
    (await x.connect(ip)).on('run/schedule', { status: 200 }, true);
    // A procedure run is queued at once, then sent as the agent is idle.
    const procedure = (await x.s.post('/procedure/add', { center: x.center, name: 'p', steps: [{ command: 'refresh' }] })).body.id;
    const r = await x.s.post('/procedure/run', { clients: [ip], procedure: String(procedure) });
    assert.equal(r.status, 200, r.text);
    const scheduled = async () => (await x.s.get('/jobs?who=scheduler')).body.jobs[0]?.id as number | undefined;
    const id = (await eventually(scheduled, 'the scheduled job'))!;
    const job = await jobOnce(x, id, (j) => j.finished !== null, 'the scheduled job ended');
    assert.deepEqual([job.kind, job.who, job.source, statesOf(job)[ip]], ['refresh', 'scheduler', 'scheduler', 'done']);
  } finally {
    await x.close();
  }
});

test.run();

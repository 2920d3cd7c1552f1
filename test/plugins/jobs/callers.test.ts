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

test('a script that exits non-zero fails its job and its PC: the exit code and the end of its output are kept, the output for who may run scripts', async () => {
  const x = await jobsSite({}, ['127.0.18.1', '127.0.18.2'], ['127.0.19.1']);
  try {
    const [good, bad] = x.inA as [string, string];
    (await x.connect(good)).on('shell/run', { body: { out: 'fine\n', retcode: 0 } });
    const long = `${'x'.repeat(5000)}\nfalse: failed\n`;
    (await x.connect(bad)).on('shell/run', { body: { out: long, retcode: 1 } });
    const r = await x.s.post('/shell/run', { clients: [good, bad], run: 'false' });
    assert.equal(r.status, 200, r.text);
    const job = await jobOnce(x, r.body.job, (j) => j.finished !== null, 'the shell job ended');
    const line = (ip: string) => job.clients.find((c: { addr: string }) => c.addr === ip);
    assert.deepEqual([line(bad).state, line(bad).outcome, line(bad).code], ['failed', 'exit code 1', 1], 'a non-zero exit fails');
    assert.deepEqual([line(good).state, line(good).outcome, line(good).code], ['done', 'success', 0], 'zero is a success');
    assert.deepEqual(job.states, { done: 1, failed: 1 });
    assert.equal((await x.s.get('/jobs?state=failed')).body.jobs[0]?.id, job.id, 'listed among the failed');
    assert.equal((await x.entry(bad))?.last_cmd.result, 'failure', 'GET /clients says failure');
    assert.equal((await x.entry(good))?.last_cmd.result, 'success');

    const output = await x.s.get(`/jobs/${job.id}/output?client=${bad}`);
    assert.equal(output.status, 200, output.text);
    assert.equal(output.body.code, 1);
    assert.ok(output.body.output.endsWith('false: failed\n') && output.body.output.length === 4001, 'the last 4,000 characters, marked');
    const reader = (await x.s.post('/tokens', { name: 'reader', role: 'reader' })).body.secret as string;
    const read = (path: string) => send(x.s.port, 'GET', path, undefined, { Authorization: reader });
    assert.equal((await read(`/jobs/${job.id}/output?client=${bad}`)).status, 403, "a reader may not read a script's output");
    assert.equal((await x.s.get(`/jobs/${job.id}/output?client=127.0.19.1`)).status, 404, 'not a PC of the job');
    assert.equal((await x.s.get(`/jobs/${job.id}/output?client=nope`)).body.field, 'client');
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

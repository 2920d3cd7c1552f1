import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { eventually } from '../../support/fake-agent';
import { TOKEN, send } from '../../support/server';
import { wolSite } from '../wol/helpers';

/** The wol plugin's wake runs as jobs of kind wol, heard through its run events; fake agents that connect or never do. */

const start = 1_800_000_000_000;

test('with the jobs plugin each wake run is a job of kind wol: who asked, and each client done, failed or cancelled', async () => {
  const clock = new ManualClock(start);
  const x = await wolSite({ count: 3, clock, plugins: ['jobs'], wol: { verify_s: 60 } });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'unicast' });
    await x.connect(x.ips[0]!);
    await clock.advance(60_000);
    const jobOf = async (run: number, what: string) => {
      const list = await eventually(async () => {
        const r = await x.s.get('/jobs?kind=wol');
        const found = r.body.jobs.find((j: { params: { run: number } }) => j.params.run === run);
        return found?.finished ? found : undefined;
      }, what);
      return (await x.s.get(`/jobs/${list.id}`)).body;
    };
    const job = await jobOf(1, "the first run's job finished");
    assert.deepEqual(job.params, { run: 1, type: 'unicast' });
    assert.equal(job.who, 'api_token');
    assert.deepEqual(job.states, { done: 1, failed: 2 });
    assert.deepEqual(
      job.clients.map((c: { addr: string; state: string; outcome: string }) => [c.addr, c.state, c.outcome]),
      [
        [x.ips[0], 'done', 'woken: its agent connected'],
        [x.ips[1], 'failed', 'its agent did not connect after 1 wake(s) (never_seen)'],
        [x.ips[2], 'failed', 'its agent did not connect after 1 wake(s) (never_seen)'],
      ],
    );
    const second = await x.s.post('/wol', { clients: [x.ips[1]], type: 'unicast' });
    assert.equal((await send(x.s.port, 'DELETE', `/wol/runs/${second.body.run}`, undefined, { Authorization: TOKEN })).status, 200);
    const cancelled = await jobOf(second.body.run, "the cancelled run's job finished");
    assert.deepEqual(
      cancelled.clients.map((c: { state: string; outcome: string }) => [c.state, c.outcome]),
      [['failed', 'the wake run was cancelled']],
    );
  } finally {
    await x.close();
  }
});

test('with wol.verify_s 0 a run ends once its packets left, and its job counts every client done', async () => {
  const x = await wolSite({ count: 2, plugins: ['jobs'], wol: { verify_s: 0 } });
  try {
    await x.s.post('/wol', { clients: x.ips, type: 'broadcast' });
    assert.equal((await x.s.get('/wol/runs/1')).body.state, 'done', 'no check armed: done at once');
    const job = await eventually(
      async () => (await x.s.get('/jobs?kind=wol')).body.jobs.find((j: { finished: string | null }) => j.finished),
      'the job finished',
    );
    assert.deepEqual(job.states, { done: 2 });
  } finally {
    await x.close();
  }
});

test.run();

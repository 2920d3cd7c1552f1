// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { makeTestDir, removeTestStore, startServer } from '../../support/server';
import { jobsSite } from './helpers';

/** A job still running when the service stops ends at the next start: its client failed, the job finished. */

test('a client left sent by a stop is failed at the next start, and its job finished', async () => {
  const dir = makeTestDir();
  try {
    const x = await jobsSite({}, ['127.0.16.1'], ['127.0.17.1'], dir);
    let id: number;
    try {
      const ip = x.inA[0]!;
      (await x.connect(ip)).on('hardware', { none: true });
      id = (await x.s.post('/hardware', { clients: [ip] })).body.job;
      assert.equal((await x.s.get(`/jobs/${id}`)).body.clients[0].state, 'sent');
    } finally {
      await x.close();
    }
    // On the system clock, months after the jobs' clock of the first run: kept for ever, not pruned.
    const s = await startServer({ dir, config: { jobs: { retention_days: 0 } } });
    try {
      const job = (await s.get(`/jobs/${id}`)).body;
      assert.deepEqual(
        [job.clients[0].state, job.clients[0].outcome, job.finished !== null],
        ['failed', 'the server stopped before the agent answered', true],
      );
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();

import type { PluginEvents } from 'ogserve';
import type { Ending } from './outcome';
import type { FollowedJob, JobRecorder } from './recorder';

/** How a wake run's client ended, as a job's client; undefined for a state that ends nothing (`sent`). */
function endingOf(state: string, tries: number, reason: string | null): Ending | undefined {
  if (state === 'awake') return { state: 'done', status: null, outcome: 'woken: its agent connected' };
  if (state === 'wake_failed')
    return { state: 'failed', status: null, outcome: `its agent did not connect after ${tries} wake(s) (${reason ?? 'no_agent'})` };
  if (state === 'send_failed') return { state: 'failed', status: null, outcome: 'the magic packets could not be sent' };
  if (state === 'cancelled') return { state: 'failed', status: null, outcome: 'the wake run was cancelled' };
  return undefined;
}

/**
 * The wol plugin's wake runs as jobs of kind `wol` (params: the run's id and packet type),
 * heard through its run events: neither plugin requires the other, and without wol no such
 * event comes. A client the run leaves `sent` (wol.verify_s 0: not checked) is done when
 * the run ends.
 */
export function followWakeRuns(events: PluginEvents, recorder: JobRecorder): void {
  const jobs = new Map<number, Promise<FollowedJob | undefined>>();
  events.on(
    'wol.run.started',
    ({ run, type, who, source, clients }) => {
      const asker = who === null ? undefined : { name: who, source: source ?? '' };
      jobs.set(run, recorder.follow({ kind: 'wol', params: { run, type }, asker }, clients));
    },
    'record the wake run as a job',
  );
  // Each waits for the job's row; they were told in order and wait on one promise, so they end in order.
  events.on('wol.run.client', async ({ run, client, state, tries, reason }) => {
    const ending = endingOf(state, tries, reason);
    if (ending) (await jobs.get(run))?.end(client, ending);
  });
  // The request that started the run names its job in its audit entry.
  events.on('wol.run.asked', async ({ run, req, clients }) => {
    const job = await jobs.get(run);
    if (job) await events.tell('audit.details', { req, command: { job: job.id, kind: 'wol', clients } });
  });
  events.on('wol.run.finished', async ({ run }) => {
    const job = await jobs.get(run);
    jobs.delete(run);
    if (!job) return;
    for (const ip of job.running())
      job.end(ip, { state: 'done', status: null, outcome: 'magic packets sent (wol.verify_s 0: not checked)' });
  });
}

import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { TableScroll } from '../components/TableScroll';
import { csvRow, saveText } from '../csv';
import { t } from '../i18n';
import { enabled, may, useServer } from '../plugins';
import { go, href } from '../router';
import type { JobDetail } from '../types';
import { ImageTransfers } from './ImageTransfers';
import { JobProgress } from './JobProgress';
import { useJobEvents, type JobClientEvent } from './jobEvents';
import { jobPollMs } from './Jobs';

/** States a retry sends to again: the PCs that were sent the command and did not do it. */
const retried = new Set(['failed', 'timed_out']);

/** States after which a PC's part of the job is over. */
const ended = new Set(['done', 'failed', 'timed_out', 'skipped']);

/** The job with each PC's line as its latest `job.client` event (sent at `time`) tells it. */
function withClients(job: JobDetail, changes: Map<string, { change: JobClientEvent; time: string }>): JobDetail {
  const clients = job.clients.map((c) => {
    const changed = changes.get(c.addr);
    if (!changed) return c;
    const { change, time } = changed;
    const over = ended.has(change.state);
    return {
      ...c,
      state: change.state as typeof c.state,
      status: change.status,
      outcome: change.outcome,
      sent: c.sent ?? (over ? c.sent : time),
      ended: over ? (c.ended ?? time) : c.ended,
    };
  });
  return { ...job, clients };
}

/** One PC's line: drawn again only when that PC's part changes (a job may have thousands). */
const JobLine = memo(function JobLine(props: { line: JobDetail['clients'][number] }) {
  const c = props.line;
  return (
    <tr data-ip={c.addr} data-state={c.state}>
      <td>
        <a href={href('client', c.addr)}>{c.addr}</a>
      </td>
      <td class={`job-state job-${c.state}`}>{t(`jobState.${c.state}`)}</td>
      <td>{c.outcome}</td>
      <td>{c.sent ? new Date(c.sent).toLocaleTimeString() : ''}</td>
      <td>{c.ended ? new Date(c.ended).toLocaleTimeString() : ''}</td>
    </tr>
  );
});

/** One job (GET /jobs/<id>): each PC's state as it changes, a retry of the failed ones, a CSV of the lines. */
export function Job(props: { id: string }) {
  const info = useServer();
  const [job, setJob] = useState<JobDetail | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const load = () =>
    get<JobDetail>(`/jobs/${encodeURIComponent(props.id)}`).then(
      (answer) => {
        setJob(answer);
        setError(null);
      },
      (e: Error) => setError(e),
    );
  useEffect(() => {
    void load();
  }, [props.id]);
  // Each PC's line changes as its event arrives; the end of the job is read whole again.
  const pending = useRef(new Map<string, { change: JobClientEvent; time: string }>());
  const frame = useRef<number>();
  useEffect(() => () => cancelAnimationFrame(frame.current ?? 0), []);
  const live = useJobEvents(
    (event) => {
      const data = event.data as JobClientEvent;
      if (data?.job !== job?.id) return;
      if (event.type === 'job.client') {
        // Events come by the hundred a second in a big job: they are applied once per frame.
        pending.current.set(data.client, { change: data, time: event.time });
        frame.current ??= requestAnimationFrame(() => {
          frame.current = undefined;
          const changes = pending.current;
          pending.current = new Map();
          setJob((shown) => shown && withClients(shown, changes));
        });
      } else if (event.type === 'job.finished') void load();
    },
    () => void load(),
  );
  // Reloading the page loses nothing: the job is the server's. Without the event stream, a
  // running job is asked for again now and then.
  useEffect(() => {
    if (live || !job || job.finished !== null) return;
    const timer = setTimeout(() => void load(), jobPollMs);
    return () => clearTimeout(timer);
  }, [job, live]);

  if (!job) return <ErrorNote error={error} />;
  const failed = job.clients.filter((c) => retried.has(c.state)).map((c) => c.addr);
  const route = `/${job.kind}`;
  const canRetry = failed.length > 0 && job.params !== null && may(info, `POST ${route}`);
  const retry = async () => {
    try {
      const answer = await post<{ job?: number }>(route, { ...(job.params as object), clients: failed });
      if (answer.job !== undefined) go('job', String(answer.job));
    } catch (e) {
      setError(e as Error);
    }
  };
  const exportCsv = () => {
    const header = ['client', 'room', 'state', 'reason', 'status', 'outcome', 'sent', 'ended'];
    const lines = job.clients.map((c) =>
      csvRow([
        c.addr,
        String(c.room),
        c.state,
        c.reason,
        c.status === null ? '' : String(c.status),
        c.outcome,
        c.sent ?? '',
        c.ended ?? '',
      ]),
    );
    saveText(`${[csvRow(header), ...lines].join('\r\n')}\r\n`, `job-${job.id}.csv`, 'text/csv');
  };
  return (
    <section aria-labelledby="job-title" data-job={job.id} data-follow={live ? 'events' : 'poll'}>
      <h1 id="job-title">{t('job.title', { id: job.id, kind: job.kind })}</h1>
      <p>
        {t('job.asked', { who: job.who ?? '', time: new Date(job.created).toLocaleString() })}{' '}
        {job.finished && t('job.finishedAt', { time: new Date(job.finished).toLocaleString() })}
      </p>
      <JobProgress job={job} />
      {job.kind === 'image/restore' && enabled(info, 'images') && <ImageTransfers job={job.id} running={job.finished === null} />}
      <ErrorNote error={error} />
      <div class="buttons">
        {canRetry && (
          <button type="button" class="primary" onClick={() => void retry()}>
            {t('job.retry', { count: failed.length })}
          </button>
        )}
        <button type="button" onClick={exportCsv}>
          {t('fleet.exportCsv')}
        </button>
      </div>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('job.client')}</th>
              <th scope="col">{t('jobs.state')}</th>
              <th scope="col">{t('job.outcome')}</th>
              <th scope="col">{t('job.sent')}</th>
              <th scope="col">{t('job.ended')}</th>
            </tr>
          </thead>
          <tbody>
            {job.clients.map((c) => (
              <JobLine key={c.addr} line={c} />
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

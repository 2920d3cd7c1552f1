import { dateTime, timeOfDay } from '../format';
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post } from '../api';
import { getWholeJob } from './jobPages';
import { ErrorNote } from '../components/ErrorNote';
import { TableScroll } from '../components/TableScroll';
import { csvRow, saveText } from '../csv';
import { t } from '../i18n';
import { enabled, may, useServer } from '../plugins';
import { go, href } from '../router';
import { type JobDetail, jobStateNames } from '../types';
import { JobMulticast } from './JobMulticast';
import { ImageTransfers } from './ImageTransfers';
import { JobProgress } from './JobProgress';
import { useJobEvents, type JobClientEvent } from './jobEvents';
import { jobPollMs } from './Jobs';
import { askerText, kindLabel, outcomeText, whatText } from './jobWords';
import { fleet } from '../fleet/fleet';
import { useStore } from '../store';

/** States a retry sends to again: the PCs that were sent the command and did not do it. */
const retried = new Set(['failed', 'timed_out']);

/** The order of a job's lines: what went wrong first, where the next click is. */
const lineOrder: Record<string, number> = { failed: 0, timed_out: 1, skipped: 2, sent: 3, done: 4 };

/** Jobs made by a retry on this page, and the job they retried: the new page says so. */
const retries = new Map<number, number>();

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
      code: change.code ?? c.code,
      sent: c.sent ?? (over ? c.sent : time),
      ended: over ? (c.ended ?? time) : c.ended,
    };
  });
  return { ...job, clients };
}

/** What one PC printed (GET /jobs/<id>/output), read when first shown. */
function LineOutput(props: { job: number; ip: string }) {
  const [shown, setShown] = useState<{ output: string | null } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  return (
    <details
      class="line-output"
      onToggle={(e) => {
        if (!(e.currentTarget as HTMLDetailsElement).open || shown) return;
        get<{ output: string | null }>(`/jobs/${props.job}/output?client=${encodeURIComponent(props.ip)}`).then(setShown, setError);
      }}
    >
      <summary>{t('job.output')}</summary>
      <ErrorNote error={error} />
      {shown && (shown.output ? <pre class="output">{shown.output}</pre> : <p class="hint">{t('job.noOutput')}</p>)}
    </details>
  );
}

/**
 * What the job asked for, where (its rooms by name, as the tree names them), who or what
 * asked (a person, a key or token, a schedule, a power calendar) and when.
 */
function JobFacts(props: { job: JobDetail }) {
  const { job } = props;
  const { model } = useStore(fleet);
  const rooms = new Map<number, number>();
  for (const c of job.clients) rooms.set(c.room, (rooms.get(c.room) ?? 0) + 1);
  const roomName = (id: number) => {
    const room = model?.byKey.get(`room:${id}`);
    return room ? (room.parent?.type === 'center' ? `${room.name} (${room.parent.name})` : room.name) : t('job.unknownRoom');
  };
  const what = whatText(job.kind, job.params as Record<string, unknown> | null);
  return (
    <dl class="facts job-facts">
      {what && (
        <>
          <dt>{t('job.what')}</dt>
          <dd data-what>{what}</dd>
        </>
      )}
      <dt>{t('job.where')}</dt>
      <dd data-where>{[...rooms].map(([room, count]) => t('job.wherePcs', { rooms: roomName(room), count })).join('; ')}</dd>
      <dt>{t('job.who')}</dt>
      <dd data-who={job.who ?? ''}>{askerText(job.who, job.source)}</dd>
      <dt>{t('job.when')}</dt>
      <dd>
        {job.finished
          ? t('job.whenEnded', { start: dateTime(job.created), end: dateTime(job.finished) })
          : t('job.whenText', { start: dateTime(job.created) })}
      </dd>
    </dl>
  );
}

/** One PC's line: drawn again only when that PC's part changes (a job may have thousands). */
const JobLine = memo(function JobLine(props: { line: JobDetail['clients'][number]; job: number; output: boolean; name?: string }) {
  const c = props.line;
  return (
    <tr data-ip={c.addr} data-state={c.state} class={`line-${c.state}`}>
      <td>
        <a href={href('client', c.addr)}>{props.name ? `${props.name} (${c.addr})` : c.addr}</a>
      </td>
      <td class={`job-state job-${c.state}`}>{t(`jobState.${c.state}`)}</td>
      <td class={c.state === 'failed' || c.state === 'timed_out' ? `job-${c.state}` : undefined}>
        {outcomeText(c.outcome)}
        {props.output && c.code !== null && <LineOutput job={props.job} ip={c.addr} />}
      </td>
      <td data-code={c.code ?? undefined}>{c.code ?? ''}</td>
      <td>{c.sent ? timeOfDay(c.sent) : ''}</td>
      <td>{c.ended ? timeOfDay(c.ended) : ''}</td>
    </tr>
  );
});

/** One job (GET /jobs/<id>): each PC's state as it changes, a retry of the failed ones, a CSV of the lines. */
export function Job(props: { id: string }) {
  const info = useServer();
  const [job, setJob] = useState<JobDetail | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const load = () =>
    getWholeJob(props.id).then(
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

  const [only, setOnly] = useState('');
  const { model } = useStore(fleet);
  const [retry, setRetry] = useState<'sending' | { sent: number } | null>(null);
  if (!job) return <ErrorNote error={error} />;
  const failed = job.clients.filter((c) => retried.has(c.state)).map((c) => c.addr);
  const route = `/${job.kind}`;
  const canRetry = failed.length > 0 && job.params !== null && may(info, `POST ${route}`);
  const sendRetry = async () => {
    setRetry('sending');
    try {
      const answer = await post<{ job?: number; clients?: unknown[] }>(route, { ...(job.params as object), clients: failed });
      if (answer.job !== undefined) {
        retries.set(answer.job, job.id);
        setRetry(null);
        go('job', String(answer.job));
      } else setRetry({ sent: failed.length });
    } catch (e) {
      setRetry(null);
      setError(e as Error);
    }
  };
  const retryOf = retries.get(job.id);
  // Shell output is shown to whoever sees the script (the params): the same permission.
  const output = job.kind === 'shell/run' && job.params !== null;
  const names = model?.byIp ?? new Map<string, { name: string }>();
  const counts = new Map<string, number>();
  for (const c of job.clients) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
  const lines = job.clients.filter((c) => !only || c.state === only).sort((a, b) => (lineOrder[a.state] ?? 9) - (lineOrder[b.state] ?? 9));
  const exportCsv = () => {
    const header = ['client', 'room', 'state', 'reason', 'status', 'outcome', 'code', 'sent', 'ended'];
    const lines = job.clients.map((c) =>
      csvRow([
        c.addr,
        String(c.room),
        c.state,
        c.reason,
        c.status === null ? '' : String(c.status),
        c.outcome,
        c.code === null ? '' : String(c.code),
        c.sent ?? '',
        c.ended ?? '',
      ]),
    );
    saveText(`${[csvRow(header), ...lines].join('\r\n')}\r\n`, `job-${job.id}.csv`, 'text/csv');
  };
  return (
    <section aria-labelledby="job-title" data-job={job.id} data-follow={live ? 'events' : 'poll'}>
      <h1 id="job-title">{t('job.title', { id: job.id, kind: kindLabel(job.kind) })}</h1>
      {retryOf !== undefined && (
        <p>
          <a href={href('job', String(retryOf))}>{t('job.retryOf', { id: retryOf })}</a>
        </p>
      )}
      <JobFacts job={job} />
      <JobProgress job={job} />
      <JobMulticast job={job} />
      {job.kind === 'image/restore' && enabled(info, 'images') && <ImageTransfers job={job.id} running={job.finished === null} />}
      <ErrorNote error={error} />
      <div class="buttons">
        {canRetry && (
          <button type="button" class="primary" disabled={retry === 'sending'} onClick={() => void sendRetry()}>
            {t('job.retry', { count: failed.length })}
          </button>
        )}
        {retry && (
          <span role="status" class="saved">
            {retry === 'sending' ? t('job.retrying') : t('job.retriedNoJob', { count: retry.sent })}
          </span>
        )}
        <button type="button" onClick={exportCsv}>
          {t('fleet.exportCsv')}
        </button>
      </div>
      <fieldset class="chips bare">
        <legend class="sr-only">{t('job.showing')}</legend>
        <button type="button" class="chip" aria-pressed={only === ''} onClick={() => setOnly('')}>
          {t('job.all', { count: job.clients.length })}
        </button>
        {jobStateNames
          .filter((state) => counts.has(state))
          .map((state) => (
            <button
              key={state}
              type="button"
              class={`chip job-${state}`}
              data-show={state}
              aria-pressed={only === state}
              onClick={() => setOnly(only === state ? '' : state)}
            >
              {t(`jobState.${state}`)} {counts.get(state)}
            </button>
          ))}
      </fieldset>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('job.pc')}</th>
              <th scope="col">{t('jobs.state')}</th>
              <th scope="col">{t('job.outcome')}</th>
              <th scope="col">{t('job.exitCode')}</th>
              <th scope="col">{t('job.sent')}</th>
              <th scope="col">{t('job.ended')}</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((c) => (
              <JobLine key={c.addr} line={c} job={job.id} output={output} name={names.get(c.addr)?.name} />
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

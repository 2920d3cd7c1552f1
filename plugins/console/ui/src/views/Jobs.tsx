import { dateTime } from '../format';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { TableScroll } from '../components/TableScroll';
import { t } from '../i18n';
import { href } from '../router';
import { type JobSummary, jobStateNames } from '../types';
import { JobProgress } from './JobProgress';
import { useJobEvents } from './jobEvents';
import { askerText, kindLabel, knownKinds } from './jobWords';

/** How often a page with a running job asks again: the answer is small, a job's PCs end at their own pace. */
export const jobPollMs = 2000;
/** How often, at most, the list is read again while jobs' events arrive. */
const eventReloadMs = 500;

const filterNames = ['state', 'kind', 'who'] as const;
type Filters = Record<(typeof filterNames)[number], string>;

/** The jobs (GET /jobs): newest first, filtered by a PC's state, the command or who asked; running ones follow live. */
export function Jobs() {
  const [filters, setFilters] = useState<Filters>({ state: '', kind: '', who: '' });
  const [applied, setApplied] = useState<Filters>(filters);
  const [jobs, setJobs] = useState<JobSummary[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);

  const query = (before?: number) => {
    const q = new URLSearchParams();
    for (const name of filterNames) if (applied[name].trim()) q.set(name, applied[name].trim());
    if (before !== undefined) q.set('before', String(before));
    return `/jobs?${q}`;
  };
  const load = async (more = false) => {
    try {
      const page = await get<{ jobs: JobSummary[]; next: number | null }>(query(more ? (next ?? undefined) : undefined));
      setJobs(more ? [...(jobs ?? []), ...page.jobs] : page.jobs);
      if (!more || page.next === null || next !== null) setNext(page.next);
      setError(null);
    } catch (e) {
      setError(e as Error);
    }
  };
  useEffect(() => {
    void load();
  }, [applied]);
  // The first page follows the jobs' events (read again at most every half second, a job
  // over thousands of PCs sends thousands); pages loaded further stay as they are.
  const firstPage = (jobs?.length ?? 0) <= 50;
  const reload = useRef<{ timer?: ReturnType<typeof setTimeout>; load: () => void }>({ load: () => undefined });
  reload.current.load = () => void load();
  const live = useJobEvents(
    () => {
      if (!firstPage) return;
      reload.current.timer ??= setTimeout(() => {
        reload.current.timer = undefined;
        reload.current.load();
      }, eventReloadMs);
    },
    () => reload.current.load(),
  );
  useEffect(() => () => clearTimeout(reload.current.timer), []);
  // Without the event stream, the first page is asked for again while a job on it runs.
  const running = (jobs ?? []).some((job) => job.finished === null);
  useEffect(() => {
    if (live || !running || !firstPage) return;
    const timer = setInterval(() => void load(), jobPollMs);
    return () => clearInterval(timer);
  }, [live, running, applied, firstPage]);

  const labels: Filters = { state: t('jobs.state'), kind: t('jobs.kind'), who: t('jobs.who') };
  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">{t('nav.jobs')}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ ...filters });
        }}
      >
        <div class="form-grid">
          <Field
            label={labels.state}
            name="state"
            value={filters.state}
            onInput={(v) => setFilters({ ...filters, state: v })}
            options={[{ value: '', label: t('jobs.anyState') }, ...jobStateNames.map((s) => ({ value: s, label: t(`jobState.${s}`) }))]}
            error={error}
          />
          <Field
            label={labels.kind}
            name="kind"
            value={filters.kind}
            onInput={(v) => setFilters({ ...filters, kind: v })}
            options={[
              { value: '', label: t('jobs.anyState') },
              ...knownKinds(),
              // A plugin's own kinds, as the jobs listed name them.
              ...[...new Set((jobs ?? []).map((j) => j.kind))]
                .filter((kind) => !knownKinds().some((k) => k.value === kind))
                .map((kind) => ({ value: kind, label: kind })),
            ]}
            error={error}
          />
          <Field label={labels.who} name="who" value={filters.who} onInput={(v) => setFilters({ ...filters, who: v })} error={error} />
        </div>
        <ErrorNote error={error && !filterNames.includes(error.field as 'state') ? error : null} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('jobs.filter')}
          </button>
        </div>
      </form>
      {jobs && jobs.length === 0 && <p class="hint">{t('jobs.none')}</p>}
      {jobs && jobs.length > 0 && (
        <TableScroll>
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t('jobs.job')}</th>
                <th scope="col">{t('jobs.kind')}</th>
                <th scope="col">{t('jobs.who')}</th>
                <th scope="col">{t('jobs.created')}</th>
                <th scope="col">{t('jobs.progress')}</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <tr key={job.id} data-job={job.id}>
                  <td>
                    <a href={href('job', String(job.id))}>{job.id}</a>
                  </td>
                  <td>{kindLabel(job.kind)}</td>
                  <td>{askerText(job.who, job.source)}</td>
                  <td>{dateTime(job.created)}</td>
                  <td>
                    <JobProgress job={job} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {next !== null && (
        <button type="button" onClick={() => void load(true)}>
          {t('jobs.older')}
        </button>
      )}
    </section>
  );
}

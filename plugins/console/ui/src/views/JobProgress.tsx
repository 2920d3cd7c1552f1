import { t } from '../i18n';
import { type JobSummary, jobStateNames } from '../types';

/** A job's PCs by state, and a bar of those ended; "Running" until its last PC ends. */
export function JobProgress(props: { job: JobSummary }) {
  const { job } = props;
  const ended = job.total - (job.states.sent ?? 0);
  return (
    <span class="job-progress">
      <progress max={job.total} value={ended} aria-label={t('jobs.ended', { ended, total: job.total })} />{' '}
      {jobStateNames
        .filter((state) => (job.states[state] ?? 0) > 0)
        .map((state) => (
          <span key={state} class={`job-state job-${state}`} data-state={state}>
            {t(`jobState.${state}`)} {job.states[state]}
          </span>
        ))}
      {job.finished === null && <span class="job-running">{t('jobs.running')}</span>}
    </span>
  );
}

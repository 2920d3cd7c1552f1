import { t } from '../i18n';
import { type JobSummary, jobStateNames } from '../types';

/** The bar's segments, left to right: what ended well, what went wrong, what is still running. */
const barOrder = ['done', 'failed', 'timed_out', 'skipped', 'sent'] as const;

/**
 * A job's PCs by state, and a bar of them in the colours of their states (a job whose PCs all
 * failed is a red bar, not a full one); "Running" until its last PC ends.
 */
export function JobProgress(props: { job: JobSummary }) {
  const { job } = props;
  const ended = job.total - (job.states.sent ?? 0);
  const failed = (job.states.failed ?? 0) + (job.states.timed_out ?? 0);
  return (
    <span class="job-progress" data-failed={failed}>
      <span
        class="job-bar"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={job.total}
        aria-valuenow={ended}
        aria-valuetext={t('jobs.endedFailed', { ended, total: job.total, failed })}
        aria-label={t('jobs.progress')}
      >
        {barOrder
          .filter((state) => (job.states[state] ?? 0) > 0)
          .map((state) => (
            <span key={state} class={`bar-${state}`} style={{ width: `${(100 * (job.states[state] ?? 0)) / Math.max(1, job.total)}%` }} />
          ))}
      </span>{' '}
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

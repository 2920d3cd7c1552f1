import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api';
import { StateBadge } from '../components/StateBadge';
import { TableScroll } from '../components/TableScroll';
import { fleet, patchFleet } from '../fleet/fleet';
import { type StateName, stateNames, stateOf } from '../fleet/states';
import type { TreeNode } from '../fleet/tree';
import { t } from '../i18n';
import { enabled, may, useServer } from '../plugins';
import { go, href } from '../router';
import { useStore } from '../store';
import type { JobSummary } from '../types';
import { DashboardAttention } from './DashboardAttention';
import { DashboardBoots } from './DashboardBoots';
import { DashboardNewPcs } from './DashboardNewPcs';
import { FirstRun } from './FirstRun';
import { JobProgress } from './JobProgress';
import { useJobEvents } from './jobEvents';
import { jobPollMs } from './Jobs';
import { kindLabel } from './jobWords';

/** Open the fleet narrowed to the clients of `within` (a center's key; all when undefined) in `state`. */
function showFleet(state: StateName | undefined, within?: string): void {
  patchFleet({ query: '', filters: { states: new Set(state ? [state] : []), result: '', within, only: undefined } });
  go('fleet');
}

/**
 * The landing page: the fleet's clients by state in each center (each number opens the fleet
 * narrowed to them), and with the jobs plugin the jobs running and the last failures and
 * time-outs. It follows the same live states as the fleet.
 */
export function Dashboard() {
  const info = useServer();
  const { model, states } = useStore(fleet);
  const centers = model?.roots ?? [];
  const count = (node: TreeNode) => {
    const by = new Map<StateName, number>();
    for (const ip of node.clients) {
      const state = stateOf(states.get(ip)?.state);
      by.set(state, (by.get(state) ?? 0) + 1);
    }
    return by;
  };
  const totals = new Map<StateName, number>();
  const rows = centers.map((center) => {
    const by = count(center);
    for (const [state, n] of by) totals.set(state, (totals.get(state) ?? 0) + n);
    return { center, by };
  });
  const cell = (n: number | undefined, state: StateName, within?: string) =>
    n ? (
      <button type="button" class="link" data-count={state} onClick={() => showFleet(state, within)}>
        {n}
      </button>
    ) : (
      '0'
    );
  return (
    <section aria-labelledby="dashboard-title" class="dashboard">
      <h1 id="dashboard-title">{t('nav.dashboard')}</h1>
      <FirstRun />
      <h2>{t('dashboard.byState')}</h2>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('kind.center')}</th>
              {stateNames.map((state) => (
                <th scope="col" key={state}>
                  <StateBadge state={state} />
                </th>
              ))}
              <th scope="col">{t('dashboard.total')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ center, by }) => (
              <tr key={center.key} data-center={center.name}>
                <th scope="row">{center.name}</th>
                {stateNames.map((state) => (
                  <td key={state}>{cell(by.get(state), state, center.key)}</td>
                ))}
                <td>
                  <button type="button" class="link" onClick={() => showFleet(undefined, center.key)}>
                    {center.clients.length}
                  </button>
                </td>
              </tr>
            ))}
            <tr data-center="">
              <th scope="row">{t('dashboard.all')}</th>
              {stateNames.map((state) => (
                <td key={state}>{cell(totals.get(state), state)}</td>
              ))}
              <td>{model?.byIp.size ?? 0}</td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
      {enabled(info, 'enrol') && may(info, 'GET /discovered') && <DashboardNewPcs />}
      {enabled(info, 'jobs') && <JobLists />}
      <DashboardAttention />
      {enabled(info, 'boot') && <DashboardBoots />}
    </section>
  );
}

/** Jobs running, and the latest with a failed or timed-out PC: each links to its page. */
function JobLists() {
  const [lists, setLists] = useState<Record<'sent' | 'failed' | 'timed_out', JobSummary[]> | null>(null);
  const pending = useRef<ReturnType<typeof setTimeout>>();
  const load = async () => {
    const [sent, failed, timedOut] = await Promise.all(
      ['sent', 'failed', 'timed_out'].map((state) => get<{ jobs: JobSummary[] }>(`/jobs?state=${state}&limit=5`).then((p) => p.jobs)),
    ).catch(() => [[], [], []]);
    setLists({ sent: sent!, failed: failed!, timed_out: timedOut! });
  };
  // Read again as jobs' events arrive (at most every half second); without the stream, every few seconds.
  const live = useJobEvents(
    () => {
      pending.current ??= setTimeout(() => {
        pending.current = undefined;
        void load();
      }, 500);
    },
    () => void load(),
  );
  useEffect(() => {
    void load();
    if (live) return;
    const timer = setInterval(() => void load(), jobPollMs);
    return () => clearInterval(timer);
  }, [live]);
  useEffect(() => () => clearTimeout(pending.current), []);
  if (!lists) return null;
  const titles = { sent: t('dashboard.running'), failed: t('dashboard.failures'), timed_out: t('dashboard.timeouts') };
  return (
    <div class="dashboard-jobs" data-follow={live ? 'events' : 'poll'}>
      {(['sent', 'failed', 'timed_out'] as const).map((state) => (
        <section key={state} aria-labelledby={`jobs-${state}`} data-jobs={state}>
          <h2 id={`jobs-${state}`}>{titles[state]}</h2>
          {lists[state].length === 0 ? (
            <p class="hint">{t('dashboard.noJobs')}</p>
          ) : (
            <ul class="job-list">
              {lists[state].map((job) => (
                <li key={job.id} data-job={job.id}>
                  <a href={href('job', String(job.id))}>{t('job.title', { id: job.id, kind: kindLabel(job.kind) })}</a>{' '}
                  <JobProgress job={job} />
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
    </div>
  );
}

import { get, post } from '../api';
import { Store } from '../store';
import type { ClientListing } from '../types';

/** One client's line in an action's report: what the API answered, then what came of it. */
export interface RunRow {
  ip: string;
  /** sent, busy, not_connected, unknown, done, already_on, and the skip reasons of POST /wol. */
  outcome: string;
  /** success, failure, on, off; unset while waiting. */
  result?: string;
  /** Shell commands: the client's output and return code. */
  output?: string;
  retcode?: number;
  sawBusy?: boolean;
  updates: number;
}

/**
 * How a run learns its results: `command` from the client's state in GET /clients (busy, then
 * idle with last_cmd.result), `power` the client leaving, `wake` it connecting, `shell` from
 * POST /shell/output, `none` when the answer is the result (boot mode, inventory changes).
 */
export type Watch = 'command' | 'power' | 'wake' | 'shell' | 'none';

export interface Run {
  id: number;
  title: string;
  started: number;
  watch: Watch;
  rows: RunRow[];
  /** The job the server keeps of it (the jobs plugin): its page outlives this panel and a reload. */
  job?: number;
}

export const runs = new Store<Run[]>([]);
let nextRun = 0;
const keep = 10;

const waits = (row: RunRow) => row.outcome === 'sent' && row.result === undefined;

export function addRun(
  title: string,
  outcomes: { addr: string; outcome: string }[],
  watch: Watch,
  job?: number,
  /** A wake run (POST /wol's `run`): the job that follows it is looked up, the wake's report links to it. */
  wakeRun?: number | null,
): Run {
  const run: Run = {
    id: ++nextRun,
    title,
    started: Date.now(),
    watch,
    job,
    rows: outcomes.map((o) => ({ ip: o.addr, outcome: o.outcome, updates: 0 })),
  };
  runs.set([run, ...runs.value].slice(0, keep));
  if (watch === 'shell') void followShell(run);
  if (job === undefined && wakeRun) void findWakeJob(run, wakeRun);
  return run;
}

/**
 * A wake run's job (the jobs plugin makes one as the run starts, just after POST /wol answers):
 * the newest wake jobs are read a few times until one names the run.
 */
async function findWakeJob(run: Run, wakeRun: number): Promise<void> {
  for (let tries = 0; tries < 10 && runs.value.includes(run); tries++) {
    try {
      const { jobs } = await get<{ jobs: { id: number; params: { run?: number } | null }[] }>('/jobs?kind=wol&limit=20');
      const found = jobs.find((job) => job.params?.run === wakeRun);
      if (found) {
        run.job = found.id;
        runs.set([...runs.value]);
        return;
      }
    } catch {
      // No jobs plugin, or not readable: the report stays without a link.
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Move each waiting row on from a fresh GET /clients. */
export function trackStates(states: Map<string, ClientListing>): void {
  let changed = false;
  for (const run of runs.value) {
    if (run.watch === 'none' || run.watch === 'shell') continue;
    for (const row of run.rows) {
      if (!waits(row)) continue;
      row.updates++;
      const listing = states.get(row.ip);
      const before = row.result;
      if (run.watch === 'wake') {
        if (listing && listing.state !== 'WOL_SENT') row.result = 'on';
        else if (!listing && row.updates > 1) row.result = 'off';
      } else if (run.watch === 'power') {
        if (!listing) row.result = 'off';
      } else if (!listing) {
        row.result = 'off';
      } else if (listing.state === 'BSY') {
        row.sawBusy = true;
      } else if (row.sawBusy || row.updates >= 2) {
        row.result = listing.last_cmd.result;
      }
      changed ||= row.result !== before;
    }
  }
  if (changed) runs.set([...runs.value]);
}

/** Shell runs: read each client's output until every sent client has answered (or ten minutes passed). */
async function followShell(run: Run): Promise<void> {
  const since = Math.floor(run.started / 1000) - 1;
  const deadline = run.started + 10 * 60_000;
  while (run.rows.some(waits) && Date.now() < deadline && runs.value.includes(run)) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    try {
      const { clients } = await post<{ clients: { addr: string; retcode: number; output: string; timestamp: number }[] }>('/shell/output', {
        clients: run.rows.filter(waits).map((r) => r.ip),
      });
      for (const answer of clients) {
        const row = run.rows.find((r) => r.ip === answer.addr);
        if (!row || answer.timestamp < since) continue;
        row.output = answer.output;
        row.retcode = answer.retcode;
        row.result = answer.retcode === 0 ? 'success' : 'failure';
      }
      runs.set([...runs.value]);
    } catch {
      // The next round tries again.
    }
  }
}

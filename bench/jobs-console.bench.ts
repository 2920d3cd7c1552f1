import { fork } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { AgentLink } from '../plugins/agents';
import { type TestBrowser, launchBrowser } from '../test/support/browser';
import { addCenter, addRoom } from '../test/support/fixtures';
import { EventStreamClient } from '../test/support/event-stream';
import { TOKEN, startServer } from '../test/support/server';
import { insertClients, until } from './support/fleet';
import { percentile } from './support/load';
import { fmt, type BenchRow } from './support/report';

const clientCount = 10_000;
const jobSize = 2_000;
const rounds = 3;
/** Agents stay quiet this long after the job is sent, so the first paints are measured first. */
const quietMs = 45_000;
/** ...then answer, each at a random moment over this long. */
const spreadMs = 20_000;

/** The job's PCs: 127.1.x.y (y in 1..200), loopback sources their agents connect from. */
const agentAddress = (i: number) => `127.1.${Math.floor(i / 200)}.${(i % 200) + 1}`;
/** The rest of the fleet, switched off: 10.x addresses no agent uses. */
const otherAddress = (i: number) => `10.${Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`;

/**
 * A signed-in tab at `hash`; milliseconds from navigation start until, in one frame, each
 * selector of `drawn` matches at least its count of elements.
 */
async function firstPaint(browser: TestBrowser, url: string, hash: string, drawn: [string, number][]): Promise<{ page: Page; ms: number }> {
  const page = await browser.page();
  await page.addInitScript((key) => sessionStorage.setItem('ogserve.key', key), TOKEN);
  await page.goto(`${url}/console/${hash}`);
  await page.waitForFunction(
    (wanted) => {
      const w = window as unknown as { drawnAt?: number };
      if (wanted.every(([selector, count]) => document.querySelectorAll(selector).length >= count)) w.drawnAt ??= performance.now();
      return w.drawnAt !== undefined;
    },
    drawn,
    { polling: 'raf', timeout: 60_000 },
  );
  return { page, ms: await page.evaluate(() => (window as unknown as { drawnAt: number }).drawnAt) };
}

/** Median and maximum of a set of milliseconds. */
function figures(values: number[], goal: number): Record<string, string | number> {
  const sorted = [...values].sort((a, b) => a - b);
  return { median_ms: fmt(percentile(sorted, 0.5), 0), max_ms: fmt(sorted[sorted.length - 1]!, 0), goal_ms: goal };
}

/**
 * The console over 10,000 PCs while a refresh over 2,000 of them runs (fake agents in a child
 * process answering at their own pace), in Debian's Chromium: time to first paint of the
 * dashboard (with the job among the running ones), of the Jobs page (the job listed) and of
 * the job's page (all its lines); then, with the job's page open on the event stream, how
 * long after each agent wrote its answer the page showed that PC done, split at the moment a
 * reader of the event stream beside the page had the PC's event.
 */
export default async function jobsConsoleBench(): Promise<BenchRow[]> {
  const s = await startServer({ config: { log: { level: 'warn' }, rest: { max_response_bytes: 16 * 1024 * 1024 } } });
  const browser = await launchBrowser();
  let swarm: ReturnType<typeof fork> | undefined;
  try {
    const center = await addCenter(s, 'Bench');
    const rooms: number[] = [];
    for (let r = 0; r < clientCount / 100; r++) rooms.push(await addRoom(s, center, `Room ${r}`, '255.0.0.0'));
    const jobIps = Array.from({ length: jobSize }, (_, i) => agentAddress(i));
    const ips = [...jobIps, ...Array.from({ length: clientCount - jobSize }, (_, i) => otherAddress(i))];
    await insertClients(s, ips, (i) => rooms[Math.floor(i / 100)]!);

    const link = s.app.container.resolve(AgentLink);
    const child = fork(
      path.join(__dirname, 'support', 'paced-agents.js'),
      [String(link.port()), String(quietMs), String(spreadMs), ...jobIps],
      {
        stdio: 'inherit',
      },
    );
    swarm = child;
    await new Promise((resolve) => child.once('message', resolve));
    await until(() => link.listing().filter((c) => c.last_cmd.result === 'success' && c.state !== 'BSY').length >= jobSize, 120_000);

    const sent = await s.post('/refresh', { clients: jobIps });
    const job = sent.body.job as number;
    const url = `http://127.0.0.1:${s.port}`;
    const dashboard: number[] = [];
    const jobs: number[] = [];
    const jobPage: number[] = [];
    let open: Page | undefined;
    for (let round = 0; round < rounds; round++) {
      const d = await firstPaint(browser, url, '', [
        ['[data-count]', 1],
        [`[data-jobs=sent] a[href="#/job/${job}"]`, 1],
      ]);
      dashboard.push(d.ms);
      await d.page.context().close();
      const j = await firstPaint(browser, url, '#/jobs', [[`tr[data-job="${job}"]`, 1]]);
      jobs.push(j.ms);
      await j.page.context().close();
      const p = await firstPaint(browser, url, `#/job/${job}`, [['tr[data-ip]', jobSize]]);
      jobPage.push(p.ms);
      if (round < rounds - 1) await p.page.context().close();
      else open = p.page;
    }

    // A reader of the event stream beside the page: when the server told each PC done.
    const stream = await EventStreamClient.open(s.port, `types=job.client`);
    // Each PC's line, the moment the page showed it done.
    await open!.locator('section[data-follow=events]').waitFor({ timeout: 10_000 });
    await open!.evaluate(() => {
      const shown: Record<string, number> = {};
      (window as unknown as { shown: Record<string, number> }).shown = shown;
      new MutationObserver((changes) => {
        const now = Date.now();
        for (const change of changes) {
          const row = change.target as HTMLElement;
          if (row.dataset.state === 'done' && row.dataset.ip) shown[row.dataset.ip] ??= now;
        }
      }).observe(document.querySelector('tbody')!, { attributes: true, attributeFilter: ['data-state'], subtree: true });
    });
    await open!.waitForFunction((n) => document.querySelectorAll('tr[data-state=done]').length >= n, jobSize, {
      timeout: quietMs + spreadMs + 60_000,
      polling: 500,
    });
    const shown = await open!.evaluate(() => (window as unknown as { shown: Record<string, number> }).shown);
    const answered = await new Promise<Record<string, number>>((resolve) => {
      child.once('message', (m) => resolve((m as { answeredAt: Record<string, number> }).answeredAt));
      child.send('report');
    });
    swarm = undefined;
    stream.close();
    const told = new Map<string, number>();
    for (const e of stream.events) if (e.data.job === job && e.data.state === 'done') told.set(e.data.client, e.receivedAt);
    const serverLags = jobIps
      .filter((ip) => shown[ip] !== undefined && told.has(ip))
      .map((ip) => told.get(ip)! - answered[ip]!)
      .sort((a, b) => a - b);
    const pageLags = jobIps
      .filter((ip) => shown[ip] !== undefined && told.has(ip))
      .map((ip) => shown[ip]! - told.get(ip)!)
      .sort((a, b) => a - b);
    // Lines done before the observer was in place (the first paints took longer than the quiet time) are not measured.
    const lags = jobIps
      .filter((ip) => shown[ip] !== undefined)
      .map((ip) => shown[ip]! - answered[ip]!)
      .sort((a, b) => a - b);
    return [
      { workload: `console: dashboard of ${clientCount} PCs, first paint`, figures: figures(dashboard, 1000) },
      { workload: `console: Jobs page, first paint`, figures: figures(jobs, 1000) },
      { workload: `console: page of a job over ${jobSize} PCs, first paint`, figures: figures(jobPage, 1000) },
      {
        workload: `console: job page, answer to line shown`,
        figures: {
          p50_ms: fmt(percentile(lags, 0.5), 0),
          p99_ms: fmt(percentile(lags, 0.99), 0),
          max_ms: fmt(lags[lags.length - 1]!, 0),
          lines: lags.length,
          goal_ms: 100,
        },
      },
      {
        workload: `console: of which the server, answer to event read`,
        figures: { p50_ms: fmt(percentile(serverLags, 0.5), 0), p99_ms: fmt(percentile(serverLags, 0.99), 0), lines: serverLags.length },
      },
      {
        workload: `console: of which the page, event to line shown`,
        figures: { p50_ms: fmt(percentile(pageLags, 0.5), 0), p99_ms: fmt(percentile(pageLags, 0.99), 0), lines: pageLags.length },
      },
    ];
  } finally {
    swarm?.kill();
    await browser.close();
    await s.close();
  }
}

import type { Page } from 'playwright-core';
import { bulkClients } from '../test/console/site';
import { launchBrowser } from '../test/support/browser';
import { addCenter } from '../test/support/fixtures';
import { TOKEN, startServer } from '../test/support/server';
import { percentile } from './support/load';
import { fmt, type BenchRow } from './support/report';

const clientCount = 10_000;
const rounds = 5;
/** 1 center, 100 rooms of 100 clients. */
const treeRows = 1 + clientCount / 100 + clientCount;

/** Milliseconds from navigation start until the tree lists every node and shows its first client. */
async function timeToTree(page: Page, url: string): Promise<number> {
  await page.goto(`${url}/console/`);
  await page.waitForFunction(
    (rows) => {
      const w = window as unknown as { drawnAt?: number };
      if (document.querySelector('section.tree')?.getAttribute('data-rows') === String(rows) && document.querySelector('li.row.computer'))
        w.drawnAt ??= performance.now();
      return w.drawnAt !== undefined;
    },
    treeRows,
    { polling: 'raf', timeout: 60_000 },
  );
  return page.evaluate(() => (window as unknown as { drawnAt: number }).drawnAt);
}

/** Milliseconds from typing a query into search to the first frame that shows the filtered tree. */
async function timeToFilter(page: Page, query: string): Promise<number> {
  return page.evaluate(async (text) => {
    const input = document.querySelector<HTMLInputElement>('.search input')!;
    const before = document.querySelector('section.tree')!.getAttribute('data-rows');
    const started = performance.now();
    input.value = text;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    for (;;) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      if (document.querySelector('section.tree')!.getAttribute('data-rows') !== before) return performance.now() - started;
    }
  }, query);
}

async function clearSearch(page: Page): Promise<void> {
  await page.fill('.search input', '');
  await page.waitForFunction((rows) => document.querySelector('section.tree')?.getAttribute('data-rows') === String(rows), treeRows);
}

/**
 * The console with 10,000 clients in Debian's Chromium: time from navigation (signed in) to
 * the tree drawn, and from a keystroke in search to the filtered tree drawn, by name, by
 * address prefix (a tenth of the fleet) and by MAC. Medians and maxima over the rounds.
 */
export default async function consoleBench(): Promise<BenchRow[]> {
  const s = await startServer({
    config: { plugins: ['inventory', 'agents', 'console'], log: { level: 'warn' }, rest: { max_response_bytes: 16 * 1024 * 1024 } },
  });
  const browser = await launchBrowser();
  try {
    const center = await addCenter(s, 'Bench');
    await bulkClients({ s, center }, clientCount);
    const url = `http://127.0.0.1:${s.port}`;
    const navigation: number[] = [];
    const filters: Record<string, number[]> = { name: [], 'address prefix': [], mac: [] };
    const queries: Record<string, string> = { name: 'host04321', 'address prefix': '10.0.3', mac: '00:10:14:e1' };
    for (let round = 0; round < rounds; round++) {
      const page = await browser.page();
      await page.addInitScript((key) => sessionStorage.setItem('ogserve.key', key), TOKEN);
      navigation.push(await timeToTree(page, url));
      for (const [kind, query] of Object.entries(queries)) {
        filters[kind]!.push(await timeToFilter(page, query));
        await clearSearch(page);
      }
      await page.context().close();
    }
    const figures = (values: number[]) => ({
      median_ms: fmt(
        percentile(
          [...values].sort((a, b) => a - b),
          0.5,
        ),
        0,
      ),
      max_ms: fmt(Math.max(...values), 0),
    });
    return [
      { workload: `console: navigation to tree of ${clientCount} drawn`, figures: { ...figures(navigation), goal_ms: 1500 } },
      ...Object.entries(filters).map(([kind, values]) => ({
        workload: `console: filter ${clientCount} by ${kind}`,
        figures: { ...figures(values), goal_ms: 100 },
      })),
    ];
  } finally {
    await browser.close();
    await s.close();
  }
}

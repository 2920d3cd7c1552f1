// System needs: chromium
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';
/** Screenshots of the last run of the browser tests (git-ignored). */
export const screenshotDir = path.resolve(__dirname, '../../../var/test-output/console');

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (own storage), as a new user would open the console: 1280x900 and light unless told. */
  page(options?: { locale?: string; width?: number; dark?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Debian's Chromium, headless, with none of its own network traffic (the machine reaches no
 * outside host). Playwright gives each launch a fresh temporary profile and removes it on
 * close. Fails with the install command when Chromium is missing.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install -y chromium`);
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async page(options = {}) {
      const context = await browser.newContext({
        locale: options.locale ?? 'en-US',
        viewport: { width: options.width ?? 1280, height: 900 },
        colorScheme: options.dark ? 'dark' : 'light',
      });
      contexts.push(context);
      return context.newPage();
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's serious and critical findings on the page as it is now, each with where it is. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(() =>
    (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe.run().then((r) => r.violations),
  )) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/**
 * The suite runner (`npm test`): runs the uvu tests under a directory like `uvu DIR PATTERN`,
 * with the listen guard loaded first. Files another pass runs (engine-independent,
 * PostgreSQL-only) and files needing a program this machine lacks are not run, each named
 * with why, and the missing programs' apt-get command said once; under CI a missing program
 * fails the run instead (run-plan.ts, system-needs.ts). It makes sure the run ends:
 * - server-engine databases this run created and did not drop (a test failed before its
 *   cleanup) are dropped at the end, and on SIGINT/SIGTERM;
 * - when the tests are done but something they opened keeps the process alive (a server a
 *   failed test never closed), the run names what is open and exits with a failure instead
 *   of hanging.
 * Usage: node dist/test/support/run.js [DIR] [PATTERN]  (default: the compiled test folder, \.test\.js$)
 */
import './listen-guard';
import path from 'node:path';
import { isEngineIndependent } from './engine-independent';
import { planRun } from './run-plan';
import { shardFiles } from './shards';
import { SuiteTiming } from './suite-timing';
import { dropLeftoverTestDatabases, testEngine } from './test-db';
import { prepareTestRun } from './test-setup';

const { parse } = require('uvu/parse') as {
  parse(dir: string, pattern: string, opts: object): Promise<{ suites: { name: string; file: string }[] }>;
};

type Suite = { name: string; file: string };

/**
 * OGSERVE_TEST_SHARD=i/n runs the i-th (1-based) of n shares of the files the pass would run,
 * split by their usual time (shards.ts): CI runs the SQLite and MariaDB passes as two shards each.
 */
const shard = parseShard(process.env.OGSERVE_TEST_SHARD);

function parseShard(value: string | undefined): { index: number; count: number } | undefined {
  if (value === undefined || value === '') return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) throw new Error(`OGSERVE_TEST_SHARD must be i/n with 1 <= i <= n, not '${value}'`);
  return { index, count };
}
type UvuGlobals = { UVU_DEFER?: number; UVU_QUEUE: unknown[][]; UVU_INDEX?: number };

/**
 * What `uvu/run` does (queue every file's tests, then run them), with each file's time kept.
 * Engine-independent files run only in the SQLite pass; PostgreSQL-only files only in the
 * PostgreSQL pass; a file whose system needs this machine lacks is skipped, one line each, or
 * fails the run under CI (run-plan.ts). Answers false when the run failed before any test.
 */
async function run(suites: Suite[], root: string): Promise<boolean> {
  const uvuGlobals = globalThis as unknown as UvuGlobals;
  uvuGlobals.UVU_DEFER = 1;
  const uvu = require('uvu') as { exec(bail?: boolean): Promise<void> };
  const forEngine = testEngine === 'sqlite' ? suites : suites.filter((s) => !isEngineIndependent(s.file));
  const selected = shard
    ? shardFiles(forEngine, shard.index, shard.count, (s) => path.relative(root, s.file).split(path.sep).join('/'))
    : forEngine;
  const plan = planRun(selected, testEngine, root);
  if (plan.failure) {
    process.stderr.write(`${plan.failure}\n`);
    return false;
  }
  if (plan.lines.length) process.stdout.write(`${plan.lines.join('\n')}\n`);
  plan.run.forEach((suite, index) => {
    uvuGlobals.UVU_QUEUE.push([suite.name]);
    uvuGlobals.UVU_INDEX = index;
    require(suite.file);
  });
  const timing = new SuiteTiming();
  timing.wrap(uvuGlobals.UVU_QUEUE);
  await uvu.exec();
  process.stdout.write(timing.report());
  const skipped = suites.length - forEngine.length;
  if (skipped > 0) process.stdout.write(`  ${skipped} engine-independent file(s) left to the SQLite pass.\n`);
  if (shard) process.stdout.write(`  Shard ${shard.index} of ${shard.count}: ${selected.length} of ${forEngine.length} file(s).\n`);
  if (plan.skipped.length) process.stdout.write(`  ${plan.skipped.length} file(s) not run, each named with why before the first test.\n`);
  return true;
}

/** How long the process may stay alive after the last test before what is open counts as a leak. */
const lingerMs = 3000;

async function main(): Promise<void> {
  const [dir = path.resolve(__dirname, '..'), pattern = '\\.test\\.js$'] = process.argv.slice(2);
  process.env.FORCE_COLOR ??= '1';
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void dropLeftoverTestDatabases()
        .catch((error: unknown) => process.stderr.write(`could not drop test databases: ${(error as Error).message}\n`))
        .finally(() => process.exit(130));
    });
  }
  await prepareTestRun();
  const { suites } = await parse(dir, pattern, {});
  if (suites.length === 0) throw new Error(`no test file under ${dir} matches ${pattern}`);
  if (!(await run(suites, path.resolve(__dirname, '..')))) process.exit(1);
  await dropLeftoverTestDatabases();
  const timer = setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    process.stderr.write(`\nThe tests are done but left resources open (${open.join(', ')}): a test did not close what it started.\n`);
    process.exit(process.exitCode || 1);
  }, lingerMs);
  timer.unref();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});

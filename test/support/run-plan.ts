import { isPostgresqlOnly } from './engine-independent';
import { everyFileRequired, installCommand, NeedsCheck, NeedsReader, systemNeeds } from './system-needs';
import type { TestEngine } from './test-db';

type Suite = { name: string; file: string };

export interface RunPlan {
  /** The files to run. */
  run: Suite[];
  /** The files not run, each with its one-line reason. */
  skipped: { suite: Suite; why: string }[];
  /** What to print before the first test (and again, shorter, after the totals). */
  lines: string[];
  /** Why the run must fail before any test: a need missing where every file must run (CI). */
  failure?: string;
}

/**
 * Which of the files a pass selected run: a PostgreSQL-only file is skipped on the other
 * engines; a file whose system needs (system-needs.ts) this machine does not meet is skipped
 * with its reason, or, where every file must run (CI), the run fails naming what to install.
 */
export function planRun(selected: Suite[], engine: TestEngine, root: string, env: NodeJS.ProcessEnv = process.env): RunPlan {
  const reader = new NeedsReader(root);
  const check = new NeedsCheck(env);
  const plan: RunPlan = { run: [], skipped: [], lines: [] };
  const unmet = new Map<string, Suite[]>();
  for (const suite of selected) {
    if (engine !== 'postgresql' && isPostgresqlOnly(suite.file)) {
      plan.skipped.push({ suite, why: `runs on PostgreSQL only (OGSERVE_TEST_DB=postgresql; this pass is ${engine})` });
      continue;
    }
    const missing = reader.needsOf(suite.file).filter((name) => check.missing(name) !== undefined);
    if (missing.length === 0) {
      plan.run.push(suite);
      continue;
    }
    for (const name of missing) unmet.set(name, [...(unmet.get(name) ?? []), suite]);
    plan.skipped.push({ suite, why: missing.map((name) => check.missing(name)).join('; ') });
  }
  if (unmet.size === 0) {
    plan.lines = plan.skipped.map(({ suite, why }) => `  skipped ${suite.name}: ${why}`);
    return plan;
  }
  const names = [...unmet.keys()];
  const install = installCommand(names);
  if (everyFileRequired(env)) {
    const each = names.map((name) => {
      const files = unmet.get(name)!;
      const more = files.length > 1 ? ` and ${files.length - 1} more` : '';
      return `  ${name}: ${check.missing(name)} (needed by ${files[0]!.name}${more})`;
    });
    plan.failure = [
      'This machine cannot run every test file, and CI (CI or OGSERVE_TEST_PACKAGE=required) runs them all:',
      ...each,
      ...(install ? [`  to install: ${install}`] : []),
    ].join('\n');
    return plan;
  }
  const packaged = names.filter((name) => systemNeeds[name]!.packages.length > 0);
  plan.lines = [
    ...(packaged.length
      ? [
          `  Not on this machine: ${packaged.map((n) => check.missing(n)).join('; ')}. The files needing it are skipped; to run them: ${install}`,
        ]
      : []),
    ...plan.skipped.map(({ suite, why }) => `  skipped ${suite.name}: ${why}`),
  ];
  return plan;
}

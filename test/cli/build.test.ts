// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';

/**
 * `npm start` compiles only when a source changed (scripts/build.mjs --if-stale), so a start
 * with nothing changed does not wait for tsc. Checked on a small project of its own.
 */

const root = path.resolve(__dirname, '../../..');
const buildScript = path.join(root, 'scripts', 'build.mjs');

function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-build-'));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { outDir: 'dist', rootDir: '.', strict: true, target: 'ES2022', module: 'commonjs', types: [], incremental: true },
      include: ['src/**/*.ts'],
    }),
  );
  writeFileSync(path.join(dir, 'package.json'), '{}');
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'a.ts'), 'export const a: number = 1;\n');
  return dir;
}

/** Run the start's build step; answers its exit code and whether it compiled (and why). */
function buildIfStale(dir: string): { status: number | null; compiled: string | undefined } {
  const run = spawnSync(process.execPath, [buildScript, '--if-stale'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, compiled: /^build: compiling \((.*)\)$/m.exec(run.stderr)?.[1] };
}

/** Make a file look edited now, after the last build began (mtimes are what the check compares). */
function touch(file: string): void {
  const now = new Date();
  utimesSync(file, now, now);
}

test('npm start runs the build step that compiles only when stale', () => {
  const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.prestart, 'node scripts/build.mjs --if-stale', 'prestart');
  assert.equal(scripts.start, 'exec node dist/cli/main.js', 'start runs the compiled program in place of the shell npm runs it with');
});

test('compiles the first time, not again while nothing changed, again when a source, a folder or tsconfig changes', () => {
  const dir = project();
  try {
    assert.deepEqual(buildIfStale(dir), { status: 0, compiled: 'no earlier build' }, 'first build');
    assert.ok(existsSync(path.join(dir, 'dist', 'src', 'a.js')), 'compiled output');
    assert.deepEqual(buildIfStale(dir), { status: 0, compiled: undefined }, 'nothing changed: no compile');

    touch(path.join(dir, 'src', 'a.ts'));
    assert.deepEqual(buildIfStale(dir), { status: 0, compiled: 'src/a.ts changed' }, 'an edited source');
    assert.deepEqual(buildIfStale(dir), { status: 0, compiled: undefined }, 'then up to date again');

    mkdirSync(path.join(dir, 'src', 'sub'));
    writeFileSync(path.join(dir, 'src', 'sub', 'b.ts'), 'export const b = 2;\n');
    assert.equal(buildIfStale(dir).compiled, 'src changed', 'a new file in a new folder');
    assert.ok(existsSync(path.join(dir, 'dist', 'src', 'sub', 'b.js')), 'the new file compiled');

    // A rename keeps the file's own time; its folder's time moves.
    renameSync(path.join(dir, 'src', 'sub', 'b.ts'), path.join(dir, 'src', 'sub', 'c.ts'));
    assert.equal(buildIfStale(dir).compiled, 'src/sub changed', 'a renamed file');

    touch(path.join(dir, 'tsconfig.json'));
    assert.equal(buildIfStale(dir).compiled, 'tsconfig.json changed', 'the compiler options');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failed compile exits non-zero and is retried by the next start', () => {
  const dir = project();
  try {
    assert.equal(buildIfStale(dir).status, 0, 'first build');
    writeFileSync(path.join(dir, 'src', 'a.ts'), 'export const a: number = "one";\n');
    const failed = buildIfStale(dir);
    assert.notEqual(failed.status, 0, 'the type error fails the start');
    assert.equal(buildIfStale(dir).compiled, 'src/a.ts changed', 'still stale: compiled again');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

#!/usr/bin/env node
// Compile the TypeScript sources (tsc -p tsconfig.json) of the project in the working
// directory. With --if-stale (what `npm start` runs first) it compiles only when something
// tsc reads changed since the last build: a fresh start then answers in about a second
// instead of waiting for tsc to find that nothing changed.
//
// "Changed" is judged by modification times against dist/.build-stamp, written after each
// successful build with the time the build began: a source or folder under the roots of
// tsconfig's `include`, tsconfig.json, package.json or package-lock.json newer than the stamp
// (a folder's time moves when a file in it is added, removed or renamed).
//
// Then, every time, each bundled plugin's own asset build (plugins/<name>/ui/build.mjs, the
// console's browser code): those steps judge their own staleness from their sources.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = process.cwd();
const tsconfigFile = path.join(root, 'tsconfig.json');
const tsconfig = JSON.parse(readFileSync(tsconfigFile, 'utf8'));
const outDir = path.resolve(root, tsconfig.compilerOptions?.outDir ?? 'dist');
const stamp = path.join(outDir, '.build-stamp');

function mtimeOf(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The first input newer than `since`, as a path relative to the project, or undefined. */
function changedSince(since) {
  for (const file of ['tsconfig.json', 'package.json', 'package-lock.json']) {
    const mtime = mtimeOf(path.join(root, file));
    if (mtime !== undefined && mtime > since) return file;
  }
  const roots = [...new Set((tsconfig.include ?? []).map((pattern) => pattern.split('/')[0]))];
  const pending = roots.map((r) => path.join(root, r));
  while (pending.length > 0) {
    const dir = pending.pop();
    const mtime = mtimeOf(dir);
    if (mtime === undefined) continue;
    if (mtime > since) return path.relative(root, dir) || '.';
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.name.endsWith('.ts') && statSync(full).mtimeMs > since) return path.relative(root, full);
    }
  }
  return undefined;
}

const ifStale = process.argv.includes('--if-stale');
const stampTime = mtimeOf(stamp);
const changed = stampTime === undefined ? 'no earlier build' : changedSince(stampTime);

/** Each plugin's asset build, in name order; a failure stops the build with its exit code. */
function buildPluginAssets() {
  const pluginsDir = path.join(root, 'plugins');
  if (mtimeOf(pluginsDir) === undefined) return;
  for (const name of readdirSync(pluginsDir).sort()) {
    const script = path.join(pluginsDir, name, 'ui', 'build.mjs');
    if (mtimeOf(script) === undefined) continue;
    const step = spawnSync(process.execPath, [script], { stdio: 'inherit' });
    if (step.status !== 0) process.exit(step.status ?? 1);
  }
}

if (ifStale && changed === undefined) {
  buildPluginAssets();
  process.exit(0);
}
if (ifStale) process.stderr.write(`build: compiling (${changed === 'no earlier build' ? changed : `${changed} changed`})\n`);

const began = new Date();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', tsconfigFile], { stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
mkdirSync(outDir, { recursive: true });
closeSync(openSync(stamp, 'a'));
utimesSync(stamp, began, began);
buildPluginAssets();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';

/**
 * What `npm install` may run on an appliance: npm 11 runs a dependency's install script
 * only when package.json's `allowScripts` approves it, older npm runs them all. Every
 * dependency with one is decided on here, and the analytics one is refused both ways.
 */

const checkout = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
  scarfSettings?: { enabled?: boolean; skipTraversal?: boolean };
};
const lock = JSON.parse(readFileSync(path.join(checkout, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

test('every locked dependency with an install script is approved or denied in allowScripts', () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([key, entry]) => key !== '' && entry.hasInstallScript)
    .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.includes('sqlite3'), 'the lockfile is read (sqlite3 builds at install)');
  const undecided = withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean');
  assert.deepEqual(undecided, [], 'decide in allowScripts (npm install-scripts approve|deny)');
});

test("swagger-ui-dist's analytics (@scarf/scarf) never runs: denied, and opted out for npm versions that run every script", () => {
  assert.equal(pkg.allowScripts?.['@scarf/scarf'], false, 'denied in allowScripts');
  assert.equal(pkg.scarfSettings?.enabled, false, 'scarfSettings.enabled');
  // Without it scarf first runs `npm ls` over the whole tree to find who depends on it.
  assert.equal(pkg.scarfSettings?.skipTraversal, true, 'scarfSettings.skipTraversal');
});

test('what the build needs may run its install script: sqlite3 (its binding) and esbuild (its binary)', () => {
  assert.equal(pkg.allowScripts?.sqlite3, true);
  assert.equal(pkg.allowScripts?.esbuild, true);
});

test.run();

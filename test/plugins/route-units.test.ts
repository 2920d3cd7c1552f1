// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';

/**
 * One unit of work per request: a route handler works in the EntityManager its request
 * context holds (`ctx.em`, or a transaction), never in one it forks itself, so what one
 * request reads and writes is one session.
 */
const pluginsDir = path.resolve(__dirname, '..', '..', '..', 'plugins');

const registersRoutes = /\brouter\.(get|post|delete)\(/;
const forks = /\.fork\(\)/;

/** The lines (1-based) of a file that registers routes where it forks an EntityManager of its own. */
function bareForks(source: string): number[] {
  if (!registersRoutes.test(source)) return [];
  return source.split('\n').flatMap((line, i) => (forks.test(line) && !line.trim().startsWith('//') ? [i + 1] : []));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'public' ? [] : sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('the check finds a fork in a file that registers routes, and only there', () => {
  const route = "router.post('/x', spec, async ({ body }) => {\n  const em = db.fork();\n  await em.flush();\n});";
  assert.deepEqual(bareForks(route), [2]);
  assert.deepEqual(bareForks(route.replace('db.fork()', 'ctx.em')), []);
  assert.deepEqual(bareForks('export async function prune(db) {\n  return db.fork().nativeDelete(E, {});\n}'), []);
});

test("no file of a plugin that registers routes forks an EntityManager: handlers use their request's", () => {
  const files = sources(pluginsDir);
  assert.ok(files.filter((f) => registersRoutes.test(readFileSync(f, 'utf8'))).length >= 15, 'the route files were found');
  const found = files.flatMap((file) => bareForks(readFileSync(file, 'utf8')).map((line) => `${path.relative(pluginsDir, file)}:${line}`));
  assert.deepEqual(found, []);
});

test.run();

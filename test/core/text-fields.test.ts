// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import type { TSchema } from '@sinclair/typebox';
import { test } from 'uvu';
import { withServer } from '../support/server';
import { allPlugins } from '../support/import-target';

/**
 * Every string a request body may carry is held to a rule: a format (names, free text,
 * addresses), a pattern or a fixed set of values. Free text without one would take ESC, BEL
 * or C1 controls into the database and from there into logs and terminals. The strings
 * below are taken as they come on purpose, each for its reason.
 */
const unruled = new Map<string, string>([
  ['POST /wol clients[]', 'addresses looked up; a malformed one is skipped, as the reference does'],
  ['POST /shell/run run', 'a script relayed to the agents, whose lines and tabs are its own'],
  ['POST /live/set name', 'a live directory looked up; an unknown one means the default'],
  ['POST /oglive/set name', 'the older path of /live/set'],
  ['POST /live/delete name', 'a live directory looked up in the catalogue'],
  ['POST /mode mode', 'a boot mode looked up among the templates'],
  ['POST /image/restore name', 'compared with the image’s own name'],
  ['POST /image/restore type', 'one of the restore methods, in any case (the command checks it)'],
  ['POST /tokens name', 'the token store checks it (letters, digits, . _ -)'],
  ['POST /tokens role', 'one of the roles (the token store checks it)'],
  ['POST /tokens expires', 'a duration the token store reads (30d, 12h, 90m)'],
  ['DELETE /tokens name', 'a token looked up by name'],
  ['POST /procedure/add steps[].command', 'a command looked up in the scheduler’s steps'],
  ['POST /procedure/update steps[].command', 'a command looked up in the scheduler’s steps'],
  ['POST /task/add steps[].command', 'a command looked up in the scheduler’s steps'],
  ['POST /schedule/command command', 'a command looked up in the scheduler’s steps'],
]);

/** The string fields of `schema` without a rule, as `path` (array items as `[]`). */
function unruledStrings(schema: TSchema, at: string): string[] {
  const s = schema as Record<string, unknown>;
  const nested: string[] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const option of (s[key] as TSchema[] | undefined) ?? []) nested.push(...unruledStrings(option, at));
  }
  if (s.type === 'object' && s.properties) {
    for (const [name, property] of Object.entries(s.properties as Record<string, TSchema>))
      nested.push(...unruledStrings(property, at ? `${at}.${name}` : name));
  }
  if (s.type === 'array' && s.items) nested.push(...unruledStrings(s.items as TSchema, `${at}[]`));
  const ruled = s.format !== undefined || s.pattern !== undefined || s.const !== undefined || s.enum !== undefined || s.allOf !== undefined;
  if (s.type === 'string' && !ruled) nested.push(at);
  return nested;
}

test('every string field of every request body of every bundled plugin has a rule, or a reason not to', () =>
  withServer(
    async (s) => {
      const found: string[] = [];
      for (const route of s.app.routeTable) {
        if (!route.body) continue;
        for (const field of unruledStrings(route.body, '')) found.push(`${route.method} ${route.path} ${field}`);
      }
      const unexplained = found.filter((f) => !unruled.has(f));
      assert.deepEqual(unexplained, [], 'string fields that take any text');
      const stale = [...unruled.keys()].filter((f) => !found.includes(f));
      assert.deepEqual(stale, [], 'reasons for fields that no longer take any text');
    },
    { config: { plugins: [...allPlugins, 'events', 'tokens', 'audit', 'metrics', 'openapi'] } },
  ));

test('names and free text outside the inventory follow the same rule: comments and descriptions may run over lines', () =>
  withServer(
    async (s) => {
      const center = (await s.post('/center/add', { name: 'Campus' })).body.id;
      const clearScreen = await s.post('/procedure/add', { center, name: 'Wipe', description: 'erase \u001b[2J all' });
      assert.equal(clearScreen.status, 400, clearScreen.text);
      assert.equal(clearScreen.body.field, 'description');
      const lines = await s.post('/procedure/add', { center, name: 'Wipe', description: 'step 1\r\n\tstep 2' });
      assert.equal(lines.status, 200, lines.text);
      const bell = await s.post('/live/add', { name: 'ogLive-x', distribution: 'jammy\u0007' });
      assert.equal(bell.status, 400, bell.text);
      assert.equal(bell.body.field, 'distribution');
    },
    { config: { plugins: allPlugins } },
  ));

test.run();

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer } from '../../support/server';

/** Every inventory route; the fuzzer throws random bodies at each. */
const routes: [string, string][] = [
  ['POST', '/center/add'],
  ['POST', '/center/delete'],
  ['POST', '/center/update'],
  ['GET', '/center/info'],
  ['POST', '/room/add'],
  ['POST', '/room/delete'],
  ['POST', '/room/update'],
  ['GET', '/room/info'],
  ['POST', '/folder/add'],
  ['POST', '/folder/delete'],
  ['POST', '/folder/update'],
  ['POST', '/client/add'],
  ['POST', '/client/update'],
  ['POST', '/client/delete'],
  ['POST', '/client/move'],
  ['POST', '/client/repo'],
  ['POST', '/client/server'],
  ['GET', '/client/info'],
  ['GET', '/client/setup'],
  ['GET', '/repositories'],
  ['POST', '/repository/add'],
  ['POST', '/repository/update'],
  ['POST', '/repository/delete'],
  ['GET', '/server'],
  ['POST', '/server'],
  ['DELETE', '/server'],
  ['GET', '/scopes'],
];

const fieldNames = [
  'id',
  'name',
  'comment',
  'center',
  'room',
  'netmask',
  'gateway',
  'folder_id',
  'group',
  'ip',
  'mac',
  'clients',
  'client',
  'repo_id',
  'server_id',
  'boot',
  'livedir',
  'remote',
  'maintenance',
  'port',
  '__proto__',
];

/** Plausible values: the right shapes often, the wrong ones often too. */
const value = fc.oneof(
  fc.integer({ min: -2, max: 70000 }),
  fc.constantFrom(
    '1',
    '0',
    '10.0.0.1',
    '255.255.255.0',
    '020000000001',
    '',
    'x'.repeat(300),
    "'; drop table clients;--",
    '../../etc/passwd',
    '\u0000',
    'ñ',
  ),
  fc.ipV4(),
  fc.array(fc.oneof(fc.ipV4(), fc.string(), fc.integer()), { maxLength: 4 }),
  fc.boolean(),
  fc.constant(null),
  fc.double(),
  fc.string({ maxLength: 40 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 60 }),
  fc.constant(undefined),
);

test('random bodies at every inventory route never crash the server nor answer 5xx', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.1', '020000000001');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async ([method, path], payload) => {
        const r = await s.request(method, path, payload);
        assert.ok(r.status < 500, `${method} ${path} ${payload} -> ${r.status} ${r.text}`);
        assert.ok(r.body && typeof r.body === 'object', `${method} ${path}: JSON object answer`);
      }),
      { numRuns: 1500, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    assert.equal((await s.get('/scopes')).status, 200, 'server still answers');
  }));

test.run();

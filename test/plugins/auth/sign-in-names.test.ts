// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ManualClock } from '../../../testing';
import { AuthClock } from '../../../plugins/auth';
import { eventually } from '../../support/fake-agent';
import { startServer, type TestServer } from '../../support/server';
import { startSlapd } from '../../support/slapd';
import { addUser, login, passwordOf, signIn } from './people';
// After the server's imports, which load the reflection tsyringe needs.
import { container as rootContainer } from 'tsyringe';

const suffix = 'dc=example,dc=test';
const people = `ou=people,${suffix}`;
const groups = `ou=groups,${suffix}`;
const directory = [
  `dn: ou=people,${suffix}\nobjectClass: organizationalUnit\nou: people\n`,
  `dn: ou=groups,${suffix}\nobjectClass: organizationalUnit\nou: groups\n`,
  `dn: uid=alice,${people}\nobjectClass: inetOrgPerson\nuid: alice\ncn: alice\nsn: Test\nuserPassword: alice-directory-pw\n`,
  `dn: cn=admins,${groups}\nobjectClass: groupOfNames\ncn: admins\nmember: uid=alice,${people}\n`,
].join('\n');

/** The directory compares uid without regard to case or surrounding spaces: each of these finds alice. */
const spellings = ['ALICE', ' alice', 'alice ', ' Alice  '];

/** Each attempt from an address of its own (through a trusted proxy), so that only the name's count can slow one. */
let nextAddress = 1;
const fromElsewhere = () => ({ 'X-Forwarded-For': `198.51.100.${nextAddress++}` });

/** A server trusting this host as its proxy, its throttle's clock held still, audit entries written within moments. */
async function server(auth: Record<string, unknown>): Promise<TestServer> {
  const services = rootContainer.createChildContainer();
  services.register(AuthClock, { useValue: new ManualClock(Date.UTC(2026, 10, 27, 9)) });
  return startServer({
    container: services,
    config: { rest: { trusted_proxies: ['127.0.0.1'] }, audit: { flush_ms: 20 }, auth: { free_failures: 2, ...auth } },
  });
}

/** Who the audit log says made each change, once they are written. */
async function auditedNames(s: TestServer, changes: number): Promise<string[]> {
  let names: string[] = [];
  await eventually(async () => {
    names = ((await s.get('/audit?path=/center/add')).body.entries as { token: string }[]).map((entry) => entry.token);
    return names.length === changes;
  }, `${changes} audit entries`);
  return names;
}

test('a directory name in another case or with spaces around it is the same person: one session name, one audit name, one throttle', async () => {
  const slapd = await startSlapd();
  try {
    await slapd.add(directory);
    const s = await server({
      ldap: {
        url: slapd.url,
        bind_dn: slapd.adminDn,
        bind_password: slapd.adminPassword,
        user_base: people,
        group_base: groups,
        groups: { [`cn=admins,${groups}`]: { role: 'admin' } },
      },
    });
    try {
      for (const [i, spelling] of spellings.entries()) {
        const alice = await signIn(s.port, spelling, 'alice-directory-pw');
        assert.deepEqual([alice.answer.body.name, alice.answer.body.username], ['alice@ldap', 'alice'], JSON.stringify(spelling));
        assert.equal((await alice.request('GET', '/auth/me')).body.name, 'alice@ldap', JSON.stringify(spelling));
        assert.equal((await alice.request('POST', '/center/add', { name: `center ${i}` })).status, 200);
      }
      assert.deepEqual(await auditedNames(s, spellings.length), Array(spellings.length).fill('alice@ldap'));

      for (let i = 0; i < 3; i++) assert.equal((await login(s.port, 'alice', 'a-guess', fromElsewhere())).status, 401);
      for (const spelling of spellings) {
        const slowed = await login(s.port, spelling, 'alice-directory-pw', fromElsewhere());
        assert.equal(slowed.status, 429, `${JSON.stringify(spelling)} is counted with alice: ${slowed.text}`);
      }
      assert.equal((await login(s.port, 'bob', 'a-guess', fromElsewhere())).status, 401, 'another name is not slowed');
    } finally {
      await s.close();
    }
  } finally {
    await slapd.close();
  }
});

test('a local name signs in whatever its case and the spaces around it, as the name it was made with', async () => {
  const s = await server({});
  try {
    await addUser(s, 'Ana', 'admin');
    for (const [i, spelling] of ['ana', ' ANA', 'Ana  '].entries()) {
      const ana = await signIn(s.port, spelling, passwordOf('Ana'));
      assert.deepEqual([ana.answer.body.name, ana.answer.body.username], ['Ana@local', 'Ana'], JSON.stringify(spelling));
      assert.equal((await ana.request('POST', '/center/add', { name: `center ${i}` })).status, 200);
    }
    assert.deepEqual(await auditedNames(s, 3), ['Ana@local', 'Ana@local', 'Ana@local']);

    for (let i = 0; i < 3; i++) assert.equal((await login(s.port, 'ana', 'a-guess', fromElsewhere())).status, 401);
    const slowed = await login(s.port, 'ana ', passwordOf('Ana'), fromElsewhere());
    assert.equal(slowed.status, 429, `a trailing space is counted with ana: ${slowed.text}`);
    const blank = await login(s.port, '   ', 'a-guess');
    assert.deepEqual([blank.status, blank.body.field], [400, 'username'], 'a name of spaces only is no name');
  } finally {
    await s.close();
  }
});

test.run();

// Engine-independent: runs once, on SQLite.
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'ldapts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LdapDirectory, type LdapSettings } from '../../../plugins/auth/ldap-directory';
import { makeTestCa } from '../../support/certificates';
import { freePort } from '../../support/child-server';
import { type Slapd, type SlapdOptions, startSlapd } from '../../support/slapd';

const suffix = 'dc=example,dc=test';
const people = `ou=people,${suffix}`;
const groups = `ou=groups,${suffix}`;
const aliceDn = `uid=alice,${people}`;
const group = (name: string) => `cn=${name},${groups}`;
/** A uid made of the filter characters RFC 4515 escapes (but NUL), plus "$&" (special in String.replace). */
const oddUid = 'w*(1)\\$&';

const entry = (dn: string, ...lines: string[]) => `dn: ${dn}\n${lines.join('\n')}\n`;
const person = (dn: string, uid: string, password: string) =>
  entry(dn, 'objectClass: inetOrgPerson', `uid: ${uid}`, `cn: ${uid}`, 'sn: Test', `userPassword: ${password}`);
const groupOf = (name: string, ...members: string[]) =>
  entry(group(name), 'objectClass: groupOfNames', `cn: ${name}`, ...members.map((m) => `member: ${m}`));
const ou = (name: string) => entry(`ou=${name},${suffix}`, 'objectClass: organizationalUnit', `ou: ${name}`);

const reader = entry(
  `cn=reader,ou=services,${suffix}`,
  'objectClass: organizationalRole',
  'objectClass: simpleSecurityObject',
  'cn: reader',
  'userPassword: reader-pw',
);

/** People, a service account, two entries with the same uid, and groups: alice in admins, admins and staff members of each other. */
const directory = [
  ou('people'),
  ou('contractors'),
  ou('groups'),
  ou('services'),
  reader,
  person(aliceDn, 'alice', 'alice-pw'),
  person(`uid=bob,${people}`, 'bob', 'bob-pw'),
  entry(`cn=odd,${people}`, 'objectClass: inetOrgPerson', `uid: ${oddUid}`, 'cn: odd', 'sn: Test', 'userPassword: odd-pw'),
  person(`uid=dup,${people}`, 'dup', 'dup-pw'),
  person(`uid=dup,ou=contractors,${suffix}`, 'dup', 'dup-pw'),
  groupOf('admins', aliceDn, group('staff')),
  groupOf('staff', group('admins')),
  groupOf('operators', `uid=bob,${people}`),
].join('\n');

function settings(s: Slapd, extra: Partial<LdapSettings> = {}): LdapSettings {
  return {
    url: s.url,
    bind_dn: `cn=reader,ou=services,${suffix}`,
    bind_password: 'reader-pw',
    user_base: people,
    user_filter: '(uid={username})',
    group_base: groups,
    group_filter: '(member={dn})',
    timeout_ms: 2000,
    ...extra,
  };
}

function recordingLog() {
  const warnings: string[] = [];
  return { warnings, warn: (_obj: object, msg: string) => void warnings.push(msg) };
}

/** A slapd seeded with `directory` (or `seed`), closed whatever the test does. */
async function withSlapd(fn: (s: Slapd) => Promise<void>, options: SlapdOptions = {}, seed = directory): Promise<void> {
  const s = await startSlapd(options);
  try {
    await s.add(seed);
    await fn(s);
  } finally {
    await s.close();
  }
}

/** A loopback server that accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; close(): void }> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ldap://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    for (const socket of sockets) socket.destroy();
    server.close();
  };
  return { url, close };
}

test('normaliseDn lower-cases and drops the spaces between RDNs, keeping escaped commas', () => {
  assert.is(LdapDirectory.normaliseDn('CN=Lab Admins, OU=Groups , DC=Example,DC=Test'), 'cn=lab admins,ou=groups,dc=example,dc=test');
  assert.is(LdapDirectory.normaliseDn('cn = Doe\\, John,dc=test'), 'cn=doe\\, john,dc=test', 'an escaped comma is not a separator');
});

test('the right password signs in, with the DN and the groups as normalised DNs', () =>
  withSlapd(async (s) => {
    const answer = await new LdapDirectory(settings(s)).authenticate('bob', 'bob-pw');
    assert.equal(answer, { outcome: 'ok', dn: `uid=bob,${people}`, groups: [group('operators')] });
    const anonymous = await new LdapDirectory(settings(s, { bind_dn: undefined, bind_password: undefined })).authenticate('bob', 'bob-pw');
    assert.is(anonymous.outcome, 'ok', 'anonymous search works too');
    assert.is(
      LdapDirectory.normaliseDn('CN=Operators, OU=Groups, DC=Example, DC=Test'),
      group('operators'),
      'configured DNs compare equal',
    );
  }));

test('a wrong password is wrong-password, an unknown user unknown-user', () =>
  withSlapd(async (s) => {
    const ldap = new LdapDirectory(settings(s));
    assert.equal(await ldap.authenticate('alice', 'bob-pw'), { outcome: 'wrong-password' });
    assert.equal(await ldap.authenticate('carol', 'alice-pw'), { outcome: 'unknown-user' });
  }));

test('an empty password or username is refused without binding, though the directory would accept it', () =>
  withSlapd(async (s) => {
    // The premise: this slapd, like AD, takes a DN with an empty password as a successful bind.
    const client = new Client({ url: s.url });
    try {
      await client.bind(aliceDn, '');
    } finally {
      await client.unbind();
    }
    assert.equal(await new LdapDirectory(settings(s)).authenticate('alice', ''), { outcome: 'wrong-password' });
    // Nothing answers on this URL: any attempt to connect would be 'unavailable'.
    const nowhere = new LdapDirectory(settings(s, { url: `ldap://127.0.0.1:${await freePort()}` }));
    assert.equal(await nowhere.authenticate('alice', ''), { outcome: 'wrong-password' });
    assert.equal(await nowhere.authenticate('', 'alice-pw'), { outcome: 'unknown-user' });
  }));

test('filter characters in a username are escaped (RFC 4515), not obeyed', () =>
  withSlapd(async (s) => {
    const ldap = new LdapDirectory(settings(s));
    for (const username of ['al*', '*', 'alice)(uid=*', 'alice)(|(uid=*', 'alice\\', 'alice\0']) {
      assert.equal(await ldap.authenticate(username, 'alice-pw'), { outcome: 'unknown-user' }, JSON.stringify(username));
    }
    const odd = await ldap.authenticate(oddUid, 'odd-pw');
    assert.is(odd.outcome, 'ok', 'a uid made of those characters is found literally');
  }));

test('more than one entry matching the filter is unknown-user, with a warning', () =>
  withSlapd(async (s) => {
    const log = recordingLog();
    const ldap = new LdapDirectory(settings(s, { user_base: suffix }), log);
    assert.equal(await ldap.authenticate('dup', 'dup-pw'), { outcome: 'unknown-user' });
    assert.equal(log.warnings, ['more than one directory entry matches the user filter: refusing the sign-in']);
  }));

test('a person moved to another group has the new groups at the next sign-in', () =>
  withSlapd(async (s) => {
    const ldap = new LdapDirectory(settings(s));
    const before = await ldap.authenticate('bob', 'bob-pw');
    assert.equal(before.outcome === 'ok' && before.groups, [group('operators')]);
    await s.modify(
      [
        `dn: ${group('operators')}\nchangetype: modify\nadd: member\nmember: ${aliceDn}\n-\ndelete: member\nmember: uid=bob,${people}\n`,
        `dn: ${group('admins')}\nchangetype: modify\nadd: member\nmember: uid=bob,${people}\n`,
      ].join('\n'),
    );
    const after = await ldap.authenticate('bob', 'bob-pw');
    assert.equal(after.outcome === 'ok' && after.groups, [group('admins'), group('staff')]);
  }));

test('a group inside a group counts, and a cycle of groups ends', () =>
  withSlapd(async (s) => {
    const log = recordingLog();
    // admins is a member of staff and staff of admins.
    const answer = await new LdapDirectory(settings(s), log).authenticate('alice', 'alice-pw');
    assert.equal(answer, { outcome: 'ok', dn: aliceDn, groups: [group('admins'), group('staff')] });
    assert.equal(log.warnings, [], 'the cycle ends by itself, not at the depth limit');
  }));

test('group nesting is followed 10 levels deep, then stops with a warning', () =>
  withSlapd(async (s) => {
    const chain = Array.from({ length: 12 }, (_, i) => groupOf(`level${i + 1}`, i === 0 ? `uid=bob,${people}` : group(`level${i}`)));
    await s.add(chain.join('\n'));
    const log = recordingLog();
    const answer = await new LdapDirectory(settings(s), log).authenticate('bob', 'bob-pw');
    const expected = [group('operators'), ...Array.from({ length: 10 }, (_, i) => group(`level${i + 1}`))].sort();
    assert.equal(answer.outcome === 'ok' && answer.groups, expected);
    assert.equal(log.warnings, ['group nesting followed 10 levels deep only']);
  }));

test('without group_base the memberOf attribute is read, nested groups followed through their own memberOf', () =>
  withSlapd(
    async (s) => {
      const ldap = new LdapDirectory(settings(s, { group_base: undefined, group_filter: undefined }));
      assert.equal(await ldap.authenticate('alice', 'alice-pw'), { outcome: 'ok', dn: aliceDn, groups: [group('admins'), group('staff')] });
      await s.modify(
        `dn: ${group('admins')}\nchangetype: modify\nadd: member\nmember: uid=bob,${people}\n-\ndelete: member\nmember: ${aliceDn}\n`,
      );
      assert.equal(await ldap.authenticate('alice', 'alice-pw'), { outcome: 'ok', dn: aliceDn, groups: [] }, 'removed from admins');
    },
    // The memberof overlay keeps memberOf as AD does; groups added in an order it follows.
    { memberOf: true },
    [
      ou('people'),
      ou('groups'),
      ou('services'),
      reader,
      person(aliceDn, 'alice', 'alice-pw'),
      person(`uid=bob,${people}`, 'bob', 'bob-pw'),
      groupOf('admins', aliceDn),
      groupOf('staff', group('admins')),
    ].join('\n'),
  ));

test('a stopped directory is unavailable, and signs in again once restarted', () =>
  withSlapd(async (s) => {
    const ldap = new LdapDirectory(settings(s));
    await s.stop();
    const down = await ldap.authenticate('alice', 'alice-pw');
    assert.is(down.outcome, 'unavailable');
    assert.match(down.outcome === 'unavailable' ? down.reason : '', s.url);
    await s.restart();
    assert.is((await ldap.authenticate('alice', 'alice-pw')).outcome, 'ok');
  }));

test('failover: a closed port and a server that never answers are passed over for the next URL', () =>
  withSlapd(async (s) => {
    const silent = await silentServer();
    try {
      const closed = `ldap://127.0.0.1:${await freePort()}`;
      const log = recordingLog();
      const started = Date.now();
      const ldap = new LdapDirectory(settings(s, { url: [closed, silent.url, s.url], timeout_ms: 300 }), log);
      assert.is((await ldap.authenticate('alice', 'alice-pw')).outcome, 'ok');
      assert.ok(Date.now() - started < 2000, 'the silent server is given up after timeout_ms');
      assert.is(log.warnings.length, 2, 'each skipped URL is logged');
      const none = await new LdapDirectory(settings(s, { url: [closed, silent.url], timeout_ms: 300 })).authenticate('alice', 'alice-pw');
      assert.is(none.outcome, 'unavailable');
      const reason = none.outcome === 'unavailable' ? none.reason : '';
      assert.ok(reason.includes(closed) && reason.includes(silent.url) && /ECONNREFUSED/.test(reason), reason);
    } finally {
      silent.close();
    }
  }));

test("StartTLS and ldaps sign in with the directory's CA, and are unavailable with another CA", () =>
  withSlapd(
    async (s) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-other-ca-'));
      try {
        const otherCa = await makeTestCa(dir, 'some other CA');
        const startTls = (ca_file: string) => new LdapDirectory(settings(s, { starttls: true, ca_file })).authenticate('alice', 'alice-pw');
        const ldaps = (ca_file: string) => new LdapDirectory(settings(s, { url: s.ldapsUrl, ca_file })).authenticate('alice', 'alice-pw');
        assert.is((await startTls(s.caFile!)).outcome, 'ok', 'StartTLS');
        assert.is((await ldaps(s.caFile!)).outcome, 'ok', 'ldaps');
        for (const answer of [await startTls(otherCa), await ldaps(otherCa)]) {
          assert.is(answer.outcome, 'unavailable');
          assert.match(answer.outcome === 'unavailable' ? answer.reason : '', /certificate/);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    { tls: true },
  ));

test('a refused service bind is unavailable, not wrong-password, and its reason shows no password', () =>
  withSlapd(async (s) => {
    const answer = await new LdapDirectory(settings(s, { bind_password: 'not-the-reader-pw' })).authenticate('alice', 'alice-pw');
    assert.is(answer.outcome, 'unavailable');
    const reason = answer.outcome === 'unavailable' ? answer.reason : '';
    assert.match(reason, /service bind as cn=reader.*InvalidCredentialsError/);
    assert.not.match(reason, /not-the-reader-pw|alice-pw/);
    const noPassword = await new LdapDirectory(settings(s, { bind_password: '' })).authenticate('alice', 'alice-pw');
    assert.is(noPassword.outcome, 'unavailable', 'a bind_dn without a password is not bound unauthenticated');
  }));

test.run();

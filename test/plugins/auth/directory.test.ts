// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter } from '../../support/fixtures';
import { startServer } from '../../support/server';
import { type Slapd, startSlapd } from '../../support/slapd';
import { addUser, login, signIn } from './people';

const suffix = 'dc=example,dc=test';
const people = `ou=people,${suffix}`;
const groups = `ou=groups,${suffix}`;
const entry = (dn: string, ...lines: string[]) => `dn: ${dn}\n${lines.join('\n')}\n`;
const person = (uid: string) =>
  entry(`uid=${uid},${people}`, 'objectClass: inetOrgPerson', `uid: ${uid}`, `cn: ${uid}`, 'sn: Test', `userPassword: ${uid}-directory-pw`);
const groupOf = (name: string, ...members: string[]) =>
  entry(`cn=${name},${groups}`, 'objectClass: groupOfNames', `cn: ${name}`, ...members.map((m) => `member: ${m}`));
const ou = (name: string) => entry(`ou=${name},${suffix}`, 'objectClass: organizationalUnit', `ou: ${name}`);

/** jdoe on the help desk of center 1; ann in a group nobody mapped; the admins group. */
const directory = [
  ou('people'),
  ou('groups'),
  person('jdoe'),
  person('ann'),
  groupOf('Help Desk Science', `uid=jdoe,${people}`),
  groupOf('Library', `uid=ann,${people}`),
  groupOf('Fleet Admins', `cn=Library,${groups}`),
].join('\n');

test('directory accounts sign in with the role their groups give, and are told why when they cannot', async () => {
  const slapd: Slapd = await startSlapd();
  try {
    await slapd.add(directory);
    const s = await startServer({
      config: {
        auth: {
          ldap: {
            url: slapd.url,
            bind_dn: slapd.adminDn,
            bind_password: slapd.adminPassword,
            user_base: people,
            user_filter: '(uid={username})',
            group_base: groups,
            groups: {
              // Written as a site copies it from its directory: another case, spaces after commas.
              'CN=Help Desk Science, OU=Groups, DC=example, DC=test': { role: 'operator', centers: [1] },
              'cn=Fleet Admins,ou=groups,dc=example,dc=test': { role: 'admin', shell: true },
            },
          },
        },
      },
    });
    try {
      assert.equal(await addCenter(s, 'Science'), 1);
      await addUser(s, 'root', 'admin');
      const jdoe = await signIn(s.port, 'jdoe', 'jdoe-directory-pw');
      assert.deepEqual(
        [jdoe.answer.body.name, jdoe.answer.body.source, jdoe.answer.body.role, jdoe.answer.body.scope],
        ['jdoe@ldap', 'ldap', 'operator', 'centers 1'],
      );
      assert.equal((await jdoe.request('GET', '/scopes')).status, 200);

      const wrong = await login(s.port, 'jdoe', 'not-it');
      const unknown = await login(s.port, 'nobody', 'not-it');
      assert.deepEqual([wrong.status, wrong.body.message], [401, 'wrong username or password']);
      assert.deepEqual([unknown.status, unknown.body], [401, wrong.body]);

      const ann = await signIn(s.port, 'ann', 'ann-directory-pw');
      assert.deepEqual([ann.answer.body.role, ann.answer.body.scope], ['admin', null], 'Fleet Admins holds Library, which holds ann');
      assert.deepEqual((await ann.request('GET', '/auth/me')).body.permissions, ['admin', 'image', 'operate', 'read', 'shell']);

      // Moved out of every mapped group: refused at the next sign-in, and told why.
      await slapd.modify(`dn: cn=Fleet Admins,${groups}\nchangetype: modify\nreplace: member\nmember: uid=jdoe,${people}\n`);
      const refused = await login(s.port, 'ann', 'ann-directory-pw');
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.message, /'ann' is in no directory group that ogserve gives a role to/);
      const promoted = await signIn(s.port, 'jdoe', 'jdoe-directory-pw');
      assert.deepEqual(
        [promoted.answer.body.role, promoted.answer.body.scope],
        ['admin', 'admin: the whole fleet; operator: centers 1'],
        'what each of their groups gives',
      );

      // The directory stops: it says so, and local users and the key keep working.
      await slapd.stop();
      const down = await login(s.port, 'jdoe', 'jdoe-directory-pw');
      assert.equal(down.status, 503, down.text);
      assert.equal(down.body.error, 'directory_unavailable');
      assert.match(down.body.message, /the directory did not answer/);
      assert.equal((await signIn(s.port, 'root')).answer.body.source, 'local');
      assert.equal((await s.get('/scopes')).status, 200);
      assert.equal((await jdoe.request('GET', '/scopes')).status, 200, 'a session already open goes on');
      await slapd.restart();
      assert.equal((await login(s.port, 'jdoe', 'jdoe-directory-pw')).status, 200, 'back once it answers');
      assert.ok(!JSON.stringify(s.logs).includes('directory-pw'), 'no password in the logs');
    } finally {
      await s.close();
    }
  } finally {
    await slapd.close();
  }
});

test('a bad auth.ldap section stops the start naming the key', async () => {
  for (const [ldap, key] of [
    [{ url: 'http://dc1', user_base: 'ou=people' }, 'auth.ldap.url'],
    [{ url: 'ldap://127.0.0.1:1', user_base: 'ou=people', user_filter: '(uid=admin)' }, 'auth.ldap.user_filter'],
    [{ url: 'ldap://127.0.0.1:1', user_base: 'ou=people', groups: { 'cn=x': { role: 'root' } } }, 'auth.ldap.groups'],
  ] as const) {
    await assert.rejects(startServer({ config: { auth: { ldap } } }), (error: Error) => error.message.includes(key), key);
  }
});

test.run();

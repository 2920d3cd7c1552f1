// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { UsageError } from '../../../cli/command';
import { describeSource, parseSourceUrl } from '../../../cli/import-opengnsys/source-url';

test('--from gives user, password, host, port and database', () => {
  assert.deepEqual(parseSourceUrl('mysql://ogadmin:secret@10.0.0.5:3307/ogAdmBD', {}), {
    host: '10.0.0.5',
    port: 3307,
    user: 'ogadmin',
    password: 'secret',
    database: 'ogAdmBD',
  });
});

test('the port defaults to 3306 and mariadb: is taken too', () => {
  const url = parseSourceUrl('mariadb://root:x@db.example.org/og', {});
  assert.equal(url.port, 3306);
  assert.equal(url.host, 'db.example.org');
});

test('user and password may be percent-encoded', () => {
  const url = parseSourceUrl('mysql://og%20admin:p%40ss%3Aw%2Frd@127.0.0.1/og', {});
  assert.equal(url.user, 'og admin');
  assert.equal(url.password, 'p@ss:w/rd');
});

test('without a password in the URL MYSQL_PWD is used; one in the URL wins', () => {
  assert.equal(parseSourceUrl('mysql://og@127.0.0.1/og', { MYSQL_PWD: 'from-env' }).password, 'from-env');
  assert.equal(parseSourceUrl('mysql://og:in-url@127.0.0.1/og', { MYSQL_PWD: 'from-env' }).password, 'in-url');
  assert.equal(parseSourceUrl('mysql://og@127.0.0.1/og', {}).password, '');
});

test('URLs that cannot name a legacy database are usage errors naming --from', () => {
  for (const [text, part] of [
    ['ogAdmBD', 'is not a URL'],
    ['http://og:x@127.0.0.1/og', "'http:' is not mysql: or mariadb:"],
    ['mysql://og:x@127.0.0.1', 'must end with /DBNAME'],
    ['mysql://og:x@127.0.0.1/', 'must end with /DBNAME'],
    ['mysql://og:x@127.0.0.1/a/b', 'must end with /DBNAME'],
    ['mysql://127.0.0.1/og', 'names no user'],
    ['mysql://og:x@127.0.0.1/og?ssl=1', 'no query'],
    ['mysql://og:%E0%A4%A@127.0.0.1/og', 'percent-encoding'],
  ] as const) {
    assert.throws(
      () => parseSourceUrl(text, {}),
      (error: Error) => error instanceof UsageError && error.message.startsWith('--from:') && error.message.includes(part),
      text,
    );
  }
});

test('the description of a source never shows its password', () => {
  const text = describeSource(parseSourceUrl('mysql://og:topsecret@127.0.0.1:3306/ogAdmBD', {}));
  assert.equal(text, 'mysql://og@127.0.0.1:3306/ogAdmBD');
});

test.run();

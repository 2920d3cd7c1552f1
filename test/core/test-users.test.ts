// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { test } from 'uvu';
import { asAdministrator, asUser, ensureTestUser, manualCommand, type ServerEngine, testAccount } from '../support/test-users';

/**
 * `npm test` on a machine where the database servers run but the test users were never made
 * (only .ci/run made them): the runner makes them itself, as the servers' administrator on
 * this machine, or says in one line what to run. Each case uses a user of its own, never
 * the suite's ogserve_test, which other runs may be using.
 */

async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function dropUser(engine: ServerEngine, user: string): string[] {
  return engine === 'postgresql'
    ? [`drop role if exists "${user}"`]
    : [`drop user if exists '${user}'@'localhost'`, `drop user if exists '${user}'@'127.0.0.1'`];
}

for (const engine of ['postgresql', 'mariadb'] as const) {
  test(`${engine}: a missing test user is made, may then create and drop an ogt_ database, and is left alone the next time`, async () => {
    const account = { ...testAccount(engine), user: `ogt_user_${randomBytes(4).toString('hex')}`, pass: 'pw' };
    const database = `ogt_${randomBytes(6).toString('hex')}`;
    try {
      const outcome = await ensureTestUser(account);
      assert.equal(outcome.kind, 'created', JSON.stringify(outcome));
      assert.match((outcome as { line: string }).line, new RegExp(`^test setup: made the \\S+ user ${account.user} \\(as \\S+ `));
      // What the tests do with it: a database of their own, then dropped.
      const quoted = engine === 'postgresql' ? `"${database}"` : `\`${database}\``;
      assert.equal(await asUser(account, [`create database ${quoted}`, `drop database ${quoted}`]), undefined);
      // PostgreSQL's CREATEDB cannot be limited by name; MariaDB's grant is on ogt_* alone.
      if (engine === 'mariadb') assert.match(String(await asUser(account, ['create database other_than_ogt'])), /denied/i, 'nothing else');
      assert.deepEqual(await ensureTestUser(account), { kind: 'ok' }, 'a user that logs in is left alone');
    } finally {
      await asAdministrator(account, dropUser(engine, account.user));
    }
  });

  test(`${engine}: a server that does not answer is said in one line`, async () => {
    const outcome = await ensureTestUser({ ...testAccount(engine), port: await deadPort() });
    assert.equal(outcome.kind, 'unreachable');
    assert.match(
      (outcome as { line: string }).line,
      /^(PostgreSQL|MariaDB) does not answer on 127\.0\.0\.1:\d+: the tests that use it will fail \(start it; \.ci\/run shows how\)$/,
    );
  });

  test(`${engine}: the command a person runs instead is one line that makes the same user`, () => {
    const command = manualCommand({ ...testAccount(engine), user: 'ogserve_test', pass: 'ogserve_test' });
    assert.ok(!command.includes('\n'), command);
    assert.match(
      command,
      engine === 'postgresql'
        ? /^sudo -u postgres psql -c "do \\\$\\\$ begin .* create role \\"ogserve_test\\" login createdb password 'ogserve_test'; .*"$/
        : /^sudo mariadb -e "create user if not exists 'ogserve_test'@'localhost' identified by 'ogserve_test'; .*grant all privileges on \\`ogt\\\\_%\\`\.\* to 'ogserve_test'@'127\.0\.0\.1'"$/,
    );
  });
}

test.run();

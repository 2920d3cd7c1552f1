import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ogserve } from '../support/process';
import { makeTestDir, removeTestStore, startServer } from '../support/server';
import { login } from '../plugins/auth/people';

test('the first admin is made from the command line on a fresh install, and users are listed, disabled and given a password', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    await first.close();
    const config = ['--config', `${dir}/config.json`];
    const made = await ogserve(['user', 'add', 'root', '--role', 'admin', '--password-stdin', ...config], {}, 'a-long-admin-password\n');
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stderr, /added root {2}admin {2}created 20/);
    assert.ok(!made.stderr.includes('a-long-admin-password') && !made.stdout.includes('a-long-admin-password'), 'never echoed');
    const tech = await ogserve(
      ['user', 'add', 'tech', '--role', 'operator', '--room', '3', '--password-stdin', ...config],
      {},
      'tech-password-1234\n',
    );
    assert.deepEqual([tech.code, tech.stderr.trim().split('\n').at(-1)], [1, 'ogserve: no room with id 3']);
    const short = await ogserve(['user', 'add', 'tech', '--role', 'operator', '--password-stdin', ...config], {}, 'short\n');
    assert.deepEqual([short.code, short.stderr.trim().split('\n').at(-1)], [1, "ogserve: 'password' must be at least 12 characters"]);
    const noTerminal = await ogserve(['user', 'add', 'tech', '--role', 'operator', ...config]);
    assert.equal(noTerminal.code, 2, 'without a terminal the password must be piped in');
    assert.match(noTerminal.stderr, /--password-stdin/);
    assert.equal(
      (await ogserve(['user', 'add', 'tech', '--role', 'operator', '--shell', '--password-stdin', ...config], {}, 'tech-password-1234\n'))
        .code,
      0,
    );
    assert.equal((await ogserve(['user', 'disable', 'tech', ...config])).code, 0);
    const listed = await ogserve(['user', 'list', ...config]);
    assert.match(listed.stdout, /^root {2}admin {2}created/m);
    assert.match(listed.stdout, /^tech {2}operator\+shell {2}disabled {2}created/m);
    assert.equal((await ogserve(['user', 'passwd', 'root', '--password-stdin', ...config], {}, 'another-admin-password\n')).code, 0);
    const gone = await ogserve(['user', 'disable', 'nobody', ...config]);
    assert.deepEqual([gone.code, gone.stderr.trim().split('\n').at(-1)], [1, "ogserve: no user named 'nobody'"]);

    const s = await startServer({ dir });
    try {
      assert.equal((await login(s.port, 'root', 'a-long-admin-password')).status, 401, 'the old password');
      const root = await login(s.port, 'root', 'another-admin-password');
      assert.equal(root.status, 200, root.text);
      assert.equal(root.body.role, 'admin');
      assert.equal((await login(s.port, 'tech', 'tech-password-1234')).status, 403, 'disabled');
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();

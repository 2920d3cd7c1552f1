// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { ogserve } from '../support/process';

/**
 * Every command that opens the site takes --state-dir as `ogserve serve` does: the database
 * and the other data of the defaults go there, over $OGSERVE_STATE_DIR (which this run sets).
 */

function site(): { dir: string; config: string; state: (name: string) => string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-state-dir-'));
  const config = path.join(dir, 'config.json');
  // No database path: the default's, under the state directory.
  writeFileSync(config, JSON.stringify({ log: { level: 'warn' } }));
  return { dir, config, state: (name) => path.join(dir, name) };
}

test('ogserve user: --state-dir chooses the database a user is added to and listed from', async () => {
  const { dir, config, state } = site();
  try {
    const added = await ogserve(
      ['user', 'add', 'root', '--role', 'admin', '--password-stdin', '--config', config, '--state-dir', state('one')],
      {},
      'a-long-admin-password\n',
    );
    assert.equal(added.code, 0, added.stderr);
    assert.ok(existsSync(path.join(state('one'), 'ogserve.sqlite')), 'the database in the state directory given');
    const listed = await ogserve(['user', 'list', '--config', config, '-s', state('one')]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^root {2}admin {2}created/m);
    const other = await ogserve(['user', 'list', '--config', config, `--state-dir=${state('two')}`]);
    assert.equal(other.code, 0, other.stderr);
    assert.equal(other.stdout, '', 'another state directory, another database: no users');
    assert.match(other.stderr, /no local users/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ogserve token, live and import-dhcpd take --state-dir and open the database there', async () => {
  const { dir, config, state } = site();
  try {
    const dhcpd = path.join(dir, 'dhcpd.conf');
    writeFileSync(dhcpd, 'host pc1 { hardware ethernet 52:54:00:00:00:01; fixed-address 10.9.0.1; }\n');
    const runs: [string, string[], number][] = [
      ['token', ['token', 'list'], 0],
      ['live', ['live', 'list'], 0],
      // No room holds the address: refused (exit 1), after the database was opened.
      ['dhcpd', ['import-dhcpd', dhcpd, '--dry-run'], 1],
    ];
    for (const [name, args, code] of runs) {
      const run = await ogserve([...args, '--config', config, '--state-dir', state(name)]);
      assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
      assert.ok(existsSync(path.join(state(name), 'ogserve.sqlite')), `${args.join(' ')}: the database in the state directory given`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--state-dir is named in the help of each of those commands', async () => {
  for (const command of ['user', 'token', 'live', 'import-dhcpd']) {
    const help = await ogserve([command, '--help']);
    assert.equal(help.code, 0, command);
    assert.match(help.stdout, /^ {2}-s, --state-dir DIR +its state directory/m, `${command} --help`);
  }
});

test.run();

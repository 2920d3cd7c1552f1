import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { packageRoot } from '../../core/version';
import { hostAddress } from '../../core/host-address';
import { describeDatabase } from '../../cli/config/start-log';
import { release } from '../../core/version';
import { makeTestDir, removeTestStore, startServer, type TestServer } from '../support/server';
import { testEngine } from '../support/test-db';

/**
 * The start log says once what runs: version and config, database, plugins, listeners, and
 * what plugins add (pxe-modes: its server address and templates).
 */

const warn = 'warn';

/** The lines matching `pattern`; each fact must be said exactly once. */
function once(s: TestServer, pattern: RegExp): TestServer['logs'][number] {
  const found = s.logs.filter((l) => pattern.test(l.msg));
  assert.equal(found.length, 1, `one line matching ${pattern}, got: ${JSON.stringify(found.map((l) => l.msg))}`);
  return found[0]!;
}

test('version, config file, state directory, database, plugins, listeners, boot-file server and templates, once each', async () => {
  const s = await startServer();
  try {
    const configFile = path.join(s.dir, 'config.json');
    once(s, new RegExp(`^ogserve ${release.replace(/\./g, '\\.')} starting: config ${configFile}; state directory \\S+ \\(.+\\)$`));
    if (testEngine === 'sqlite') once(s, new RegExp(`^database: sqlite ${path.join(s.dir, 'ogserve.sqlite')}$`));
    else once(s, new RegExp(`^database: ${testEngine} database 'ogt_\\w+' on 127\\.0\\.0\\.1:\\d+ as 'ogserve_test'$`));
    once(
      s,
      /^plugins: inventory, agents, pxe-modes, live, wol, stats, shell, transfers, images, cache, groups, scheduler, events, metrics, openapi, tokens, auth, audit, console, cluster, history, boot, jobs, energy, power$/,
    );
    once(s, new RegExp(`^REST interface listening on 127\\.0\\.0\\.1:${s.port}$`));
    once(s, /^agent interface listening on 127\.0\.0\.1:\d+, at most \d+ agents$/);
    const server = once(s, /^boot-file server address /);
    assert.equal(server.msg, 'boot-file server address 127.0.0.1 (rest.ip); PCs cannot reach it: set pxe-modes.server_ip');
    assert.equal(server.level, warn, 'a loopback address in boot files is a warning');
    assert.equal(server.plugin, 'pxe-modes', "the plugin's own line");
    const templates = once(s, /^boot templates /);
    assert.equal(
      templates.msg,
      `boot templates ${path.join(packageRoot, 'templates', 'pxe')}: 8 modes (00unknown, 10, 11, 12, 13, 19pxeADMIN, ogLive, pxe); ` +
        `boot files in ${path.join(s.dir, 'tftpboot', 'menu.lst')} and ${path.join(s.dir, 'tftpboot', 'grub')}`,
    );
  } finally {
    await s.close();
  }
});

test('a configured server_ip is said with its key', async () => {
  const s = await startServer({ config: { 'pxe-modes': { server_ip: '10.0.0.1' } } });
  try {
    const line = once(s, /^boot-file server address /);
    assert.equal(line.msg, 'boot-file server address 10.0.0.1 (pxe-modes.server_ip)');
    assert.notEqual(line.level, warn, 'not a warning');
  } finally {
    await s.close();
  }
});

test('a missing or empty template folder is a warning', async () => {
  const dir = makeTestDir();
  try {
    const missing = path.join(dir, 'no-templates');
    const s = await startServer({ config: { 'pxe-modes': { templates_dir: missing } } });
    try {
      const line = once(s, /^pxe-modes\.templates_dir: /);
      assert.equal(line.msg, `pxe-modes.templates_dir: ${missing} is missing: no boot modes`);
      assert.equal(line.level, warn, 'a warning');
    } finally {
      await s.close();
    }
    const empty = path.join(dir, 'empty-templates');
    mkdirSync(path.join(empty, 'bios'), { recursive: true });
    const t = await startServer({ config: { 'pxe-modes': { templates_dir: empty } } });
    try {
      const line = once(t, /^pxe-modes\.templates_dir: /);
      assert.equal(line.msg, `pxe-modes.templates_dir: ${empty} holds no templates (bios/<mode>.ejs): no boot modes`);
      assert.equal(line.level, warn, 'a warning');
    } finally {
      await t.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('server databases are described by engine, name, host, port and user', () => {
  const database = { type: 'mariadb' as const, path: '', ip: '10.0.0.2', name: 'og', user: 'usuog', pass: 'secret', create: false };
  assert.equal(describeDatabase(database, false), "mariadb database 'og' on 10.0.0.2:3306 as 'usuog'", 'the default port');
  assert.equal(
    describeDatabase({ ...database, port: 3307 }, true),
    "mariadb (no database.type: the reference's database keys mean MySQL/MariaDB) database 'og' on 10.0.0.2:3307 as 'usuog'",
    'inferred from the reference keys',
  );
  assert.equal(describeDatabase({ ...database, type: 'postgresql' }, false), "postgresql database 'og' on 10.0.0.2:5432 as 'usuog'");
  assert.ok(!describeDatabase(database, false).includes('secret'), 'never the password');
});

test("this host's address: rest.ip, else the first non-loopback IPv4 address, else loopback", () => {
  const lo = {
    address: '127.0.0.1',
    netmask: '255.0.0.0',
    family: 'IPv4',
    mac: '00:00:00:00:00:00',
    internal: true,
    cidr: '127.0.0.1/8',
  } as const;
  const v6 = { ...lo, address: 'fe80::1', family: 'IPv6', internal: false, cidr: 'fe80::1/64', scopeid: 2 } as const;
  const eth = { ...lo, address: '10.1.2.3', netmask: '255.255.255.0', internal: false, cidr: '10.1.2.3/24' } as const;
  assert.deepEqual(hostAddress('10.9.9.9', { eth0: [eth] }), { address: '10.9.9.9', how: 'rest.ip' }, 'rest.ip');
  assert.deepEqual(
    hostAddress('0.0.0.0', { lo: [lo], eth1: [v6, eth] }),
    { address: '10.1.2.3', how: 'first non-loopback address of this host, interface eth1' },
    'the wildcard: an interface address, IPv6 and loopback skipped',
  );
  assert.deepEqual(
    hostAddress('0.0.0.0', { lo: [lo] }),
    { address: '127.0.0.1', how: 'loopback: this host has no other IPv4 address' },
    'nothing else',
  );
});

test.run();

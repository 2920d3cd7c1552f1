import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import { allPlugins, makeImportTarget } from '../../support/import-target';
import { withLegacyDatabase } from '../../support/legacy-db';
import { ogserve } from '../../support/process';
import { removeTestStore, startServer } from '../../support/server';
import { connectSide } from '../../support/test-db';

/** What a console sees of the target inventory (the image list without the disk's free space, which others change). */
async function inventoryOf(dir: string): Promise<unknown[]> {
  const server = await startServer({ dir, config: { plugins: allPlugins, log: { level: 'warn' } } });
  try {
    const [scopes, repositories, images, servers] = await Promise.all(
      ['/scopes', '/repositories', '/images', '/server'].map(async (p) => (await server.get(p)).body),
    );
    return [scopes, repositories, images.images, servers];
  } finally {
    await server.close();
  }
}

test('--dry-run lists refusals and changes one per line, counts per table, shows progress, and writes nothing', async () => {
  await withLegacyDatabase({ bulk: { computers: 1100, partitions: 4 } }, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      const before = await inventoryOf(dir);
      // The password from MYSQL_PWD, as the mysql client takes it, so that it stays out of the process list.
      const run = await ogserve(
        ['import-opengnsys', '--from', db.url.replace(':ogserve_test@', '@'), '--config', configFile, '--dry-run'],
        {
          MYSQL_PWD: 'ogserve_test',
        },
      );
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /^ogserve: 62 rows refused \(listed above, counted in the summary\): exit code 2\n$/m);
      const lines = run.stdout.trimEnd().split('\n');
      assert.equal(lines[0], `reading mysql://ogserve_test@127.0.0.1:3306/${db.name} (schema version 4)`);
      assert.match(lines[1]!, /^checking against (sqlite|mariadb|postgresql) /);
      assert.ok(
        lines.includes(`refused  ordenadores 4 (pc-a1-04, 0.0.0.0): 'ip' must be a valid host address (ordenadores.ip = "0.0.0.0")`),
      );
      assert.ok(
        lines.includes(
          'refused  ordenadores 3 (pc-a1-03, 10.1.1.13): mac aabbcc000001 already belongs to ordenadores 1 (pc-a1-01, 10.1.1.11)',
        ),
      );
      assert.ok(lines.includes('changed  ordenadores 17 (pc-lb-17, 10.2.3.17): repository 3 was refused: imported without a repository'));
      assert.ok(lines.includes('table                    read  import  refused  left out'), run.stdout);
      assert.ok(lines.includes('ordenadores              1129    1112       17         0'), run.stdout);
      assert.ok(lines.includes('ordenadores_particiones  4411    4408        2         1'), run.stdout);
      assert.ok(lines.includes('left out of acciones: 1 the history of commands that ran, which ogserve does not keep'));
      assert.ok(lines.includes('62 rows refused, 21 kept with a change (listed above)'), run.stdout);
      assert.match(lines.at(-1)!, /^dry run: nothing was written to /);
      assert.equal(lines.filter((l) => /^(refused|changed) {2}/.test(l)).length, 83);
      assert.match(run.stderr, /^reading ordenadores: 1129\/1129$/m);
      assert.match(run.stderr, /^checking ordenadores: 1129\/1129$/m);
      assert.deepEqual(await inventoryOf(dir), before, 'the target is as it was');
    } finally {
      await removeTestStore(dir);
    }
  });
});

test('a room without a netmask is kept with the default one, or the one --default-netmask gives, and a line saying so', async () => {
  await withLegacyDatabase({}, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      const run = await ogserve(['import-opengnsys', '--from', db.url, '--config', configFile, '--default-netmask', '255.255.0.0']);
      assert.equal(run.code, 2, `the fixture holds refused rows: ${run.stderr}`);
      assert.ok(
        run.stdout.includes('changed  aulas 4 (Sin máscara): it has no netmask (aulas.netmask = NULL): given 255.255.0.0\n'),
        run.stdout,
      );
      assert.ok(!run.stdout.includes('refused  aulas 4 '), 'the room is not refused');
      const s = await startServer({ dir, config: { plugins: allPlugins, log: { level: 'warn' } } });
      try {
        assert.equal((await s.get('/room/info', { id: 4 })).body.netmask, '255.255.0.0', 'stored with the netmask given');
        assert.equal((await s.get('/room/info', { id: 16 })).body.netmask, '255.255.0.0', 'an empty one is none too');
      } finally {
        await s.close();
      }
    } finally {
      await removeTestStore(dir);
    }
  });
});

test('the exit code is 0 when every row is taken, 2 after the summary when a row is refused, dry run or not', async () => {
  await withLegacyDatabase({ site: false }, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      await db.query('insert into version (version) values (4)');
      await db.query("insert into entornos (identorno, ipserveradm) values (1, '10.0.0.254')");
      await db.query("insert into centros (idcentro, nombrecentro) values (1, 'Centro')");
      await db.query("insert into aulas (idaula, nombreaula, idcentro, netmask) values (1, 'Aula', 1, '255.255.255.0')");
      await db.query(
        "insert into ordenadores (idordenador, nombreordenador, ip, mac, idaula) values (1, 'pc-1', '10.0.0.1', '020000000001', 1)",
      );
      const args = ['import-opengnsys', '--from', db.url, '--config', configFile];
      const clean = await ogserve([...args, '--dry-run']);
      assert.equal(clean.code, 0, clean.stdout + clean.stderr);
      assert.match(clean.stdout, /^0 rows refused, 0 kept with a change/m);
      await db.query(
        "insert into ordenadores (idordenador, nombreordenador, ip, mac, idaula) values (2, 'pc-2', '10.0.0.2', 'ffffffffffff', 1)",
      );
      for (const extra of [['--dry-run'], []]) {
        const refused = await ogserve([...args, ...extra]);
        assert.equal(refused.code, 2, `${extra.join(' ')}: ${refused.stderr}`);
        assert.match(refused.stdout, /^refused {2}ordenadores 2 \(pc-2, 10\.0\.0\.2\): 'mac' must be a single card's MAC/m);
        assert.match(refused.stdout, /^ordenadores +2 +1 +1 +0$/m, 'the summary counts it');
        assert.equal(
          refused.stderr.trimEnd().split('\n').at(-1),
          'ogserve: 1 row refused (listed above, counted in the summary): exit code 2',
        );
      }
      const s = await startServer({ dir, config: { plugins: allPlugins, log: { level: 'warn' } } });
      try {
        assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).body.name, 'pc-1', 'the rest was written');
      } finally {
        await s.close();
      }
    } finally {
      await removeTestStore(dir);
    }
  });
});

test('command line mistakes are usage errors: one line, exit code 2', async () => {
  for (const [args, message] of [
    [['import-opengnsys', '--dry-run'], 'import-opengnsys needs --from mysql://USER:PASS@HOST:PORT/DBNAME'],
    [['import-opengnsys', '--from', 'mysql://u:p@127.0.0.1/og', '--dry-run', '--replace'], "unknown option '--replace'"],
    [['import-opengnsys', '--from', 'mysql://u:p@127.0.0.1/og', 'now'], "unexpected argument 'now'"],
    [['import-opengnsys', '--from', 'postgres://u:p@127.0.0.1/og', '--dry-run'], "--from: 'postgres:' is not mysql: or mariadb:"],
    [['import-opengnsys', '--from'], '--from needs a value'],
    [
      ['import-opengnsys', '--from', 'mysql://u:p@127.0.0.1/og', '--default-netmask', '255.0.255.0'],
      "--default-netmask: '255.0.255.0' is not a netmask (255.255.255.0, 255.255.0.0...)",
    ],
  ] as const) {
    const run = await ogserve([...args]);
    assert.equal(run.code, 2, args.join(' '));
    assert.equal(run.stderr, `ogserve: ${message} (see ogserve --help)\n`);
    assert.equal(run.stdout, '');
  }
});

test('a legacy server that does not answer stops the run with one line, without the password', async () => {
  const run = await ogserve(['import-opengnsys', '--from', 'mysql://og:topsecret@127.0.0.1:1/ogAdmBD', '--dry-run']);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^ogserve: cannot read mysql:\/\/og@127\.0\.0\.1:1\/ogAdmBD: .+\n$/);
  assert.ok(!run.stderr.includes('topsecret'));
  assert.ok(!run.stderr.includes('    at '), 'no stack trace');
});

test('a --from database that does not exist stops the run naming it, and no empty one is left behind', async () => {
  const name = `ogt_legacy_missing_${randomBytes(4).toString('hex')}`;
  const run = await ogserve(['import-opengnsys', '--from', `mysql://ogserve_test:ogserve_test@127.0.0.1:3306/${name}`, '--dry-run']);
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    new RegExp(`^ogserve: cannot read mysql://ogserve_test@127\\.0\\.0\\.1:3306/${name}: .*Unknown database '${name}'\n$`),
  );
  const side = await connectSide('', true, 'mariadb');
  try {
    const found = await side.query('select 1 from information_schema.schemata where schema_name = ?', [name]);
    assert.equal(found.length, 0, 'not created');
  } finally {
    await side.query(`drop database if exists \`${name}\``);
    await side.close();
  }
});

test('the command is listed in --help and has its own', async () => {
  const help = await ogserve(['--help']);
  assert.match(help.stdout, /^ {2}import-opengnsys {2}import the database of an OpenGnsys ogServer/m);
  const own = await ogserve(['import-opengnsys', '--help']);
  assert.equal(own.code, 0);
  assert.match(
    own.stdout,
    /^Usage: ogserve import-opengnsys --from mysql:\/\/USER:PASS@HOST:PORT\/DBNAME \[--config FILE\] \[--state-dir DIR\] \[--default-netmask M\] \[--dry-run\] \[--merge\]$/m,
  );
  assert.match(own.stdout, /MYSQL_PWD/);
});

test.run();

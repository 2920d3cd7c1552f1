// Engine-independent: runs once, on SQLite.
// (Each test here makes and drops its own databases on the engines it names, whatever OGSERVE_TEST_DB is.)
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import { test } from 'uvu';
import { readBackup } from '../../cli/backup/format';
import { type BackupSite, fillSite, makeSite, readTables, withSiteApp } from '../support/backup-site';
import { mainScript, ogserve, runNode } from '../support/process';
import { removeTestStore } from '../support/server';
import { type DatabaseSection, type TestEngine, testDatabaseSection } from '../support/test-db';

/** `n` connections of their own to the site's database, each writing a center and its three rooms per transaction until stopped. */
async function startWriters(site: BackupSite, n: number) {
  const section = testDatabaseSection(site.dir, site.engine) as DatabaseSection;
  const driver = (await import(`@mikro-orm/${site.engine}`)) as { MikroORM: typeof MikroORM };
  const orm = await driver.MikroORM.init({
    entities: [],
    discovery: { warnWhenNoEntities: false },
    dbName: site.engine === 'sqlite' ? section.path : section.name,
    ...(site.engine === 'sqlite' ? {} : { host: section.ip, port: section.port, user: section.user, password: section.pass }),
    allowGlobalContext: true,
    ensureDatabase: false,
    pool: { min: n, max: n },
  });
  const knex: Knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
  if (site.engine === 'sqlite') await knex.raw('pragma busy_timeout = 5000');
  const committed: string[] = [];
  let stopping = false;
  const writer = async (w: number) => {
    for (let k = 0; !stopping; k++) {
      const name = `w${w}-${k}`;
      await knex.transaction(async (trx) => {
        const inserted = (await (site.engine === 'postgresql'
          ? trx('centers').insert({ name, comment: '' }, ['id'])
          : trx('centers').insert({ name, comment: '' }))) as ({ id: number } | number)[];
        const id = typeof inserted[0] === 'object' ? Number(inserted[0].id) : Number(inserted[0]);
        for (const room of ['a', 'b', 'c']) await trx('rooms').insert({ name: room, center_id: id, netmask: '255.255.255.0' });
      });
      committed.push(name);
    }
  };
  const loops = Array.from({ length: n }, (_, w) => writer(w));
  return {
    committed,
    async stop() {
      stopping = true;
      await Promise.all(loops);
      await orm.close(true);
    },
  };
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

const writing: [TestEngine, number][] = [
  ['postgresql', 50],
  ['mariadb', 50],
  ['sqlite', 1],
];

for (const [engine, connections] of writing) {
  test(`a backup taken while ${connections} connections write on ${engine} holds everything committed before it began and no transaction in part`, async () => {
    const site = makeSite(engine);
    try {
      await withSiteApp(site, async () => undefined);
      const writers = await startWriters(site, connections);
      let before: string[];
      const file = path.join(site.dir, 'live.backup');
      try {
        await waitFor(() => writers.committed.length >= 300);
        before = [...writers.committed];
        const run = await ogserve(['backup', '--to', file, ...site.args]);
        assert.equal(run.code, 0, run.stderr);
      } finally {
        await writers.stop();
      }
      const centers = new Map<number, string>();
      const rooms = new Map<number, number>();
      let table = '';
      let columns: string[] = [];
      await readBackup(
        file,
        () => undefined,
        (item) => {
          if (item.kind === 'part') {
            table = item.header.name;
            columns = item.header.part === 'table' ? item.header.columns : [];
          } else if (item.kind === 'row' && table === 'centers')
            centers.set(item.values[0] as number, item.values[columns.indexOf('name')] as string);
          else if (item.kind === 'row' && table === 'rooms') {
            const center = item.values[columns.indexOf('center_id')] as number;
            rooms.set(center, (rooms.get(center) ?? 0) + 1);
          }
        },
      );
      const names = new Set(centers.values());
      const lost = before.filter((name) => !names.has(name));
      assert.deepEqual(
        lost,
        [],
        `every center committed before the backup began is in it (${before.length}; ${writers.committed.length} by the end)`,
      );
      const partial = [...centers.keys()].filter((id) => rooms.get(id) !== 3);
      assert.deepEqual(partial, [], 'every center in the backup has its three rooms');
      assert.deepEqual(
        [...rooms.keys()].filter((id) => !centers.has(id)),
        [],
        'no room without its center',
      );
    } finally {
      await removeTestStore(site.dir, site.engine);
    }
  });
}

for (const to of ['postgresql', 'sqlite'] as TestEngine[]) {
  test(`a restore onto ${to} killed with SIGKILL halfway leaves the target empty, and the next restore makes it whole`, async () => {
    const source = makeSite('sqlite');
    const target = makeSite(to);
    try {
      const written = await fillSite(source, 4, { client_software: 60_000 });
      const file = path.join(source.dir, 'big.backup');
      assert.equal((await ogserve(['backup', '--to', file, ...source.args])).code, 0);
      const restore = runNode(mainScript, ['restore', '--from', file, ...target.args]);
      await restore.waitFor(/^restoring table client_software$/, 60_000);
      await restore.kill();
      const after = await readTables(target);
      const empty = [...after].every(([table, rows]) => rows.length === 0 || table.startsWith('repositor'));
      const whole = [...written].every(([table, rows]) => after.get(table)?.length === rows.length);
      assert.ok(empty || whole, `empty or whole, not ${[...after].map(([t, r]) => `${t}=${r.length}`).join(' ')}`);
      const again = await ogserve(['restore', '--from', file, ...target.args]);
      assert.equal(again.code, 0, again.stderr);
      const restored = await readTables(target);
      for (const [table, rows] of written) assert.deepEqual(restored.get(table), rows, `table ${table}`);
    } finally {
      await removeTestStore(source.dir, source.engine);
      await removeTestStore(target.dir, target.engine);
    }
  });
}

test('backup --to-dir --keep N names backups by date and keeps the newest N, touching nothing else there', async () => {
  const site = makeSite('sqlite');
  try {
    await withSiteApp(site, async () => undefined);
    const dir = path.join(site.dir, 'nightly');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'kept');
    writeFileSync(path.join(dir, 'ogserve-2020-01-01T00-00-00-000Z.backup'), 'an old one');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await ogserve(['backup', '--to-dir', dir, '--keep', '2', ...site.args]);
      assert.equal(run.code, 0, run.stderr);
      const name = /to (\S+) \(\d+ bytes\)/.exec(run.stdout)?.[1];
      assert.ok(name, run.stdout);
      assert.match(path.basename(name), /^ogserve-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.backup$/);
      made.push(path.basename(name));
    }
    assert.deepEqual(readdirSync(dir).sort(), [...made.slice(1), 'notes.txt'].sort(), 'the two newest backups and the other file');
    const misuse = await ogserve(['backup', '--to', path.join(dir, 'x'), '--keep', '2', ...site.args]);
    assert.equal(misuse.code, 2);
    assert.match(misuse.stderr, /--keep goes with --to-dir/);
  } finally {
    await removeTestStore(site.dir, site.engine);
  }
});

test.run();

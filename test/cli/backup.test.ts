// Engine-independent: runs once, on SQLite.
// (Each test here makes and drops its own databases on the engines it names, whatever OGSERVE_TEST_DB is.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { type BackupSite, fillSite, makeSite, readSiteFiles, readTables, writeSiteFiles, withSiteApp } from '../support/backup-site';
import { ogserve } from '../support/process';
import { bootFolderDifferences, readBootFolders } from '../support/boot-files';
import { addCenter, addClient, addRoom, macFor } from '../support/fixtures';
import { makeTestDir, removeTestStore, startServer } from '../support/server';
import { type TestEngine, testDatabaseSection } from '../support/test-db';

async function removeSites(...sites: BackupSite[]): Promise<void> {
  for (const site of sites) await removeTestStore(site.dir, site.engine);
}

function assertSameTables(actual: Map<string, unknown[][]>, expected: Map<string, unknown[][]>, what: string): void {
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort(), `${what}: the same tables`);
  for (const [table, rows] of expected) assert.deepEqual(actual.get(table), rows, `${what}: table ${table}, row by row`);
}

const trips: [TestEngine, TestEngine][] = [
  ['sqlite', 'postgresql'],
  ['postgresql', 'mariadb'],
  ['mariadb', 'sqlite'],
];

for (const [from, to] of trips) {
  test(`a site backed up on ${from} and restored on ${to} has every table row by row, the boot files byte for byte and its key`, async () => {
    const source = makeSite(from);
    const target = makeSite(to);
    try {
      const written = await fillSite(source);
      for (const rows of written.values()) assert.ok(rows.length > 0, 'every table has rows');
      const files = writeSiteFiles(source);
      assertSameTables(await readTables(source), written, `${from} as filled`);
      const file = `${source.dir}/site.backup`;
      const backedUp = await ogserve(['backup', '--to', file, ...source.args]);
      assert.equal(backedUp.code, 0, backedUp.stderr);
      assert.match(backedUp.stdout, new RegExp(`^backed up ${from} database \\(\\d+ rows in ${written.size} tables\\), 13 boot files to `));
      const restored = await ogserve(['restore', '--from', file, ...target.args]);
      assert.equal(restored.code, 0, restored.stderr);
      assertSameTables(await readTables(target), written, `${to} restored`);
      const copied = readSiteFiles(target);
      assert.deepEqual([...copied.keys()].sort(), [...files.keys()].sort(), 'the same boot files and key');
      for (const [name, bytes] of files) assert.ok(copied.get(name)!.equals(bytes), `${name} byte for byte`);
      // New rows get ids past the restored ones (PostgreSQL's sequences moved, the others' counters).
      await withSiteApp(target, async (app, knex) => {
        const row = { name: 'after the restore', comment: '' };
        const [id] = (await (app.database.type === 'postgresql' ? knex('centers').insert(row, ['id']) : knex('centers').insert(row))) as (
          | { id: number }
          | number
        )[];
        const newId = typeof id === 'object' ? Number(id.id) : Number(id);
        assert.ok(newId > written.get('centers')!.length, `a new center gets id ${newId}, past the restored ones`);
      });
    } finally {
      await removeSites(source, target);
    }
  });
}

test('a truncated, a tampered and a foreign file are refused with one line, and the target is left untouched', async () => {
  const source = makeSite('sqlite');
  const target = makeSite('sqlite');
  try {
    await fillSite(source);
    writeSiteFiles(source);
    const file = `${source.dir}/site.backup`;
    assert.equal((await ogserve(['backup', '--to', file, ...source.args])).code, 0);
    const { gunzipSync, gzipSync } = await import('node:zlib');
    const checked = await ogserve(['restore', '--from', file, '--check', ...target.args]);
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(checked.stdout, /: a whole backup of sqlite \(ogserve .*\), \d+ rows; it fits sqlite /);
    assert.ok(!existsSync(`${target.dir}/ogserve.sqlite`), '--check writes nothing');
    const whole = readFileSync(file);
    const truncated = `${source.dir}/truncated.backup`;
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
    const text = gunzipSync(whole).toString('utf8');
    const tampered = `${source.dir}/tampered.backup`;
    const changed = text.replace(/\n\[1,"1ñ/, '\n[1,"9ñ');
    assert.notEqual(changed, text, 'a row was changed');
    writeFileSync(tampered, gzipSync(Buffer.from(changed)));
    const flipped = `${source.dir}/flipped.backup`;
    const bytes = Buffer.from(whole);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(flipped, bytes);
    const cases: [string, RegExp][] = [
      [truncated, /is damaged: it ends before its manifest \(truncated\); nothing was restored$/],
      [tampered, /is damaged: the checksum of table \w+ does not match its manifest; nothing was restored$/],
      [flipped, /is damaged: .*; nothing was restored$/],
      [source.config, /is not an ogserve backup \(not a gzip file\); nothing was restored$/],
    ];
    for (const [bad, message] of cases) {
      const run = await ogserve(['restore', '--from', bad, ...target.args]);
      assert.equal(run.code, 1, `${bad}: refused`);
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${bad}: one line: ${run.stderr}`);
      assert.match(lines[0]!, message);
      assert.equal(run.stdout, '', `${bad}: nothing restored`);
      assert.ok(!existsSync(`${target.dir}/ogserve.sqlite`), `${bad}: the target database was not even created`);
    }
  } finally {
    await removeSites(source, target);
  }
});

test('a target that holds data is refused without --force and replaced with it; a fresh one counts as empty', async () => {
  const source = makeSite('sqlite');
  const target = makeSite('postgresql');
  try {
    const written = await fillSite(source);
    const file = `${source.dir}/site.backup`;
    assert.equal((await ogserve(['backup', '--to', file, ...source.args])).code, 0);
    // Started once: the seeded default repository is not data.
    await withSiteApp(target, async () => undefined);
    const first = await ogserve(['restore', '--from', file, ...target.args]);
    assert.equal(first.code, 0, first.stderr);
    const again = await ogserve(['restore', '--from', file, ...target.args]);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr.trim().split('\n').at(-1)!,
      /already holds \d+ rows in centers, .*: restore into an empty database, or add --force/,
    );
    const forced = await ogserve(['restore', '--from', file, '--force', ...target.args]);
    assert.equal(forced.code, 0, forced.stderr);
    assertSameTables(await readTables(target), written, 'replaced');
  } finally {
    await removeSites(source, target);
  }
});

test('a site backed up while its server serves, restored onto PostgreSQL, serves the same inventory and boot files', async () => {
  const dir = makeTestDir();
  const targetDir = makeTestDir();
  try {
    const s = await startServer({ dir, engine: 'sqlite' });
    let scopes: unknown;
    const file = path.join(dir, 'site.backup');
    try {
      const center = await addCenter(s, 'Ciencias');
      const room = await addRoom(s, center, 'Aula 1');
      for (let i = 1; i <= 5; i++) await addClient(s, room, `10.0.0.${i}`, macFor(0x0a0000000000 + i), { boot: i % 2 ? 'pxe' : '10' });
      scopes = (await s.get('/scopes')).body;
      const run = await ogserve(['backup', '--to', file, '--config', path.join(dir, 'config.json'), '--state-dir', dir]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /, 10 boot files to /, 'each client has a BIOS and a UEFI file');
    } finally {
      await s.close();
    }
    // The target's config: the server's own, on PostgreSQL, with its folders in its own directory.
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    config.database = testDatabaseSection(targetDir, 'postgresql');
    config['pxe-modes'] = { bios_dir: path.join(targetDir, 'tftpboot', 'menu.lst'), uefi_dir: path.join(targetDir, 'tftpboot', 'grub') };
    config.live = { directory: path.join(targetDir, 'tftpboot') };
    config.repository = { directory: path.join(targetDir, 'images') };
    writeFileSync(path.join(targetDir, 'config.json'), JSON.stringify(config));
    const restored = await ogserve(['restore', '--from', file, '--config', path.join(targetDir, 'config.json'), '--state-dir', targetDir]);
    assert.equal(restored.code, 0, restored.stderr);
    const expected = readBootFolders(dir);
    assert.deepEqual(bootFolderDifferences(readBootFolders(targetDir), expected), [], 'the boot files, byte for byte');
    const t = await startServer({ dir: targetDir, engine: 'postgresql' });
    try {
      assert.deepEqual((await t.get('/scopes')).body, scopes, 'the same tree, ids and all');
      assert.deepEqual(bootFolderDifferences(readBootFolders(targetDir), expected), [], 'the server found them right');
    } finally {
      await t.close();
    }
  } finally {
    await removeTestStore(dir, 'sqlite');
    await removeTestStore(targetDir, 'postgresql');
  }
});

test.run();

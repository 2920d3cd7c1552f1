import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { allPlugins, makeImportTarget } from '../../support/import-target';
import { withLegacyDatabase } from '../../support/legacy-db';
import { ogserve } from '../../support/process';
import { biosFileName } from '../../../plugins/pxe-modes/file-names';
import { makeTestDir, removeTestStore, startServer, type TestServer } from '../../support/server';
import { connectSide, testDatabaseSection, testEngine } from '../../support/test-db';

const mainJs = path.resolve(__dirname, '../../../cli/main.js');

/** Run `fn` against a server on the target's config and database. */
async function onTarget<T>(dir: string, fn: (s: TestServer) => Promise<T>): Promise<T> {
  const server = await startServer({ dir, config: { plugins: allPlugins, log: { level: 'warn' } } });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** What a console sees of the whole target, to compare before and after a run. */
async function everything(s: TestServer): Promise<unknown[]> {
  const reads = [
    ['/scopes'],
    ['/repositories'],
    ['/server'],
    ['/client/info', { client: ['10.1.1.11'] }],
    ['/client/setup', { client: ['10.1.1.11'] }],
    ['/hardware', { client: ['10.1.1.11'] }],
    ['/software', { client: ['10.1.1.11'], disk: 1, partition: 1 }],
    ['/schedule/get', {}],
  ] as const;
  const out: unknown[] = [];
  for (const [p, body] of reads) out.push((await s.get(p, body)).body);
  out.push((await s.get('/images')).body.images);
  out.push((await s.post('/schedule/get', {})).body);
  return out;
}

function run(args: string[]) {
  return ogserve(['import-opengnsys', ...args]);
}

test('an import writes every kept row with its reference id, field by field as the REST answers show them', async () => {
  await withLegacyDatabase({ bulk: { computers: 30, partitions: 4 } }, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      // An image file in the repository: its size, permissions and time win over the record.
      mkdirSync(path.join(dir, 'images'), { recursive: true });
      writeFileSync(path.join(dir, 'images', 'Win10Edu.img'), Buffer.alloc(4096));
      const result = await run(['--from', db.url, '--config', configFile]);
      assert.equal(result.code, 2, result.stderr);
      const lines = result.stdout.trimEnd().split('\n');
      assert.ok(lines.includes('table                    read  imported  refused  left out'), result.stdout);
      assert.match(lines.at(-1)!, /^imported into (sqlite|mariadb|postgresql) .+; boot files written for 42 clients$/);
      assert.match(result.stderr, /^writing the inventory: 3 centers, 10 rooms, 42 clients$/m);

      await onTarget(dir, async (s) => {
        const info = (await s.get('/client/info', { client: ['10.1.1.11'] })).body;
        assert.equal(info.id, 1);
        assert.equal(info.name, 'pc-a1-01');
        assert.equal(info.serial_number, 'SN-0001');
        assert.equal(info.mac, 'aabbcc000001');
        assert.equal(info.room, 1);
        assert.equal(info.folder_id, 0x10000 + 3);
        assert.equal(info.netmask, '255.255.255.0');
        assert.equal(info.boot, '19pxeADMIN');
        assert.equal(info.livedir, 'ogLive-5.11.0-r20210413');
        assert.equal(info.netiface, 'eth1');
        assert.equal(info.netdriver, 'e1000e');
        assert.equal(info.repo_id, 1);
        assert.equal(info.server_id, 2);
        assert.equal(info.remote, true);
        assert.equal(info.maintenance, true);
        assert.ok(info.hardware_id > 0);

        const room = (await s.get('/room/info', { id: 1 })).body;
        assert.equal(room.name, 'Aula 1');
        assert.equal(room.netmask, '255.255.255.0');
        assert.equal(room.gateway, '10.1.1.1');
        assert.equal((await s.get('/center/info', { id: 7 })).body.name, 'Archivo');

        const setup = (await s.get('/client/setup', { client: ['10.1.1.11'] })).body.partitions;
        const p1 = setup.find((p: { disk: number; partition: number }) => p.disk === 1 && p.partition === 1);
        assert.equal(p1.code, 7);
        assert.equal(p1.size, 104857600 * 1024);
        assert.equal(p1.used_size, Math.floor((104857600 * 1024 * 45) / 100));
        assert.equal(p1.filesystem, 13);
        assert.equal(p1.filesystem_name, 'NTFS');
        assert.equal(p1.os, 'Windows 10 Education');
        assert.equal(p1.image, 1);
        assert.equal(p1.software, 1, 'the profile keeps its id');
        const disk2 = setup.find((p: { disk: number; partition: number }) => p.disk === 2 && p.partition === 0);
        assert.equal(BigInt(disk2.size), 9007199254740991n * 1024n, 'exact past 2^53');

        const hardware = (await s.get('/hardware', { client: ['10.1.1.11'] })).body.hardware;
        assert.deepEqual(hardware[1], { type: 'Microprocesadores', description: 'Intel Core i5-10500 CPU @ 3.10GHz' });
        assert.equal(hardware.length, 5, 'the site-only type is left out');
        const software = (await s.get('/software', { client: ['10.1.1.11'], disk: 1, partition: 1 })).body.software;
        assert.deepEqual([...software].sort(), ['LibreOffice 7.5.3', 'Microsoft Office 2019', 'Mozilla Firefox 115.0']);

        const repositories = (await s.get('/repositories')).body.repositories;
        assert.deepEqual(
          repositories.map((r: { id: number; name: string; addresses: string[] }) => [r.id, r.name, r.addresses]),
          [
            [1, 'Repositorio (Default)', ['10.1.0.10']],
            [2, 'Repositorio Norte', ['10.2.0.10']],
          ],
        );
        const servers = (await s.get('/server')).body.servers;
        assert.deepEqual(
          servers.map((x: { id: number; ip: string; port: number }) => [x.id, x.ip, x.port]),
          [
            [1, '10.1.0.1', 2008],
            [2, '10.2.0.1', 2009],
          ],
        );

        const images = (await s.get('/images')).body.images;
        const win = images.find((i: { id: number }) => i.id === 1);
        assert.equal(win.name, 'Win10Edu');
        assert.equal(win.description, 'Windows 10 Education');
        assert.equal(win.size, 4096, 'from the file');
        assert.equal(win.datasize, 21474836480);
        assert.equal(win.repo_id, 1);
        assert.equal(win.center_id, 1);
        assert.equal(win.group_id, 5);
        assert.equal(win.permissions, '644');
        assert.equal(win.software_id, 1);
        assert.equal(images.find((i: { id: number }) => i.id === 3).modified, 'Fri Sep  1 08:00:00 2023', 'no file: the record time');
        assert.ok((await s.get('/images')).text.includes('"datasize":9007199254740993,'), 'exact past 2^53');
        assert.deepEqual(images.map((i: { id: number }) => i.id).sort(), [1, 3, 6, 8, 9]);

        // Boot files of an imported client, from its boot mode's template.
        const tftp = path.join(dir, 'tftpboot');
        assert.ok(existsSync(path.join(tftp, 'menu.lst', '01-AA-BB-CC-00-00-01')));
        assert.ok(existsSync(path.join(tftp, 'grub', '01-aa:bb:cc:00:00:01')));

        // New rows get ids past the imported ones on every engine.
        const added = await s.post('/center/add', { name: 'Nuevo' });
        assert.equal(added.status, 200, added.text);
        const scopes = (await s.get('/scopes')).body.scope;
        assert.ok(scopes.some((c: { name: string; id: number }) => c.name === 'Nuevo' && c.id > 7));
      });
      assert.ok(readFileSync(path.join(dir, 'tftpboot', 'grub', '01-aa:bb:cc:00:00:01'), 'utf8').length > 0);
    } finally {
      await removeTestStore(dir);
    }
  });
});

test('a second run refuses a non-empty inventory; with --merge it changes nothing; --dry-run writes nothing', async () => {
  await withLegacyDatabase({}, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      const dry = await run(['--from', db.url, '--config', configFile, '--dry-run']);
      assert.equal(dry.code, 2, dry.stderr);
      const empty = await onTarget(dir, (s) => s.get('/scopes'));
      assert.deepEqual(empty.body, { scope: [] });

      assert.equal((await run(['--from', db.url, '--config', configFile])).code, 2);
      const first = await onTarget(dir, everything);

      const again = await run(['--from', db.url, '--config', configFile]);
      assert.equal(again.code, 1);
      assert.match(
        again.stderr,
        /already holds 3 centers, 5 room folders, 10 rooms, .*: import into an empty inventory, or run with --merge/,
      );

      const merged = await run(['--from', db.url, '--config', configFile, '--merge']);
      assert.equal(merged.code, 2, merged.stderr);
      assert.ok(merged.stdout.includes('left out of ordenadores: 12 already in ogserve under the same id: left as it is'), merged.stdout);
      assert.deepEqual(await onTarget(dir, everything), first, 'a second run changes nothing');
    } finally {
      await removeTestStore(dir);
    }
  });
});

/** Whether the server engine holds the database of `dir` (SQLite: whether its file exists). */
async function databaseExists(dir: string): Promise<boolean> {
  const section = testDatabaseSection(dir) as { path: string; name: string };
  if (testEngine === 'sqlite') return existsSync(section.path);
  const side = await connectSide(dir, true);
  try {
    const sql =
      testEngine === 'postgresql'
        ? 'select 1 from pg_database where datname = ?'
        : 'select 1 from information_schema.schemata where schema_name = ?';
    return (await side.query(sql, [section.name])).length > 0;
  } finally {
    await side.close();
  }
}

test('--dry-run into a target that holds no ogserve yet creates nothing: no database, no file, no folder', async () => {
  await withLegacyDatabase({}, async (db) => {
    const dir = makeTestDir();
    try {
      const configFile = path.join(dir, 'ogserve.json');
      writeFileSync(configFile, JSON.stringify({ plugins: allPlugins, database: testDatabaseSection(dir), log: { level: 'warn' } }));
      const result = await run(['--from', db.url, '--config', configFile, '--state-dir', path.join(dir, 'state'), '--dry-run']);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stdout, /^refused {2}ordenadores 4 \(pc-a1-04, 0\.0\.0\.0\)/m, 'checked as against an empty ogserve');
      assert.match(
        result.stdout.trimEnd().split('\n').at(-1)!,
        /^dry run: nothing was written to \S+ .+, which holds no ogserve yet: checked against an empty inventory$/,
      );
      assert.deepEqual(readdirSync(dir), ['ogserve.json'], 'no database file, lock file or state directory');
      assert.equal(await databaseExists(dir), false, 'no database');
    } finally {
      await removeTestStore(dir);
    }
  });
});

test('--merge adds what the inventory lacks and refuses what collides with its own rows, ids included', async () => {
  await withLegacyDatabase({}, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      await onTarget(dir, async (s) => {
        // Ids 1, as the legacy center, room and computer 1 have: other rows under the same ids.
        assert.equal((await s.post('/center/add', { name: 'Mío' })).status, 200);
        const room = await s.post('/room/add', { center: 1, name: 'Sala propia', netmask: '255.255.255.0' });
        assert.equal(room.status, 200, room.text);
        // Takes the MAC of legacy computer 15.
        const client = await s.post('/client/add', { ip: '10.9.9.9', mac: 'aa:bb:cc:00:00:15', room: 1, name: 'propio' });
        assert.equal(client.status, 200, client.text);
      });
      const result = await run(['--from', db.url, '--config', configFile, '--merge']);
      assert.equal(result.code, 2, result.stderr);
      const refused = (row: string, reason: string) => assert.ok(result.stdout.includes(`refused  ${row}: ${reason}\n`), result.stdout);
      refused('centros 1 (Unidad Organizativa (Default))', 'id 1 is already ogserve center 1 (Mío), another center (not the same name)');
      refused('aulas 1 (Aula 1)', 'id 1 is already ogserve room 1 (Sala propia, center 1), another room (not the same center and name)');
      refused(
        'ordenadores 1 (pc-a1-01, 10.1.1.11)',
        'id 1 is already ogserve client 1 (propio, 10.9.9.9, mac aabbcc000015), another computer (not the same mac)',
      );
      refused('ordenadores 2 (10.1.1.12)', 'room 1 was refused');
      refused('ordenadores 15 (pc-lb-15, 10.2.3.15)', 'mac aabbcc000015 already belongs to ogserve client 1');
      // Repositories are matched by id alone: a site's repository 1 and ogserve's default one are both the server's.
      assert.deepEqual(
        result.stdout.split('\n').filter((l) => l.includes('already in ogserve under the same id')),
        ['left out of repositorios: 1 already in ogserve under the same id: left as it is'],
        'no other row is taken for one ogserve has',
      );
      await onTarget(dir, async (s) => {
        assert.equal((await s.get('/center/info', { id: 1 })).body.name, 'Mío', 'the row it held is left as it is');
        assert.equal((await s.get('/room/info', { id: 1 })).body.name, 'Sala propia');
        assert.equal((await s.get('/center/info', { id: 2 })).body.name, 'Campus Norte');
        const own = (await s.get('/client/info', { client: ['10.9.9.9'] })).body;
        assert.equal(own.name, 'propio');
        assert.equal((await s.get('/client/info', { client: ['10.1.1.11'] })).status, 400, 'legacy computer 1 is not in');
        const legacy = (await s.get('/client/info', { client: ['10.2.3.16'] })).body;
        assert.equal(legacy.id, 16, 'the rest of the site is');
      });
    } finally {
      await removeTestStore(dir);
    }
  });
});

test('--state-dir puts the database and the boot files where `serve --state-dir` keeps them', async () => {
  await withLegacyDatabase({}, async (db) => {
    const dir = makeTestDir();
    try {
      // The appliance's config: no data paths, so each default goes under the state directory.
      const state = path.join(dir, 'state');
      const configFile = path.join(dir, 'ogserve.json');
      const database = testEngine === 'sqlite' ? { type: 'sqlite' } : testDatabaseSection(dir);
      writeFileSync(configFile, JSON.stringify({ plugins: allPlugins, database, log: { level: 'warn' } }));
      const result = await run(['--from', db.url, '--config', configFile, '--state-dir', state]);
      assert.equal(result.code, 2, result.stderr);
      if (testEngine === 'sqlite') assert.match(result.stdout, new RegExp(`^imported into sqlite ${state}/ogserve\\.sqlite;`, 'm'));
      assert.ok(existsSync(path.join(state, 'tftpboot', 'menu.lst', biosFileName('aabbcc000001'))), 'boot files in the state directory');
      // A server on that database finds the import.
      const s = await startServer({
        dir,
        config: { plugins: allPlugins, database: { ...database, path: path.join(state, 'ogserve.sqlite') } },
      });
      try {
        assert.equal((await s.get('/client/info', { client: ['10.1.1.11'] })).body.name, 'pc-a1-01', 'serve reads the import');
      } finally {
        await s.close();
      }
    } finally {
      await removeTestStore(dir);
    }
  });
});

test('killed in the middle of writing, an import leaves the target as it was', async () => {
  await withLegacyDatabase({ bulk: { computers: 3000, partitions: 4 } }, async (db) => {
    const { dir, configFile } = await makeImportTarget();
    try {
      const before = await onTarget(dir, everything);
      const child = spawn(process.execPath, [mainJs, 'import-opengnsys', '--from', db.url, '--config', configFile], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('writing the inventory')) resolve();
        });
        child.on('exit', () => reject(new Error(`the import ended before writing: ${stderr}`)));
      });
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      assert.deepEqual(await onTarget(dir, everything), before);
      // And the target takes the whole import afterwards.
      const result = await run(['--from', db.url, '--config', configFile]);
      assert.equal(result.code, 2, result.stderr);
    } finally {
      await removeTestStore(dir);
    }
  });
});

test.run();

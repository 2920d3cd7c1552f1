import assert from 'node:assert/strict';
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { biosFileName, uefiFileName } from '../../../plugins/pxe-modes/file-names';
import { bootFolderDifferences, killsPerScenario, readBootFolders, seededRandom } from '../../support/boot-files';
import { bulkInsert, ipFor } from '../../support/bulk';
import { type ChildServer, prepareSite, spawnServer } from '../../support/child-server';
import { macFor } from '../../support/fixtures';
import { mainScript, runNode } from '../../support/process';
import { makeTestDir, removeTestStore, send, TOKEN } from '../../support/server';
import { connectSide, type SideConnection } from '../../support/test-db';

/**
 * A kill at any point of POST /mode is put right by the next start, on the engine
 * OGSERVE_TEST_DB selects: the real service is killed (SIGKILL) at a random moment of a
 * change of mode over many clients, restarted, and every client's two boot files must then
 * hold, byte for byte, what its stored mode renders to, with nothing else in the folders
 * (no temp file). Each kill comes after a random number of the change's files are in
 * place (one to all of them: the last ones race the update of the records); every other
 * time the start that follows is killed too, after a random number of its own writes.
 * OGSERVE_TEST_KILLS raises the number of kills, OGSERVE_TEST_SEED replays a run.
 */

const clients = 500;
const modes = ['ogLive', 'pxe'];
const ips = Array.from({ length: clients }, (_, i) => ipFor(i + 1));

/** What each mode's files are, by `<folder>/<name>`: written by complete changes, before any kill. */
type Reference = Map<string, Map<string, Buffer>>;

/** The files every client should have now: those of the mode its record names. */
async function expectedFiles(side: SideConnection, reference: Reference): Promise<Map<string, Buffer>> {
  const expected = new Map<string, Buffer>();
  for (const { mac, boot } of await side.query<{ mac: string; boot: string }>('select mac, boot from clients')) {
    for (const name of [`menu.lst/${biosFileName(mac)}`, `grub/${uefiFileName(mac)}`]) expected.set(name, reference.get(boot)!.get(name)!);
  }
  return expected;
}

/** Resolves once `count` boot files of a change are renamed into place (or `done` settles first). */
function filesInPlace(dir: string, count: number, done: Promise<unknown>): { reached: Promise<void>; close: () => void } {
  const watchers: FSWatcher[] = [];
  const reached = new Promise<void>((resolve) => {
    let seen = 0;
    for (const folder of ['menu.lst', 'grub']) {
      watchers.push(
        watch(path.join(dir, 'tftpboot', folder), (_event, name) => {
          if (name?.startsWith('01-') && ++seen >= count) resolve();
        }),
      );
    }
    void done.then(() => resolve());
  });
  return {
    reached,
    close: () => {
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** Start the service on the config the last child used and SIGKILL it once `files` files of its start are in place. */
async function startKilledAfter(dir: string, files: number): Promise<void> {
  const run = runNode(mainScript, ['--config', path.join(dir, 'child-config.json')]);
  // Its summary line (a warning: it writes) ends the wait should fewer renames be seen.
  const done = Promise.race([run.exited, run.waitFor(/checked against their records/, 120_000).catch(() => undefined)]);
  const watcher = filesInPlace(dir, files, done);
  try {
    await watcher.reached;
  } finally {
    watcher.close();
    await run.kill();
  }
}

test('SIGKILL at random points of POST /mode over 500 clients: after the restart every boot file is what its record renders to', async () => {
  const kills = killsPerScenario(3);
  const random = seededRandom();
  const dir = makeTestDir();
  try {
    await prepareSite(dir, async (s) => {
      const db = s.app.database;
      await bulkInsert(db, 'centers', ['id', 'name'], [[1, 'C']]);
      await bulkInsert(db, 'rooms', ['id', 'name', 'center_id', 'netmask'], [[1, 'R', 1, '255.0.0.0']]);
      await bulkInsert(
        db,
        'clients',
        ['id', 'name', 'ip', 'mac', 'room_id', 'boot'],
        ips.map((ip, i) => [i + 1, `pc-${i}`, ip, macFor(i + 1), 1, modes[0]]),
      );
    });
    const side = await connectSide(dir);
    let server: ChildServer | undefined;
    try {
      // The reference: each mode's files as a complete change writes them.
      server = await spawnServer({ dir });
      const reference: Reference = new Map();
      for (const mode of [...modes.slice(1), modes[0]!]) {
        const r = await server.post('/mode', { clients: ips, mode });
        assert.equal(r.status, 200, r.text);
        reference.set(mode, readBootFolders(dir));
      }
      let midway = 0;
      let startKills = 0;
      const mismatches: string[] = [];
      for (let kill = 0; kill < kills; kill++) {
        // A mode the first clients (written first) do not hold: their files change at once.
        const held = (await side.query<{ boot: string }>('select boot from clients where id <= 64')).map((r) => r.boot);
        const choices = modes.filter((m) => !held.includes(m));
        const mode = choices[Math.floor(random.next() * choices.length)]!;
        const files = 1 + Math.floor(random.next() * clients * 2);
        const reply = send(server.restPort, 'POST', '/mode', { clients: ips, mode }, { Authorization: TOKEN }).catch(() => undefined);
        const watcher = filesInPlace(dir, files, reply);
        try {
          await watcher.reached;
        } finally {
          watcher.close();
        }
        await server.kill();
        await reply;
        const atKill = bootFolderDifferences(readBootFolders(dir), await expectedFiles(side, reference), Number.POSITIVE_INFINITY);
        if (atKill.length > 0) midway++;
        // Every other time the start that puts them right is killed too, in the middle of its writes.
        const toWrite = atKill.filter((line) => !line.endsWith('should not be there')).length;
        let startKilled = '';
        if (kill % 2 === 1 && toWrite > 0) {
          const startFiles = 1 + Math.floor(random.next() * toWrite);
          await startKilledAfter(dir, startFiles);
          startKilled = `, start killed after ${startFiles} of ${toWrite}`;
          startKills++;
        }
        server = await spawnServer({ dir });
        const after = bootFolderDifferences(readBootFolders(dir), await expectedFiles(side, reference));
        if (after.length > 0) mismatches.push(`kill ${kill + 1} (${mode}, after ${files} files${startKilled}): ${after.join('; ')}`);
      }
      console.log(
        `POST /mode: ${kills} kills (and ${startKills} of the start after one), ${midway} with files and records apart at the kill, ` +
          `${mismatches.length} mismatches after the restart`,
      );
      assert.deepEqual(mismatches, [], `seed ${random.seed}`);
      assert.ok(midway >= 1, `a kill left files and records apart (seed ${random.seed})`);
    } finally {
      await server?.kill();
      await side.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();

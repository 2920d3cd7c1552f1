import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { type FSWatcher, mkdirSync, watch } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { bootFolderDifferences, bootFolders, killsPerScenario, readBootFolders, seededRandom } from '../../support/boot-files';
import { spawnServer } from '../../support/child-server';
import { makeImportTarget } from '../../support/import-target';
import { withLegacyDatabase } from '../../support/legacy-db';
import { ogserve } from '../../support/process';
import { removeTestStore } from '../../support/server';

/**
 * An import killed (SIGKILL) while it writes boot files, after its records are committed,
 * on the engine OGSERVE_TEST_DB selects: the next `--merge` run, which imports no client
 * again, and the next start of the service each leave every client's files exactly as a
 * complete import writes them, and no temp file. Each kill comes after a random number of
 * files are in place; the remedies alternate. OGSERVE_TEST_KILLS raises the kills,
 * OGSERVE_TEST_SEED replays a run.
 */

const mainJs = path.resolve(__dirname, '../../../cli/main.js');

/** Run the import and SIGKILL it once `files` boot files are renamed into place; resolves with whether it was still running. */
async function importKilledAfter(dir: string, configFile: string, from: string, files: number): Promise<boolean> {
  const watchers: FSWatcher[] = [];
  const child = spawn(process.execPath, [mainJs, 'import-opengnsys', '--from', from, '--config', configFile], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  try {
    await new Promise<void>((resolve) => {
      let seen = 0;
      for (const folder of bootFolders) {
        watchers.push(
          watch(path.join(dir, 'tftpboot', folder), (_event, name) => {
            if (name?.startsWith('01-') && ++seen >= files) resolve();
          }),
        );
      }
      void exited.then(() => resolve());
    });
  } finally {
    for (const watcher of watchers) watcher.close();
  }
  const running = child.exitCode === null && child.signalCode === null;
  child.kill('SIGKILL');
  await exited;
  return running;
}

test('an import killed while it writes boot files is put right by the next --merge run and by the next start', async () => {
  const kills = killsPerScenario(3);
  const random = seededRandom();
  await withLegacyDatabase({ bulk: { computers: 300, partitions: 1 } }, async (db) => {
    // The reference: what a complete import writes.
    const complete = await makeImportTarget();
    let reference: Map<string, Buffer>;
    try {
      const run = await ogserve(['import-opengnsys', '--from', db.url, '--config', complete.configFile]);
      // 2: the legacy fixture holds rows the import refuses (exit 1 would be boot files not written).
      assert.equal(run.code, 2, run.stderr);
      reference = readBootFolders(complete.dir);
    } finally {
      await removeTestStore(complete.dir);
    }
    assert.ok(reference.size > 600, `both files of every client: ${reference.size}`);

    let midway = 0;
    const mismatches: string[] = [];
    for (let kill = 0; kill < kills; kill++) {
      const remedy = kill % 2 === 0 ? '--merge' : 'start';
      const { dir, configFile } = await makeImportTarget();
      try {
        for (const folder of bootFolders) mkdirSync(path.join(dir, 'tftpboot', folder), { recursive: true });
        const files = 1 + Math.floor(random.next() * reference.size);
        if (await importKilledAfter(dir, configFile, db.url, files)) midway++;
        if (remedy === '--merge') {
          const merged = await ogserve(['import-opengnsys', '--from', db.url, '--config', configFile, '--merge']);
          assert.equal(merged.code, 2, merged.stderr);
        } else {
          const server = await spawnServer({ dir });
          await server.kill();
        }
        const after = bootFolderDifferences(readBootFolders(dir), reference);
        if (after.length > 0) mismatches.push(`kill ${kill + 1} (after ${files} files, then ${remedy}): ${after.join('; ')}`);
      } finally {
        await removeTestStore(dir);
      }
    }
    console.log(`import: ${kills} kills, ${midway} while it was writing, ${mismatches.length} mismatches after the next run or start`);
    assert.deepEqual(mismatches, [], `seed ${random.seed}`);
    assert.ok(midway >= 1, `a kill landed while the import wrote boot files (seed ${random.seed})`);
  });
});

test.run();

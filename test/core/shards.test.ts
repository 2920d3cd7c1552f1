// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { shardFiles } from '../support/shards';

const files = [
  'a.test.js',
  'packaging/debian-package.test.js',
  'b.test.js',
  'plugins/tftp/vm-boot.test.js',
  'cli/backup.test.js',
  'c.test.js',
  'plugins/auth/sign-in-timing.test.js',
];

test("CI's shards hold every file once, in the pass's order, the slowest ones apart", () => {
  const shards = [1, 2, 3].map((i) => shardFiles(files, i, 3, (f) => f));
  assert.deepEqual(shards.flat().sort(), [...files].sort(), 'every file, once');
  for (const shard of shards)
    assert.deepEqual(
      shard,
      files.filter((f) => shard.includes(f)),
      'in the order the pass lists them',
    );
  const slowest = ['packaging/debian-package.test.js', 'plugins/tftp/vm-boot.test.js', 'cli/backup.test.js'];
  assert.deepEqual(
    slowest.map((f) => shards.findIndex((shard) => shard.includes(f))).sort(),
    [0, 1, 2],
    'the three slowest in three shards',
  );
  assert.deepEqual(
    shardFiles(files, 1, 1, (f) => f),
    files,
    'one shard is the whole pass',
  );
});

test.run();

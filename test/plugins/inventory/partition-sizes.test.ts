import assert from 'node:assert/strict';
import { test } from 'uvu';
import { PartitionSizes } from '../../../plugins/inventory/partition-sizes';

/** A reader over a table held here, counting its reads; `gate` holds a read until released. */
function table(rows: Map<number, bigint>) {
  const reads: number[][] = [];
  let gate: Promise<void> | undefined;
  const sizes = new PartitionSizes(async (ids) => {
    reads.push(ids);
    const answer = new Map(ids.filter((id) => rows.has(id)).map((id) => [id, rows.get(id)!]));
    await gate;
    return answer;
  });
  return {
    sizes,
    reads,
    hold(): () => void {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

test('sizes are read once per client, a client without the partition included, then answered from memory', async () => {
  const t = table(new Map([[1, 10n]]));
  assert.deepEqual(await t.sizes.of([1, 2], 'cache'), new Map([[1, 10n]]));
  assert.deepEqual(await t.sizes.of([2, 1], 'CACHE'), new Map([[1, 10n]]), 'any case, from memory');
  assert.deepEqual(t.reads, [[1, 2]]);
  await t.sizes.of([1, 3], 'CACHE');
  assert.deepEqual(t.reads, [[1, 2], [3]], 'only the client not read yet');
});

test('a changed client is read again; the others are not', async () => {
  const rows = new Map([
    [1, 10n],
    [2, 20n],
  ]);
  const t = table(rows);
  await t.sizes.of([1, 2], 'CACHE');
  rows.set(1, 11n);
  t.sizes.changed([1]);
  assert.deepEqual(
    await t.sizes.of([1, 2], 'CACHE'),
    new Map([
      [2, 20n],
      [1, 11n],
    ]),
  );
  assert.deepEqual(t.reads, [[1, 2], [1]]);
});

test('a read that a write overtook answers what it read but is not kept', async () => {
  const rows = new Map([[1, 10n]]);
  const t = table(rows);
  const release = t.hold();
  const racing = t.sizes.of([1], 'CACHE');
  // The write lands while the read is under way.
  rows.set(1, 11n);
  t.sizes.changed([1]);
  release();
  assert.deepEqual(await racing, new Map([[1, 10n]]), 'what it read');
  assert.deepEqual(await t.sizes.of([1], 'CACHE'), new Map([[1, 11n]]), 'read again, not the stale size');
  assert.equal(t.reads.length, 2);
});

test('clear forgets everything, a read under way included', async () => {
  const rows = new Map([[1, 10n]]);
  const t = table(rows);
  await t.sizes.of([1], 'CACHE');
  const release = t.hold();
  t.sizes.changed([1]);
  const racing = t.sizes.of([1], 'CACHE');
  rows.set(1, 12n);
  t.sizes.clear();
  release();
  await racing;
  assert.deepEqual(await t.sizes.of([1], 'CACHE'), new Map([[1, 12n]]));
  assert.equal(t.reads.length, 3);
});

test.run();

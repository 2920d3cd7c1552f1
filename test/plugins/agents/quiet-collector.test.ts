// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import { type CollectionReport, QuietCollector } from '../../../plugins/agents/quiet-collector';

/** A collector whose collections are counted instead of run. */
function counted(threshold: number, quietMs: number) {
  const reports: CollectionReport[] = [];
  let collections = 0;
  const collector = new QuietCollector(
    threshold,
    quietMs,
    (r) => reports.push(r),
    () => collections++,
  );
  return { collector, reports, collections: () => collections };
}

test('no collection below the threshold, however quiet it gets', async () => {
  const { collector, collections } = counted(5, 20);
  collector.died(4);
  await sleep(80);
  assert.equal(collections(), 0);
});

test('one collection once the threshold is reached and the deaths stop for the quiet time; later deaths count afresh', async () => {
  const { collector, reports } = counted(5, 40);
  for (let i = 0; i < 10; i++) {
    collector.died();
    await sleep(10);
  }
  assert.equal(reports.length, 0, 'deaths 10 ms apart keep postponing it');
  await sleep(100);
  assert.equal(reports.length, 1, 'one collection after the quiet time');
  assert.equal(reports[0]!.deaths, 10, 'every death since the last collection reported');
  collector.died(3);
  await sleep(80);
  assert.equal(reports.length, 1, 'three more are under the threshold');
  collector.died(2);
  await sleep(80);
  assert.equal(reports.length, 2, 'five more are not');
  assert.equal(reports[1]!.deaths, 5);
});

test('stop cancels a collection waiting for quiet', async () => {
  const { collector, collections } = counted(1, 20);
  collector.died();
  collector.stop();
  await sleep(60);
  assert.equal(collections(), 0);
});

test("the real collection frees what nothing references any more, without V8's command-line flag", async () => {
  const reports: CollectionReport[] = [];
  const collector = new QuietCollector(1, 1, (r) => reports.push(r));
  let garbage: unknown[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, text: `item ${i}` }));
  const whileReferencedMiB = process.memoryUsage().heapUsed / 1_048_576;
  assert.equal((garbage as unknown[]).length, 300_000);
  garbage = undefined;
  collector.died();
  await sleep(30);
  assert.equal(reports.length, 1);
  // Against the heap while it was referenced: a collection V8 ran by itself meanwhile does not matter.
  assert.ok(reports[0]!.heapAfterMiB < whileReferencedMiB - 5, `heap ${whileReferencedMiB.toFixed(1)} -> ${reports[0]!.heapAfterMiB} MiB`);
});

test.run();

import assert from 'node:assert/strict';
import { test } from 'uvu';
import { insertInChunks } from '../../core/database';
import { plainInsert } from '../../core/plain-insert';
import { BootStageEntity } from '../../plugins/boot/entities/boot-stage';
import { PartitionEntity } from '../../plugins/inventory/entities/partition';
import { JobClientEntity } from '../../plugins/jobs/entities/job-client';
import { addCenter, addClient, addRoom, macFor } from '../support/fixtures';
import { startServer } from '../support/server';

/**
 * Core's plain inserts (issue 52): rows of plain values go in one statement of core's own,
 * with each column's type (a bigint, a double) and a many-to-one given as its id; any other
 * row (a boolean, a key some rows lack) through MikroORM's insert. Every value reads back as
 * it was written, on every engine.
 */
test('insertInChunks: plain rows in statements of its own, in chunks, every value back; other rows through MikroORM', async () => {
  const s = await startServer();
  try {
    const room = await addRoom(s, await addCenter(s), 'R', '255.0.0.0');
    const client = await addClient(s, room, '127.0.90.1', macFor(1));
    const db = s.app.database;
    const em = db.fork();

    const lines = Array.from({ length: 1200 }, (_, i) => ({
      jobId: 7,
      ip: `127.0.${i >> 8}.${i & 255}`,
      room: i,
      state: i % 2 ? 'done' : 'sent',
      reason: "it's \\ a 'quote' ñ 💡",
      status: i % 3 ? null : 200,
      outcome: '',
      sentAt: 1_767_225_600_123 + i,
      endedAt: i % 2 ? 2 ** 40 + 0.5 : null,
      code: null,
      output: i === 5 ? 'x'.repeat(60_000) : null,
    }));
    assert.ok(plainInsert(em, JobClientEntity, lines.slice(0, 2)), 'plain values: a statement of its own');
    await insertInChunks(em, JobClientEntity, lines as never[], 500);
    const back = await db.query<Record<string, unknown>>(
      'select ip, room, state, reason, status, sent_at, ended_at, output from job_clients where job_id = 7 order by id',
    );
    assert.equal(back.length, 1200);
    back.forEach((row, i) => {
      const line = lines[i]!;
      assert.deepEqual(
        [row.ip, Number(row.room), row.state, row.reason, row.status === null ? null : Number(row.status)],
        [line.ip, line.room, line.state, line.reason, line.status],
        `line ${i}`,
      );
      assert.deepEqual(
        [Number(row.sent_at), row.ended_at === null ? null : Number(row.ended_at)],
        [line.sentAt, line.endedAt],
        `times ${i}`,
      );
      assert.equal(row.output, line.output, `output ${i}`);
    });

    // A many-to-one as its id and bigints past 2^53 as strings: a statement of its own too.
    const parts = [1, 2].map((partition) => ({ client, disk: 1, partition, size: '9007199254740993', usedSize: '0', freeSize: '5' }));
    assert.ok(plainInsert(em, PartitionEntity, parts));
    await insertInChunks(em, PartitionEntity, parts as never[]);
    const sizes = await db.query<{ size: string | number }>(
      'select cast(size as char(30)) as size from partitions where client_id = ? order by part_number',
      [client],
    );
    assert.deepEqual(
      sizes.map((r) => String(r.size).trim()),
      ['9007199254740993', '9007199254740993'],
    );

    // A boolean, and rows whose keys differ: MikroORM's insert, with the same result.
    const stage = (cutShort: boolean | undefined) => ({
      client,
      boot: '1',
      stage: 'kernel',
      at: '2',
      ...(cutShort === undefined ? {} : { cutShort }),
    });
    assert.equal(plainInsert(em, BootStageEntity, [stage(true)]), undefined, 'a boolean');
    assert.equal(plainInsert(em, BootStageEntity, [stage(undefined), { ...stage(undefined), bytes: '5' }]), undefined, 'keys that differ');
    await insertInChunks(em, BootStageEntity, [stage(true), stage(false)] as never[]);
    const cut = await db.query<{ cut_short: unknown }>('select cut_short from boot_stages where client_id = ? order by id', [client]);
    assert.deepEqual(
      cut.map((r) => Boolean(Number(r.cut_short)) || r.cut_short === true),
      [true, false],
    );
  } finally {
    await s.close();
  }
});

test.run();

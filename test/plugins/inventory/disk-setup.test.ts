import assert from 'node:assert/strict';
import { test } from 'uvu';
import { Inventory, type DiskEntry } from '../../../plugins/inventory';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { withServer } from '../../support/server';

const report = (size: bigint, os = 'Debian'): DiskEntry[] => [
  { disk: 1, partition: 0, diskType: 'DISK', code: 2, size: size * 4n, filesystem: '', os: '' },
  { disk: 1, partition: 1, code: 0x83, size, usedSize: size / 2n, freeSize: size / 2n, filesystem: 'EXT4', os },
];

test('many concurrent reports all land, each client with its own rows', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    const ids: number[] = [];
    for (let i = 1; i <= 300; i++) ids.push(await addClient(s, room, `10.0.${i >> 8}.${i & 255}`, macFor(i)));
    const inventory = s.app.container.resolve(Inventory);
    await Promise.all(ids.map((id, i) => inventory.storeDiskSetup(id, report(BigInt(1000 + i)), `SN${i}`)));
    for (const [i, id] of ids.entries()) {
      const rows = await inventory.diskSetup(id);
      assert.equal(rows.length, 2, `client ${id} rows`);
      assert.equal(rows[1]!.size, BigInt(1000 + i), `client ${id} size`);
    }
    const serials = async () =>
      new Map((await s.app.database.query('select id, serial_number from clients')).map((r) => [Number(r.id), r.serial_number]));
    const stored = await serials();
    for (const [i, id] of ids.entries()) assert.equal(stored.get(id), `SN${i}`, `client ${id}: its own serial`);
    // A serial number once stored stays, whatever later reports say (in a batch or alone).
    await Promise.all(ids.map((id) => inventory.storeDiskSetup(id, report(5n), 'OTHER')));
    await inventory.storeDiskSetup(ids[0]!, report(5n), 'OTHER');
    assert.deepEqual(await serials(), stored, 'serials kept');
    assert.equal((await s.get('/client/info', { client: ['10.0.0.1'] })).body.serial_number, 'SN0', 'the view too');
  }));

test('a report that cannot be stored fails alone; the others of its batch land', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    const good = await addClient(s, room, '10.0.0.1', macFor(1));
    const inventory = s.app.container.resolve(Inventory);
    const results = await Promise.allSettled([
      inventory.storeDiskSetup(good, report(10n)),
      inventory.storeDiskSetup(99_999, report(10n)),
      inventory.storeDiskSetup(good, report(20n)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
      'outcomes',
    );
    assert.equal((await inventory.diskSetup(good))[1]!.size, 20n, 'reports of one client applied in order');
    assert.equal(
      Number((await s.app.database.query('select count(*) as n from partitions'))[0]!.n),
      2,
      'nothing stored for the unknown client',
    );
  }));

test('two reports of one client in one batch: the later is what is stored, once', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    const a = await addClient(s, room, '10.0.0.1', macFor(1));
    const b = await addClient(s, room, '10.0.0.2', macFor(2));
    const inventory = s.app.container.resolve(Inventory);
    const withData: DiskEntry[] = [...report(10n), { disk: 1, partition: 2, code: 0x83, size: 5n, filesystem: 'EXT4', os: '' }];
    await Promise.all([
      inventory.storeDiskSetup(a, withData),
      inventory.storeDiskSetup(b, report(7n)),
      inventory.storeDiskSetup(a, report(20n)),
    ]);
    const rows = await inventory.diskSetup(a);
    assert.deepEqual(
      rows.map((r) => [r.partition, r.size]),
      [
        [0, 80n],
        [1, 20n],
      ],
      'the later report, no partition of the earlier left, none twice',
    );
    assert.equal((await inventory.diskSetup(b))[1]!.size, 7n, 'the other client of the batch');
  }));

test('a partition keeps its image link while it is unchanged and loses it when replaced', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    const id = await addClient(s, room, '10.0.0.1', macFor(1));
    const inventory = s.app.container.resolve(Inventory);
    await inventory.storeDiskSetup(id, report(100n));
    await s.app.database.query('update partitions set image = 7 where client_id = ?', [id]);
    await inventory.storeDiskSetup(id, report(100n));
    assert.equal((await inventory.diskSetup(id))[1]!.image, 7, 'same report keeps the image');
    await inventory.storeDiskSetup(id, report(100n, 'Windows 11'));
    assert.equal((await inventory.diskSetup(id))[1]!.image, 0, 'another OS resets it');
    assert.equal((await inventory.diskSetup(id))[0]!.image, 7, 'the unchanged disk row keeps it');
  }));

test.run();

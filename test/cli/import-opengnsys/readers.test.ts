import assert from 'node:assert/strict';
import { test } from 'uvu';
import { StartupError } from '../../../core/errors';
import { LegacySource } from '../../../cli/import-opengnsys/legacy-source';
import { silentProgress } from '../../../cli/import-opengnsys/progress';
import { readSite } from '../../../cli/import-opengnsys/readers/site';
import { parseSourceUrl } from '../../../cli/import-opengnsys/source-url';
import { createLegacyDatabase, withLegacyDatabase, type LegacyDatabase } from '../../support/legacy-db';
import { bulkComputerId } from '../../support/legacy-site';

async function readFrom(db: LegacyDatabase) {
  const source = await LegacySource.open(parseSourceUrl(db.url, {}));
  try {
    return await readSite(source, silentProgress);
  } finally {
    await source.close();
  }
}

test('every field of a computer is read as the reference stores it, NULLs included', async () => {
  await withLegacyDatabase({}, async (db) => {
    const site = await readFrom(db);
    assert.equal(site.schemaVersion, 4);
    assert.deepEqual(
      site.clients.find((c) => c.id === 1),
      {
        id: 1,
        name: 'pc-a1-01',
        serialNumber: 'SN-0001',
        ip: '10.1.1.11',
        mac: 'AABBCC000001',
        roomId: 1,
        folderId: 3,
        hardwareProfileId: 1,
        repositoryId: 1,
        serverId: 2,
        netmask: '255.255.255.0',
        boot: '19pxeADMIN',
        netiface: 'eth1',
        netdriver: 'e1000e',
        livedir: 'ogLive-5.11.0-r20210413',
        remote: true,
        maintenance: true,
      },
    );
    const bare = site.clients.find((c) => c.id === 2)!;
    assert.equal(bare.name, null);
    assert.equal(bare.serialNumber, null);
    assert.equal(bare.netiface, null);
    assert.equal(bare.hardwareProfileId, null);
    assert.equal(bare.repositoryId, null);
    assert.equal(bare.folderId, null);
    assert.equal(site.clients.find((c) => c.id === 10)!.roomId, null);
    assert.equal(site.clients.find((c) => c.id === 25)!.name, 'Profesor-ñandú', 'non-ASCII text survives');
  });
});

test('centers, rooms, folders, repositories and servers carry the fields ogserve keeps', async () => {
  await withLegacyDatabase({}, async (db) => {
    const site = await readFrom(db);
    assert.deepEqual(
      site.centers.map((c) => c.id),
      [0, 1, 2, 3, 4, 7],
    );
    assert.equal(site.centers.find((c) => c.id === 1)!.comment, 'Creada automáticamente al instalar');
    assert.deepEqual(
      site.rooms.find((r) => r.id === 1),
      {
        id: 1,
        name: 'Aula 1',
        centerId: 1,
        folderId: 3,
        netmask: '255.255.255.0',
        gateway: '10.1.1.1',
        location: 'Edificio A, planta 1',
        ntp: 'ntp.example.org',
        dns: '10.1.0.2',
        remote: true,
      },
    );
    assert.equal(site.rooms.find((r) => r.id === 4)!.netmask, null);
    assert.equal(site.rooms.find((r) => r.id === 9)!.name, 'Aula\tTab');
    assert.deepEqual(site.roomFolders.map((f) => [f.id, f.parentId, f.centerId]).slice(0, 4), [
      [1, 0, 1],
      [2, 1, 1],
      [3, 2, 1],
      [4, 0, 2],
    ]);
    assert.ok(!site.roomFolders.some((f) => f.id === 5), 'a folder of images is no room folder');
    assert.equal(site.otherFolders, 1);
    assert.deepEqual(
      site.computerFolders.find((f) => f.id === 3),
      { id: 3, name: 'Puesto docente', roomId: 1, parentId: 2 },
    );
    assert.deepEqual(site.repositories[0], { id: 1, name: 'Repositorio (Default)', ip: '10.1.0.10', centerId: 1 });
    assert.deepEqual(site.servers[1], { id: 2, ip: '10.2.0.1', port: 2009 });
  });
});

test('partitions: KiB and percent as stored, 64-bit sizes exact, filesystem and OS by name', async () => {
  await withLegacyDatabase({}, async (db) => {
    const site = await readFrom(db);
    const ofOne = site.partitions.filter((p) => p.clientId === 1);
    assert.deepEqual(
      ofOne.map((p) => [p.disk, p.partition]),
      [
        [1, 0],
        [1, 1],
        [1, 2],
        [1, 3],
        [1, 4],
        [2, 0],
        [2, 1],
      ],
    );
    assert.deepEqual(ofOne[1], {
      clientId: 1,
      disk: 1,
      partition: 1,
      diskType: 'DISK',
      code: 7,
      sizeKiB: 104857600n,
      usedPercent: 45,
      filesystem: 'NTFS',
      os: 'Windows 10 Education',
      imageId: 1,
      softwareProfileId: 1,
    });
    assert.equal(ofOne[5]!.sizeKiB, 9007199254740991n, '2^53 - 1 is read exactly');
    assert.equal(ofOne[6]!.sizeKiB, 9007199254740993n, '2^53 + 1 is read exactly');
    assert.equal(ofOne[5]!.diskType, null);
    assert.equal(ofOne[3]!.filesystem, 'CACHE');
    assert.equal(ofOne[0]!.os, '', 'no OS id reads as no name');
  });
});

test('images, hardware and software profiles', async () => {
  await withLegacyDatabase({}, async (db) => {
    const site = await readFrom(db);
    assert.deepEqual(
      site.images.find((i) => i.id === 1),
      {
        id: 1,
        name: 'Win10Edu',
        description: 'Windows 10 Education',
        softwareProfileId: 1,
        centerId: 1,
        groupId: 5,
        repositoryId: 1,
        clientId: 1,
        disk: 1,
        partition: 1,
        code: 7,
        type: 1,
        revision: 3,
        created: '2023-03-14 10:20:30',
        clonator: 'partclone',
        compressor: 'lzop',
        filesystem: 'NTFS',
        datasize: 21474836480n,
      },
    );
    assert.equal(site.images.find((i) => i.id === 6)!.datasize, 9007199254740993n);
    assert.equal(site.images.find((i) => i.id === 8)!.type, null);
    assert.equal(site.images.find((i) => i.id === 2)!.created, null);
    assert.deepEqual(site.hardwareProfiles.get(1)!.items.slice(0, 2), [
      { type: 'boa', description: 'Dell Inc. 0X8DXD' },
      { type: 'cpu', description: 'Intel Core i5-10500 CPU @ 3.10GHz' },
    ]);
    assert.equal(site.hardwareProfiles.get(1)!.items.length, 6);
    assert.deepEqual(site.softwareProfiles.get(2), {
      id: 2,
      os: 'Ubuntu 22.04.2 LTS',
      packages: ['Mozilla Firefox 115.0', 'gcc 12.2.0', 'python3 3.10.6'],
    });
  });
});

test('procedures, tasks, schedules and the actions schedules fire', async () => {
  await withLegacyDatabase({}, async (db) => {
    const site = await readFrom(db);
    const complete = site.procedures.find((p) => p.id === 3)!;
    assert.equal(complete.steps.length, 10);
    assert.deepEqual(complete.steps[0], { kind: 'procedure', procedureId: 1 });
    assert.deepEqual(complete.steps[1], {
      kind: 'command',
      text: 'nfn=EjecutarScript\rscp=echo hola mundo; ls /opt',
      catalogueFunction: 'EjecutarScript',
    });
    assert.deepEqual(site.tasks.find((t) => t.id === 2)!.steps, [
      { kind: 'task', taskId: 1 },
      { kind: 'procedure', procedureId: 2 },
    ]);
    assert.deepEqual(
      site.tasks.find((t) => t.id === 1),
      {
        id: 1,
        name: 'Mañana',
        centerId: 1,
        scopeKind: 4,
        scopeId: 1,
        comment: 'todas las mañanas',
        steps: site.tasks.find((t) => t.id === 1)!.steps,
      },
    );
    const weekly = site.schedules.find((s) => s.id === 1)!;
    assert.equal(weekly.years, -16384, 'the signed column as stored');
    assert.equal(weekly.kind, 3);
    assert.equal(site.schedules.find((s) => s.id === 7)!.name, null);
    assert.deepEqual(
      site.actions.map((a) => [a.id, a.clientId, a.session, a.text]),
      [
        [500, 1, 500, 'nfn=Apagar'],
        [501, 25, 500, 'nfn=Apagar'],
        [700, 2, 700, 'nfn=Reiniciar'],
        [701, 3, 700, 'nfn=Reiniciar'],
        [900, 1, 900, 'nfn=CrearImagen\rdsk=1\rpar=1\rcpt=7\ridi=1\rnci=Win10Edu\ripr=10.1.0.10'],
        [901, 2, 900, 'nfn=CrearImagen\rdsk=1\rpar=1\rcpt=7\ridi=1\rnci=Win10Edu\ripr=10.1.0.10'],
      ],
    );
    assert.equal(site.historyActions, 1);
  });
});

test('a site larger than a page is read whole, every computer and partition once', async () => {
  await withLegacyDatabase({ site: true, bulk: { computers: 5100, partitions: 2 } }, async (db) => {
    const site = await readFrom(db);
    const bulk = site.clients.filter((c) => c.id >= bulkComputerId(0));
    assert.equal(bulk.length, 5100);
    assert.equal(new Set(site.clients.map((c) => c.id)).size, site.clients.length);
    assert.equal(site.partitions.filter((p) => p.clientId >= bulkComputerId(0)).length, 10200);
    const [{ n }] = await db.query<{ n: number }>('select count(*) as n from ordenadores_particiones');
    assert.equal(site.partitions.length, Number(n));
  });
});

test('the legacy database is only read, in one snapshot', async () => {
  await withLegacyDatabase({}, async (db) => {
    const source = await LegacySource.open(parseSourceUrl(db.url, {}));
    try {
      await assert.rejects(source.query("insert into centros (nombrecentro) values ('x')"), /READ ONLY|read-only|read only/i);
      await db.query("insert into centros (idcentro, nombrecentro) values (50, 'added later')");
      const site = await readSite(source, silentProgress);
      assert.ok(!site.centers.some((c) => c.id === 50), 'a row written after the import began is not seen');
    } finally {
      await source.close();
    }
  });
});

test('a server that does not answer, and databases that are not the reference after its upgrades, stop with one line', async () => {
  const refused = LegacySource.open(parseSourceUrl('mysql://og:topsecret@127.0.0.1:1/og', {}));
  await assert.rejects(refused, (error: Error) => {
    assert.ok(error instanceof StartupError);
    assert.match(error.message, /^cannot read mysql:\/\/og@127\.0\.0\.1:1\/og: /);
    assert.ok(!error.message.includes('topsecret'), 'the password is never shown');
    return true;
  });
  const db: LegacyDatabase = await createLegacyDatabase({ site: false });
  try {
    await db.query('insert into version (version) values (3)');
    await assert.rejects(LegacySource.open(parseSourceUrl(db.url, {})), /is at schema version 3: start the reference ogServer on it once/);
    await db.query('drop table version');
    await assert.rejects(LegacySource.open(parseSourceUrl(db.url, {})), /has no table 'version': it is not an OpenGnsys ogServer database/);
    await assert.rejects(LegacySource.open(parseSourceUrl(db.url.replace(':ogserve_test@', ':wrong@'), {})), (error: Error) => {
      assert.match(error.message, /^cannot read mysql:\/\/ogserve_test@127\.0\.0\.1:3306\/ogt_legacy_\w+: Access denied/);
      return true;
    });
  } finally {
    await db.drop();
  }
});

test.run();

import assert from 'node:assert/strict';
import { test } from 'uvu';
import { LegacySource } from '../../../cli/import-opengnsys/legacy-source';
import type { LegacySite } from '../../../cli/import-opengnsys/model';
import { Ledger } from '../../../cli/import-opengnsys/plan/ledger';
import { planImport } from '../../../cli/import-opengnsys/plan/plan';
import type { ImportPlan } from '../../../cli/import-opengnsys/plan/records';
import { silentProgress } from '../../../cli/import-opengnsys/progress';
import { readSite } from '../../../cli/import-opengnsys/readers/site';
import { parseSourceUrl } from '../../../cli/import-opengnsys/source-url';
import { COMPUTER_FOLDER_MARKER } from '../../../plugins/inventory';
import { allPlugins, withImportTarget } from '../../support/import-target';
import { withLegacyDatabase } from '../../support/legacy-db';
import { bulkComputerId } from '../../support/legacy-site';

/** The fixture site, read once: each test plans it against the target it needs. */
let site: Promise<LegacySite> | undefined;
function fixtureSite(): Promise<LegacySite> {
  site ??= withLegacyDatabase({ bulk: { computers: 200, partitions: 4 } }, async (db) => {
    const source = await LegacySource.open(parseSourceUrl(db.url, {}));
    try {
      return await readSite(source, silentProgress);
    } finally {
      await source.close();
    }
  });
  return site;
}

async function planned(config: Record<string, unknown> = {}): Promise<{ plan: ImportPlan; ledger: Ledger }> {
  const legacy = await fixtureSite();
  return withImportTarget(config, async (target) => {
    const ledger = new Ledger();
    target.yieldTo(legacy);
    return { plan: await planImport(legacy, target.rules, ledger, silentProgress), ledger };
  });
}

const notOneCard =
  "'mac' must be a single card's MAC: not the broadcast ff:ff:ff:ff:ff:ff, a multicast MAC (first octet odd) or 00:00:00:00:00:00";

/** Every refusal and change the fixture holds: [kind, row, part of the reason]. */
const expectedLines: [string, string, string][] = [
  ['refused', 'entornos 3 (SERVERIP)', '\'ip\' must be a valid ipv4 (entornos.ipserveradm = "SERVERIP")'],
  ['refused', 'repositorios 3 (', "'name' must NOT have more than 100 characters (repositorios.nombrerepositorio"],
  ['refused', 'repositorios 4 (Repositorio copia)', 'address 10.1.0.10 already belongs to repositorios 1 (Repositorio (Default))'],
  ['refused', 'repositorios 5 (Sin configurar)', "'ip' must be a valid ipv4"],
  ['refused', 'centros 0 (Centro cero)', 'id 0 cannot be kept: ogserve ids start at 1'],
  ['refused', 'centros 3', '\'name\' must NOT have fewer than 1 characters (centros.nombrecentro = "")'],
  ['refused', 'centros 4 (Campus Norte)', 'name "Campus Norte" already belongs to centros 2 (Campus Norte)'],
  ['refused', 'grupos 6 (', "'name' must NOT have more than 100 characters (grupos.nombregrupo"],
  ['refused', 'grupos 70000 (Demasiadas)', 'id 70000 is past 65535'],
  ['refused', 'grupos 7 (Bucle A)', 'its parent folders loop (grupos 7 -> 8 -> 7)'],
  ['refused', 'grupos 8 (Bucle B)', 'its parent folders loop (grupos 8 -> 7 -> 8)'],
  ['changed', 'grupos 9 (Anexo)', 'room folder 1 belongs to center 1: kept at the top of center 2'],
  ['changed', 'aulas 4 (Sin máscara)', 'it has no netmask (aulas.netmask = NULL): given 255.255.255.0'],
  ['changed', 'aulas 16 (Máscara vacía)', 'it has no netmask (aulas.netmask = ""): given 255.255.255.0'],
  ['refused', 'aulas 5 (Mala máscara)', '\'netmask\' must be a valid netmask (aulas.netmask = "255.0.255.0")'],
  ['refused', 'aulas 6 (Aula 2)', 'name "Aula 2" in center 1 already belongs to aulas 2 (Aula 2)'],
  ['refused', 'aulas 8 (Cero)', '\'netmask\' must be a valid netmask (aulas.netmask = "0.0.0.0")'],
  ['refused', 'aulas 9 (Aula\\tTab)', "'name' must be a valid printable name"],
  ['refused', 'aulas 10 (Sala sin centro)', 'center 3 was refused'],
  ['refused', 'aulas 15 (Aula del centro cero)', 'center 0 was refused'],
  ['changed', 'aulas 7 (', 'room folder 6 was refused: kept at the top of center 2'],
  ['changed', 'aulas 11 (', 'room folder 1 belongs to center 1: kept at the top of center 2'],
  ['changed', 'aulas 12 (', 'there is no room folder 5: kept at the top of center 2'],
  ['changed', 'aulas 14 (', 'room folder 7 was refused: kept at the top of center 2'],
  ['refused', 'gruposordenadores 6 (', "'name' must NOT have more than 100 characters"],
  ['refused', 'gruposordenadores 8 (Huérfana)', 'room 5 was refused'],
  ['refused', 'gruposordenadores 9 (Sin aula)', 'there is no room 99'],
  ['refused', 'gruposordenadores 70000 (Demasiadas)', 'id 70000 is past 65535'],
  ['changed', 'gruposordenadores 5 (Fila B)', 'there is no computer folder 99: kept at the top of room 3'],
  ['changed', 'gruposordenadores 7 (Fila X)', 'computer folder 1 belongs to room 1: kept at the top of room 2'],
  ['refused', 'ordenadores 3 (pc-a1-03, 10.1.1.13)', 'mac aabbcc000001 already belongs to ordenadores 1 (pc-a1-01, 10.1.1.11)'],
  ['refused', 'ordenadores 4 (pc-a1-04, 0.0.0.0)', '\'ip\' must be a valid host address (ordenadores.ip = "0.0.0.0")'],
  ['refused', 'ordenadores 5 (pc-a1-05, 255.255.255.255)', "'ip' must be a valid host address"],
  ['refused', 'ordenadores 6 (pc-a1-06)', '\'ip\' must be a valid host address (ordenadores.ip = "")'],
  ['refused', 'ordenadores 7 (pc-a1-07, 10.1.1.11)', 'ip 10.1.1.11 already belongs to ordenadores 1'],
  ['refused', 'ordenadores 8 (', "'mac' is required (ordenadores.mac = NULL)"],
  ['refused', 'ordenadores 9 (', '\'mac\' must be a valid mac (ordenadores.mac = "zzzzzzzzzzzz")'],
  ['refused', 'ordenadores 10 (', 'it is in no room (ordenadores.idaula is NULL)'],
  ['refused', 'ordenadores 11 (', 'room 5 was refused'],
  ['refused', 'ordenadores 20 (', '\'win10-custom\' is not a boot mode (GET /mode lists them) (ordenadores.arranque = "win10-custom")'],
  ['refused', 'ordenadores 21 (', "'livedir' must match pattern"],
  ['refused', 'ordenadores 22 (', '\'netmask\' must be a valid netmask (ordenadores.mascara = "255.0.255.0")'],
  ['refused', 'ordenadores 24 (', '\'ip\' must be a valid host address (ordenadores.ip = " 10.1.1.44")'],
  ['refused', 'ordenadores 28 (', '\'mac\' must be a valid mac (ordenadores.mac = "aa:bb:cc:dd:")'],
  ['refused', 'ordenadores 30 (pc-a1-30, 10.1.1.50)', `${notOneCard} (ordenadores.mac = "FFFFFFFFFFFF")`],
  ['refused', 'ordenadores 31 (pc-a1-31, 10.1.1.51)', `${notOneCard} (ordenadores.mac = "01005e0000fb")`],
  ['refused', 'ordenadores 32 (pc-a1-32, 10.1.1.52)', `${notOneCard} (ordenadores.mac = "000000000000")`],
  ['changed', 'ordenadores 14 (', 'computer folder 4 belongs to room 3: kept at the top of room 1'],
  ['changed', 'ordenadores 15 (', 'computer folder 6 was refused: kept at the top of room 3'],
  ['changed', 'ordenadores 16 (', 'there is no computer folder 999: kept at the top of room 3'],
  ['changed', 'ordenadores 17 (', 'repository 3 was refused: imported without a repository'],
  ['changed', 'ordenadores 18 (', 'there is no repository 42: imported without a repository'],
  ['changed', 'ordenadores 19 (', 'server 3 was refused: imported without a server'],
  [
    'changed',
    'perfileshard 1 (Dell OptiPlex 7080)',
    "components of type 'lec' (tipohardwares.nemonico), which ogserve does not know, are left out",
  ],
  ['refused', 'imagenes 2 (Ubuntu 22)', "'name' must match pattern"],
  ['refused', 'imagenes 4 (Win10Edu)', 'name Win10Edu already belongs to imagenes 1 (Win10Edu)'],
  ['refused', 'imagenes 5 (../etc)', "'name' must match pattern"],
  ['changed', 'imagenes 3 (Ubuntu2204)', 'repository 3 was refused: imported without a repository'],
  ['changed', 'imagenes 3 (Ubuntu2204)', 'there is no computer 777: imported without a source computer'],
  ['changed', 'imagenes 9 (ImgCentro3)', 'center 3 was refused: imported without a center'],
  ['changed', 'ordenadores_particiones (ordenadores 1, disk 1, partition 2)', 'image 2 was refused: the partition keeps no image'],
  [
    'refused',
    'ordenadores_particiones (ordenadores 1, disk 2, partition 1)',
    'its size, 9007199254740993 KiB, is not a byte count ogserve can hold',
  ],
  [
    'refused',
    'ordenadores_particiones (ordenadores 25, disk 1, partition -1)',
    "'partition' must be >= 0 (ordenadores_particiones.numpar = -1)",
  ],
  ['refused', 'procedimientos 4 (Mensaje)', "steps[0]: 'EnviarMensaje' is a command ogserve does not run"],
  ['refused', 'procedimientos 5 (Incluye mensaje)', 'steps[0] includes a procedure ogserve will not have: procedure 4 was refused'],
  ['refused', 'procedimientos 6 (Ciclo A)', 'it includes itself (procedimientos 6 -> 7 -> 6)'],
  ['refused', 'procedimientos 7 (Ciclo B)', 'it includes itself (procedimientos 6 -> 7 -> 6)'],
  ['refused', 'procedimientos 8 (Encender y refrescar)', 'name "Encender y refrescar" in center 1 already belongs to procedimientos 1'],
  ['refused', 'procedimientos 9 (', "'name' must NOT have more than 100 characters (procedimientos.descripcion"],
  ['refused', 'procedimientos 10 (Sin centro)', 'center 3 was refused'],
  [
    'refused',
    'tareas 3 (Carpeta)',
    'its scope is a room folder (tareas.ambito = 2): ogserve runs a task for a center, a room or a computer',
  ],
  ['refused', 'tareas 5 (Con mensaje)', 'steps[0] names a procedure ogserve will not have: procedure 5 was refused'],
  ['refused', 'tareas 7 (Aula rechazada)', 'its scope leads nowhere: room 5 was refused'],
  ['refused', 'tareas 8 (Bucle 1)', 'it includes itself (tareas 8 -> 9 -> 8)'],
  ['refused', 'tareas 9 (Bucle 2)', 'it includes itself (tareas 8 -> 9 -> 8)'],
  ['refused', 'programaciones 2 (De la tarea carpeta)', 'its task leads nowhere: task 3 was refused'],
  ['refused', 'programaciones 5 (Minuto imposible)', "'when.minutes' must be <= 59 (programaciones.minutos = 75)"],
  ['refused', 'programaciones 6 (Nunca)', "'when.months' selects no month (programaciones.meses = 0)"],
  ['refused', 'programaciones 7', "'name' is required (programaciones.nombrebloque = NULL)"],
  ['changed', 'programaciones 8 (Reinicio parcial)', 'acciones 701: computer 3 was refused: the action is left out'],
  ['refused', 'programaciones 9 (Sin acciones)', 'no queued actions of session 800 (acciones.sesion) can be kept'],
  ['refused', 'programaciones 10 (Imagen de dos)', 'an image is created from one client, and session 900 has 2'],
  ['refused', 'programaciones 11 (Tipo raro)', 'programaciones.tipoaccion = 5 is no schedule kind (1 command, 2 procedure, 3 task)'],
];

test('every refused row and every row kept with a change is reported once, with its reason', async () => {
  const { ledger } = await planned();
  const unmatched = [...ledger.lines];
  for (const [kind, row, reason] of expectedLines) {
    const at = unmatched.findIndex((l) => l.kind === kind && l.row.startsWith(row) && l.reason.includes(reason));
    assert.ok(at >= 0, `no ${kind} line for ${row}: ${reason}\n${ledger.lines.map((l) => `${l.kind} ${l.row}: ${l.reason}`).join('\n')}`);
    unmatched.splice(at, 1);
  }
  assert.deepEqual(unmatched, [], 'no other line');
});

test('counts per legacy table add up', async () => {
  const { ledger } = await planned();
  const counts = Object.fromEntries(
    [...ledger.counts].map(([table, c]) => [table, [c.read, c.imported, c.refused, [...c.leftOut.values()].reduce((a, b) => a + b, 0)]]),
  );
  assert.deepEqual(counts, {
    entornos: [3, 2, 1, 0],
    repositorios: [5, 2, 3, 0],
    centros: [6, 3, 3, 0],
    grupos: [10, 5, 4, 1],
    aulas: [16, 10, 6, 0],
    gruposordenadores: [20, 16, 4, 0],
    ordenadores: [229, 212, 17, 0],
    perfileshard: [2, 2, 0, 0],
    imagenes: [8, 5, 3, 0],
    ordenadores_particiones: [811, 808, 2, 1],
    perfilessoft: [2, 2, 0, 0],
    procedimientos: [11, 4, 7, 0],
    tareas: [9, 4, 5, 0],
    programaciones: [11, 4, 7, 0],
    acciones: [7, 3, 0, 4],
  });
});

test("the reference's ids are kept; folders keep their table ids, computer folders carrying the marker in public", async () => {
  const { plan } = await planned();
  assert.deepEqual(
    plan.centers.map((c) => c.id),
    [1, 2, 7],
  );
  assert.deepEqual(
    plan.repositories.map((r) => r.id),
    [1, 2],
  );
  assert.deepEqual(
    plan.servers.map((s) => s.id),
    [1, 2],
  );
  assert.deepEqual(
    plan.images.map((i) => i.id),
    [1, 3, 6, 8, 9],
  );
  assert.equal(plan.clients.length, 212);
  assert.ok(plan.clients.some((c) => c.id === bulkComputerId(199)));
  assert.deepEqual(
    plan.computerFolders.filter((f) => f.roomId === 1).map((f) => [f.id, f.publicId, f.parentId]),
    [
      [1, COMPUTER_FOLDER_MARKER + 1, null],
      [2, COMPUTER_FOLDER_MARKER + 2, 1],
      [3, COMPUTER_FOLDER_MARKER + 3, 2],
    ],
  );
});

test('nested folders keep their nesting and come parents first', async () => {
  const { plan } = await planned();
  assert.deepEqual(
    plan.roomFolders.map((f) => [f.id, f.centerId, f.parentId]),
    [
      [1, 1, null],
      [2, 1, 1],
      [3, 1, 2],
      [4, 2, null],
      [9, 2, null],
    ],
  );
  for (const list of [plan.roomFolders, plan.computerFolders]) {
    const seen = new Set<number>();
    for (const folder of list) {
      if (folder.parentId !== null) assert.ok(seen.has(folder.parentId), `folder ${folder.id} after its parent`);
      seen.add(folder.id);
    }
  }
});

test('rooms and computers carry every field ogserve keeps', async () => {
  const { plan } = await planned();
  assert.deepEqual(
    plan.rooms.find((r) => r.id === 1),
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
  assert.deepEqual(plan.rooms.find((r) => r.id === 3)?.gateway, '', 'an empty gateway stays empty');
  assert.deepEqual(
    plan.clients.find((c) => c.id === 1),
    {
      id: 1,
      name: 'pc-a1-01',
      serialNumber: 'SN-0001',
      ip: '10.1.1.11',
      mac: 'aabbcc000001',
      roomId: 1,
      folderId: 3,
      hardwareId: 1,
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
  assert.deepEqual(
    plan.clients.find((c) => c.id === 2),
    {
      id: 2,
      name: '',
      serialNumber: '',
      ip: '10.1.1.12',
      mac: 'aabbcc000002',
      roomId: 1,
      folderId: null,
      hardwareId: 0,
      repositoryId: null,
      serverId: 1,
      netmask: '',
      boot: '00unknown',
      netiface: '',
      netdriver: 'generic',
      livedir: 'ogLive',
      remote: false,
      maintenance: false,
    },
  );
  assert.equal(plan.clients.find((c) => c.id === 25)?.name, 'Profesor-ñandú');
  assert.equal(plan.clients.find((c) => c.id === 13)?.folderId, 7, 'a folder moved to the top of its room still holds its computers');
  assert.equal(plan.clients.find((c) => c.id === 14)?.folderId, null);
  assert.equal(plan.clients.find((c) => c.id === 19)?.serverId, null);
});

test('partitions in bytes as the agents reported them, with software and hardware lists', async () => {
  const { plan } = await planned();
  const disks = plan.disks.find((d) => d.clientId === 1)!.entries;
  assert.deepEqual(
    disks.map((e) => [e.disk, e.partition]),
    [
      [1, 0],
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 0],
    ],
  );
  const size = 104857600n * 1024n;
  assert.deepEqual(disks[1], {
    disk: 1,
    partition: 1,
    diskType: 'DISK',
    code: 7,
    size,
    usedSize: (size * 45n) / 100n,
    freeSize: size - (size * 45n) / 100n,
    filesystem: 'NTFS',
    os: 'Windows 10 Education',
    image: 1,
    software: 1,
  });
  assert.equal(disks[2]!.image, 0, "a refused image is not a partition's image");
  assert.equal(disks[5]!.size, 9007199254740991n * 1024n, 'exact past 2^53');
  assert.equal(disks[5]!.diskType, '');
  assert.deepEqual(plan.software.find((s) => s.clientId === 1 && s.partition === 1)?.lines, [
    'Windows 10 Education',
    'Microsoft Office 2019',
    'Mozilla Firefox 115.0',
    'LibreOffice 7.5.3',
  ]);
  assert.deepEqual(
    plan.hardware.find((h) => h.clientId === 1)?.items.map((i) => i.type),
    ['boa', 'cpu', 'mem', 'net', 'dis'],
  );
  assert.equal(
    plan.hardware.find((h) => h.clientId === 2),
    undefined,
    'no profile, no list',
  );
  assert.equal(plan.disks.find((d) => d.clientId === bulkComputerId(0))?.entries.length, 4);
});

test('images keep name, description, repository, source, size, date and type', async () => {
  const { plan } = await planned();
  assert.deepEqual(
    plan.images.find((i) => i.id === 1),
    {
      id: 1,
      name: 'Win10Edu',
      description: 'Windows 10 Education',
      repositoryId: 1,
      centerId: 1,
      groupId: 5,
      clientId: 1,
      disk: 1,
      partition: 1,
      code: 7,
      type: 1,
      softwareId: 1,
      datasize: 21474836480n,
      created: BigInt(new Date(2023, 2, 14, 10, 20, 30).getTime() / 1000),
      revision: 3,
      clonator: 'partclone',
      compressor: 'lzop',
      filesystem: 'NTFS',
    },
  );
  const image = (id: number) => plan.images.find((i) => i.id === id)!;
  assert.equal(image(6).datasize, 9007199254740993n);
  assert.equal(image(8).type, 1, 'no type is monolithic, as the reference creates them');
  assert.equal(image(8).clientId, 25);
  assert.equal(image(3).repositoryId, 0);
  assert.equal(image(3).clientId, 0);
  assert.equal(image(9).centerId, 0);
});

test('procedures, tasks and schedules become what the scheduler would store', async () => {
  const { plan } = await planned();
  assert.deepEqual(
    plan.procedures.map((p) => p.id),
    [1, 2, 3, 11],
    'included procedures first',
  );
  assert.deepEqual(plan.procedures.find((p) => p.id === 3)?.steps, [
    { procedure: 1 },
    { command: 'run', params: { run: 'echo hola mundo; ls /opt' } },
    { procedure: 2 },
    { command: 'software', params: { disk: '1', partition: '1' } },
    { command: 'hardware', params: {} },
    { command: 'reboot', params: {} },
    { command: 'image_create', params: { disk: '1', partition: '1', code: '7', id: '1', name: 'Win10Edu', repository: '10.1.0.10' } },
    {
      command: 'image_restore',
      params: { disk: '1', partition: '1', id: '1', name: 'Win10Edu', repository: '10.1.0.10', profile: '1', type: 'UNICAST' },
    },
    {
      command: 'setup',
      params: {
        type: 'MSDOS',
        disk: '1',
        cache: '1',
        cache_size: '10000000',
        partition_setup: [
          { partition: '1', code: 'NTFS', filesystem: 'NTFS', size: '50000000', format: '0' },
          { partition: '2', code: 'LINUX', filesystem: 'EXT4', size: '40000000', format: '1' },
        ],
      },
    },
    { command: 'wol', params: { type: 'unicast' } },
  ]);
  assert.deepEqual(
    plan.procedures.find((p) => p.id === 1),
    {
      id: 1,
      centerId: 1,
      name: 'Encender y refrescar',
      description: 'por la mañana',
      steps: [
        { command: 'wol', params: { type: 'broadcast' } },
        { command: 'session', params: { disk: '1', part: '1' } },
      ],
    },
  );
  assert.deepEqual(
    plan.tasks.map((t) => [t.id, t.scope ?? null]),
    [
      [1, { type: 'room', id: 1 }],
      [2, { type: 'center', id: 1 }],
      [4, { type: 'client', id: 1 }],
      [6, null],
    ],
  );
  assert.deepEqual(plan.tasks.find((t) => t.id === 2)?.steps, [{ task: 1 }, { procedure: 2 }]);
  const weekly = plan.schedules.find((s) => s.id === 1)!;
  assert.deepEqual(
    { ...weekly, when: { ...weekly.when } },
    {
      id: 1,
      kind: 'task',
      target: 1,
      name: 'Cada lunes',
      when: { years: [2024, 2025], months: 4095, weeks: 0, weekDays: 1, days: 0, hours: 256, amPm: 0, minutes: 30 },
      suspended: false,
      session: 0,
      actions: [],
    },
  );
  const command = plan.schedules.find((s) => s.id === 3)!;
  assert.equal(command.kind, 'command');
  assert.equal(command.target, 500);
  assert.deepEqual(command.actions, [
    { id: 500, clientId: 1, ip: '10.1.1.11', session: 500, command: 'poweroff', params: {} },
    { id: 501, clientId: 25, ip: '10.1.1.25', session: 500, command: 'poweroff', params: {} },
  ]);
  assert.equal(plan.schedules.find((s) => s.id === 4)?.suspended, true);
  assert.deepEqual(plan.schedules.find((s) => s.id === 8)?.actions, [
    { id: 700, clientId: 2, ip: '10.1.1.12', session: 700, command: 'reboot', params: {} },
  ]);
});

test('without the scheduler plugin procedures, tasks and schedules are left out, not refused', async () => {
  const { plan, ledger } = await planned({ plugins: allPlugins.filter((p) => p !== 'scheduler') });
  assert.deepEqual([plan.procedures, plan.tasks, plan.schedules], [[], [], []]);
  for (const table of ['procedimientos', 'tareas', 'programaciones']) {
    const count = ledger.counts.get(table)!;
    assert.equal(count.refused, 0);
    assert.equal(count.leftOut.get('the scheduler plugin is not enabled'), count.read, table);
  }
  assert.ok(!ledger.lines.some((l) => l.table === 'procedimientos'));
});

test("a boot mode is refused by pxe-modes' own check: without the plugin any mode is taken", async () => {
  const { plan, ledger } = await planned({ plugins: allPlugins.filter((p) => p !== 'pxe-modes' && p !== 'live') });
  assert.equal(plan.clients.find((c) => c.id === 20)?.boot, 'win10-custom');
  assert.ok(!ledger.lines.some((l) => l.row.startsWith('ordenadores 20 ')));
});

test.run();

import assert from 'node:assert/strict';

/**
 * What ogCLI and ogCP read from each GET answer (real-clients.md, tables A.1 and A.2), as
 * assertions: each reader fails where the client would crash, show a 500 page or drop the
 * server, and returns the answer for the caller's own checks.
 */

const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function assertInt(value: unknown, what: string): asserts value is number {
  assert.ok(isInt(value), `${what} must be an integer, got ${JSON.stringify(value)}`);
}

function assertString(value: unknown, what: string): asserts value is string {
  assert.equal(typeof value, 'string', `${what} must be a string, got ${JSON.stringify(value)}`);
}

function assertArray(value: unknown, what: string): asserts value is unknown[] {
  assert.ok(Array.isArray(value), `${what} must be a list, got ${JSON.stringify(value)}`);
}

/**
 * `%a %b %d %H:%M:%S %Y`, what ogCP's strptime accepts for `modified` (C ctime text,
 * `Tue Oct  4 17:32:30 2022`); anything else raises and the dashboard answers 500.
 */
const ctimeText =
  /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ( [1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d \d{4}$/;

/** ogCP's code tables (views.py): the software, image-create and setup forms index them. */
const ogcpFilesystemCodes = new Map([
  [0, 'DISK'],
  [1, 'EMPTY'],
  [2, 'CACHE'],
  [6, 'EXT4'],
  [9, 'FAT32'],
  [13, 'NTFS'],
  [18, 'EXFAT'],
  [19, 'LINUX-SWAP'],
]);
const ogcpPartitionTypeCodes = new Map([
  [0, 'EMPTY'],
  [1, 'DISK'],
  [5, 'EXTENDED'],
  [7, 'NTFS'],
  [11, 'FAT32'],
  [23, 'HNTFS'],
  [27, 'HFAT32'],
  [39, 'HNTFS-WINRE'],
  [130, 'LINUX-SWAP'],
  [131, 'LINUX'],
  [142, 'LINUX-LVM'],
  [202, 'CACHE'],
  [218, 'DATA'],
  [253, 'LINUX-RAID'],
  [1792, 'NTFS'],
  [9984, 'WIN-RECOV'],
  [33280, 'LINUX-SWAP'],
  [33536, 'LINUX'],
  [36352, 'LINUX-LVM'],
  [51712, 'CACHE'],
  [61184, 'EFI'],
  [64768, 'LINUX-RAID'],
  [65535, 'UNKNOWN'],
]);
export const ogcpSchemeCodes = new Map([
  [0, 'EMPTY'],
  [1, 'MSDOS'],
  [2, 'GPT'],
]);

/** States ogCP draws; anything else is shown as off. */
const ogcpStates = ['OPG', 'LNX', 'LNXS', 'WIN', 'WINS', 'BSY', 'VDI', 'WOL_SENT'];

/** GET /images on the dashboard: sorted by `modified`, disk usage divided by `disk.total`. */
export function dashboardImages(body: any): any[] {
  assertArray(body.images, 'images');
  for (const image of body.images) {
    assertString(image.name, 'images[].name');
    assertString(image.modified, 'images[].modified');
    assert.match(image.modified, ctimeText, `images[].modified '${image.modified}' parsed with %a %b %d %H:%M:%S %Y`);
  }
  assertInt(body.disk?.total, 'disk.total');
  assertInt(body.disk?.free, 'disk.free');
  assert.ok(body.disk.total > 0, 'disk.total is a divisor');
  return body.images;
}

/** GET /images in the image list, details and forms (restore, update, delete). */
export function listedImages(body: any): any[] {
  const images = dashboardImages(body);
  for (const image of images) {
    for (const key of ['id', 'size', 'datasize', 'software_id', 'repo_id']) assertInt(image[key], `images[].${key}`);
    assert.ok('permissions' in image, 'images[].permissions');
  }
  return images;
}

/** GET /oglive/list: `oglive[].directory` fills the forms, `default` indexes the list. */
export function ogliveList(body: any): any[] {
  assertArray(body.oglive, 'oglive');
  for (const entry of body.oglive) assertString(entry.directory, 'oglive[].directory');
  assertInt(body.default, 'default');
  if (body.oglive.length > 0) assert.ok(body.default >= 0 && body.default < body.oglive.length, `default ${body.default} indexes oglive`);
  return body.oglive;
}

/** GET /stats on the dashboard: times shown, memory and swap used divided by their sizes. */
export function stats(body: any): void {
  for (const key of ['now', 'boot', 'start']) assertInt(body.time?.[key], `time.${key}`);
  for (const part of ['memory', 'swap']) for (const key of ['size', 'free']) assertInt(body[part]?.[key], `${part}.${key}`);
  assert.ok(body.memory.size > 0, 'memory.size is a divisor');
  assert.ok(body.time.now > 1_600_000_000, 'time.now is an epoch second');
}

/** GET /clients: every entry's `addr`, `state`, optional `speed`, and `last_cmd.result` (an object or a 500). */
export function clients(body: any): any[] {
  assertArray(body.clients, 'clients');
  for (const entry of body.clients) {
    assert.match(entry.addr, ipv4, 'clients[].addr');
    assert.ok(ogcpStates.includes(entry.state), `clients[].state ${entry.state} is one ogCP draws`);
    if ('speed' in entry) assertInt(entry.speed, 'clients[].speed');
    assert.equal(typeof entry.last_cmd, 'object', 'clients[].last_cmd is an object');
    assert.ok(entry.last_cmd !== null && !Array.isArray(entry.last_cmd), 'clients[].last_cmd is an object');
    assertString(entry.last_cmd.result, 'clients[].last_cmd.result');
  }
  return body.clients;
}

/** GET /scopes: ogCLI and ogCP walk `scope` on every node (a node without it raises). */
export function scopes(body: any): void {
  const walk = (node: any, where: string): void => {
    assertString(node.name, `${where}.name`);
    assertInt(node.id, `${where}.id`);
    assert.ok(['center', 'room', 'folder', 'computer'].includes(node.type), `${where}.type ${node.type}`);
    assertArray(node.scope, `${where}.scope`);
    if (node.type === 'computer') {
      assert.match(node.ip, ipv4, `${where}.ip`);
      assert.deepEqual(node.scope, [], `${where} (a computer) has an empty scope`);
    } else {
      assert.ok(!('ip' in node), `${where}: only computers carry 'ip' (ogCP and ogCLI take any node with one for a computer)`);
    }
    for (const [i, child] of (node.scope as any[]).entries()) walk(child, `${where}.scope[${i}]`);
  };
  assertArray(body.scope, 'scope');
  for (const [i, node] of (body.scope as any[]).entries()) walk(node, `scope[${i}]`);
}

/** GET /client/info: the client details form, MAC lookup and image create read these. */
export function clientInfo(body: any): void {
  for (const key of ['name', 'ip', 'mac', 'serial_number', 'netmask', 'livedir', 'netiface', 'netdriver', 'boot'])
    assertString(body[key], key);
  for (const key of ['repo_id', 'room', 'center']) assertInt(body[key], key);
  for (const key of ['remote', 'maintenance']) assert.equal(typeof body[key], 'boolean', `${key} fills a checkbox`);
  assert.match(body.mac, /^[0-9a-fA-F]{12}$/, 'mac: 12 hex digits without separators (ogCP slices it in pairs)');
}

/**
 * GET /client/setup: per disk its partition-0 entry first (ogCP takes `[0]` as the disk and
 * `[1:]` as partitions), every number an integer, codes found in ogCP's tables.
 */
export function clientSetup(body: any): any[] {
  assertArray(body.partitions, 'partitions');
  const seenDisks = new Set<number>();
  for (const [i, p] of body.partitions.entries()) {
    for (const key of ['disk', 'partition', 'code', 'filesystem', 'size', 'image']) assertInt(p[key], `partitions[${i}].${key}`);
    if (!seenDisks.has(p.disk)) assert.equal(p.partition, 0, `partitions[${i}]: the first entry of disk ${p.disk} is the disk itself`);
    seenDisks.add(p.disk);
    const table = p.partition === 0 ? ogcpSchemeCodes : ogcpPartitionTypeCodes;
    assert.ok(table.has(p.code), `partitions[${i}].code ${p.code} is in ogCP's table`);
    if (p.partition > 0) assert.ok(ogcpFilesystemCodes.has(p.filesystem), `partitions[${i}].filesystem ${p.filesystem} is in ogCP's table`);
  }
  return body.partitions;
}

export function hardware(body: any): any[] {
  assertArray(body.hardware, 'hardware');
  for (const item of body.hardware) {
    assertString(item.description, 'hardware[].description');
    assertString(item.type, 'hardware[].type');
  }
  return body.hardware;
}

export function software(body: any): string[] {
  assertArray(body.software, 'software');
  for (const item of body.software) assertString(item, 'software[]');
  return body.software as string[];
}

export function sessions(body: any): any[] {
  assertArray(body.sessions, 'sessions');
  for (const s of body.sessions) {
    assertInt(s.disk, 'sessions[].disk');
    assertInt(s.partition, 'sessions[].partition');
    assertString(s.name, 'sessions[].name');
  }
  return body.sessions;
}

export function repositories(body: any): any[] {
  assertArray(body.repositories, 'repositories');
  for (const r of body.repositories) {
    assertInt(r.id, 'repositories[].id');
    assert.match(r.ip, ipv4, 'repositories[].ip');
    assertString(r.name, 'repositories[].name');
  }
  return body.repositories;
}

export function modes(body: any): string[] {
  assertArray(body.modes, 'modes');
  for (const m of body.modes) assertString(m, 'modes[]');
  return body.modes as string[];
}

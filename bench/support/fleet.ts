import { execute } from '../../core/database';
import { CacheStore } from '../../plugins/cache';
import { Inventory } from '../../plugins/inventory';
import { bulkInsert } from '../../test/support/bulk';
import { addCenter, addRoom } from '../../test/support/fixtures';
import type { TestServer } from '../../test/support/server';

/** MAC n + 1 as 12 hex digits: distinct for every bench client. */
export const benchMac = (n: number) => (n + 1).toString(16).padStart(12, '0');

/**
 * Clients `pc-<i>` at `ips` (MAC benchMac(i)), in the room `roomOf(i)`, written straight into
 * the table (thousands take a second, not the minutes of one POST /client/add each).
 */
export async function insertClients(s: TestServer, ips: string[], roomOf: (i: number) => number): Promise<void> {
  await bulkInsert(
    s.app.database,
    'clients',
    // The live folder POST /client/add would give them (inventory.default_livedir).
    ['name', 'ip', 'mac', 'room_id', 'livedir'],
    ips.map((ip, i) => [`pc-${i}`, ip, benchMac(i), roomOf(i), 'ogLive']),
  );
  s.app.container.resolve(Inventory).tablesChanged();
}

/** 127.1.x.y with y in 1..200: distinct loopback sources for PCs and agents, none a network or broadcast address. */
export const addressOf = (i: number) => `127.${1 + Math.floor(i / 50_000)}.${Math.floor((i % 50_000) / 200)}.${(i % 200) + 1}`;

/**
 * The inventory the reference was measured with: 5 centers of 8 rooms (255.0.0.0, so every
 * client's directed broadcast is 127.255.255.255), clients at `ips` spread over them; the first
 * `cached` clients have a cache partition holding 8 images.
 */
export async function addLabInventory(s: TestServer, ips: string[], cached = 0): Promise<void> {
  const rooms: number[] = [];
  for (let c = 0; c < 5; c++) {
    const center = (await s.post('/center/add', { name: `center-${c}` })).body.id;
    for (let r = 0; r < 8; r++) rooms.push((await s.post('/room/add', { center, name: `room-${r}`, netmask: '255.0.0.0' })).body.id);
  }
  await insertClients(s, ips, (i) => rooms[i % rooms.length]!);
  const ids = (await s.app.database.query('select id from clients order by id')).slice(0, cached).map((r) => Number(r.id));
  await addCacheContents(s, ids);
}

/** A bench fleet: one center, one room (255.0.0.0, so every 127.x address fits) and a client per address. */
export async function addBenchClients(s: TestServer, ips: string[]): Promise<void> {
  const center = await addCenter(s, 'Bench');
  const room = await addRoom(s, center, 'Bench room', '255.0.0.0');
  await insertClients(s, ips, () => room);
}

/**
 * Give clients a disk with a CACHE partition holding `images` images each, as their agents
 * would have reported them.
 */
export async function addCacheContents(s: TestServer, clientIds: number[], images = 8): Promise<void> {
  await s.app.database.transactional(async (em) => {
    for (const id of clientIds)
      await execute(
        em,
        `insert into partitions (client_id, disk, part_number, disk_type, code, size, used_size, free_size, filesystem, os, image, software)
         values (?, 1, 0, 'DISK', 0, 500107862016, 0, 0, '', '', 0, 0), (?, 1, 4, '', 202, 64424509440, 0, 0, 'CACHE', '', 0, 0)`,
        [id, id],
      );
  });
  // Written behind the inventory's back: what it keeps of partitions is read again.
  s.app.container.resolve(Inventory).tablesChanged();
  const store = s.app.container.resolve(CacheStore);
  const contents = Array.from({ length: images }, (_, i) => ({
    name: `image-${i}.img`,
    size: BigInt(4 + i) * 2n ** 30n,
    checksum: 'ab'.repeat(16),
  }));
  for (const id of clientIds) await store.replace(id, contents);
}

/** Poll `check` every 50 ms until it holds (true) or `ms` pass (false). */
export async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

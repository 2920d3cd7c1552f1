import { Inventory } from '../../plugins/inventory';
import { execute } from '../../core/database';
import { addCenter, addRoom } from '../../test/support/fixtures';
import type { TestServer } from '../../test/support/server';

/**
 * A bench fleet: one center, one room (255.0.0.0, so every 127.x address fits) and a client
 * per address, written straight into the tables in batches (thousands take a second, not
 * the minutes of one POST /client/add each).
 */
export async function addBenchClients(s: TestServer, ips: string[]): Promise<void> {
  const center = await addCenter(s, 'Bench');
  const room = await addRoom(s, center, 'Bench room', '255.0.0.0');
  await s.app.database.transactional(async (em) => {
    for (let i = 0; i < ips.length; i += 200) {
      const chunk = ips.slice(i, i + 200);
      await execute(
        em,
        `insert into clients (name, ip, mac, room_id) values ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((ip, j) => [`pc-${i + j}`, ip, (i + j + 1).toString(16).padStart(12, '0'), room]),
      );
    }
  });
  s.app.container.resolve(Inventory).tablesChanged();
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

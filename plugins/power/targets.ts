import type { ClientView, Inventory } from '../inventory';
import type { Calendar } from './store';

/**
 * The PCs each calendar governs. A PC follows the most specific calendar that names it: its
 * computer folder's, else its room's, else its center's. A folder's calendar holds the PCs
 * directly in it (a sub-folder needs its own).
 */
export async function governed(inventory: Pick<Inventory, 'allClients'>, calendars: Calendar[]): Promise<Map<number, string[]>> {
  const byTarget = new Map(calendars.map((c) => [`${c.target.type}:${c.target.id}`, c.id]));
  const out = new Map<number, string[]>(calendars.map((c) => [c.id, []]));
  const clients: ClientView[] = [...(await inventory.allClients())].sort((a, b) => a.id - b.id);
  for (const client of clients) {
    const id =
      (client.folderId !== 0 ? byTarget.get(`folder:${client.folderId}`) : undefined) ??
      byTarget.get(`room:${client.room.id}`) ??
      byTarget.get(`center:${client.room.centerId}`);
    if (id !== undefined) out.get(id)!.push(client.ip);
  }
  return out;
}

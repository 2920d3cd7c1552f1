import type { Groups } from '../groups';
import type { ClientView, Inventory } from '../inventory';
import type { Calendar } from './store';

/**
 * The PCs each calendar governs, as they are now (a saved group's, found from its filter at
 * this moment). A PC follows the most specific calendar that names it: a group's (the first
 * such calendar by id, when its groups overlap), else its computer folder's, else its room's,
 * else its center's. A folder's calendar holds the PCs directly in it (a sub-folder needs its own).
 */
export async function governed(
  inventory: Pick<Inventory, 'allClients'>,
  groups: Pick<Groups, 'clients'>,
  calendars: Calendar[],
): Promise<Map<number, string[]>> {
  const byTarget = new Map(calendars.map((c) => [`${c.target.type}:${c.target.id}`, c.id]));
  const out = new Map<number, string[]>(calendars.map((c) => [c.id, []]));
  const byGroup = new Map<number, number>();
  for (const calendar of calendars) {
    if (calendar.target.type !== 'group') continue;
    for (const client of await groups.clients(calendar.target.id)) if (!byGroup.has(client.id)) byGroup.set(client.id, calendar.id);
  }
  const clients: ClientView[] = [...(await inventory.allClients())].sort((a, b) => a.id - b.id);
  for (const client of clients) {
    const id =
      byGroup.get(client.id) ??
      (client.folderId !== 0 ? byTarget.get(`folder:${client.folderId}`) : undefined) ??
      byTarget.get(`room:${client.room.id}`) ??
      byTarget.get(`center:${client.room.centerId}`);
    if (id !== undefined) out.get(id)!.push(client.ip);
  }
  return out;
}

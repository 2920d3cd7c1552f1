import { useEffect } from 'preact/hooks';
import { get } from '../api';
import { may, useServer } from '../plugins';
import { Store, useStore } from '../store';

/** A saved group as GET /groups lists it (the groups plugin): its filter and how many PCs it finds now. */
export interface SavedGroup {
  id: number;
  name: string;
  filter: { within?: { type: 'center' | 'room' | 'folder'; id: number }; text?: string };
  count: number;
}

/** The saved groups, read once a view needs them and again after one is saved; [] where groups are off or not readable. */
export const groups = new Store<SavedGroup[]>([]);

export async function loadGroups(): Promise<void> {
  try {
    groups.set((await get<{ groups: SavedGroup[] }>('/groups')).groups);
  } catch {
    // Kept as they were: a failed read is no news that the groups went.
  }
}

/** The saved groups, for a picker; read when the first picker appears. */
export function useGroups(): SavedGroup[] {
  const info = useServer();
  const allowed = may(info, 'GET /groups');
  useEffect(() => {
    if (allowed) void loadGroups();
  }, [allowed]);
  const list = useStore(groups);
  return allowed ? list : [];
}

/** A group's PCs now (GET /groups/:id): the group is resolved at the moment it is used. */
export async function groupClients(id: number): Promise<{ name: string; clients: string[] }> {
  return get<{ name: string; clients: string[] }>(`/groups/${id}`);
}

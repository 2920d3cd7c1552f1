import { get } from '../api';
import { Store } from '../store';
import type { ClientListing, ScopeNode } from '../types';
import { buildTree, type Filters, type TreeModel } from './tree';

/** What the fleet view shows: the tree, every client's live state, MACs for search, the selection. */
export interface Fleet {
  model: TreeModel | null;
  states: Map<string, ClientListing>;
  macs: Map<string, string>;
  selection: Set<string>;
  collapsed: Set<string>;
  query: string;
  /** The states and the last result clients must have to be shown (empty: any). */
  filters: Filters;
  /** Clients whose last wake run left them wake_failed (GET /wol/failed): why, in words. */
  wakeFailed: Map<string, string>;
  /** How live updates arrive. */
  live: 'events' | 'poll';
  error: string;
}

export const fleet = new Store<Fleet>({
  model: null,
  states: new Map(),
  macs: new Map(),
  selection: new Set(),
  collapsed: new Set(),
  query: '',
  filters: { states: new Set(), result: '' },
  wakeFailed: new Map(),
  live: 'poll',
  error: '',
});

export function patchFleet(change: Partial<Fleet>): void {
  fleet.set({ ...fleet.value, ...change });
}

/** Reads the scope tree (and the MACs for search) again; the selection keeps clients that still exist. */
export async function loadTree(): Promise<void> {
  try {
    const [{ scope }, addresses] = await Promise.all([
      get<{ scope: ScopeNode[] }>('/scopes'),
      get<{ clients: { ip: string; mac: string }[] }>('/client/addresses').catch(() => ({ clients: [] })),
    ]);
    const model = buildTree(scope);
    const selection = new Set([...fleet.value.selection].filter((ip) => model.byIp.has(ip)));
    patchFleet({ model, selection, macs: new Map(addresses.clients.map((c) => [c.ip, c.mac])), error: '' });
  } catch (error) {
    patchFleet({ error: (error as Error).message });
  }
}

export function applyStates(clients: ClientListing[]): void {
  patchFleet({ states: new Map(clients.map((c) => [c.addr, c])) });
}

/** Reads again which clients did not wake (the wol plugin's GET /wol/failed); a server without it leaves none. */
export async function loadWakeFailures(): Promise<void> {
  try {
    const { clients } = await get<{ clients: { addr: string; outcome: string }[] }>('/wol/failed');
    patchFleet({ wakeFailed: new Map(clients.map((c) => [c.addr, c.outcome])) });
  } catch {
    // Kept as they were: a failed read is not news that they woke.
  }
}

export function setSelection(selection: Set<string>): void {
  patchFleet({ selection });
}

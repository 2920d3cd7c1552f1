import { bareMac } from '../format';
import type { ClientListing, ScopeNode } from '../types';
import { stateOf } from './states';

/** One node of the scope tree, linked both ways, with what the list needs precomputed. */
export interface TreeNode {
  key: string;
  type: ScopeNode['type'];
  id: number;
  name: string;
  ip?: string;
  depth: number;
  parent?: TreeNode;
  children: TreeNode[];
  /** Addresses of every client beneath (or the client itself). */
  clients: string[];
  /** Lower-cased name (and address) for search. */
  text: string;
}

export interface TreeModel {
  roots: TreeNode[];
  byKey: Map<string, TreeNode>;
  byIp: Map<string, TreeNode>;
}

export function buildTree(scope: ScopeNode[]): TreeModel {
  const byKey = new Map<string, TreeNode>();
  const byIp = new Map<string, TreeNode>();
  const make = (source: ScopeNode, depth: number, parent?: TreeNode): TreeNode => {
    const node: TreeNode = {
      key: `${source.type}:${source.id}`,
      type: source.type,
      id: source.id,
      name: source.name,
      ip: source.ip,
      depth,
      parent,
      children: [],
      clients: [],
      text: `${source.name} ${source.ip ?? ''}`.toLowerCase(),
    };
    byKey.set(node.key, node);
    if (source.type === 'computer' && source.ip) {
      byIp.set(source.ip, node);
      node.clients.push(source.ip);
    }
    for (const child of source.scope ?? []) {
      const made = make(child, depth + 1, node);
      node.children.push(made);
      for (const ip of made.clients) node.clients.push(ip);
    }
    return node;
  };
  return { roots: scope.map((s) => make(s, 0)), byKey, byIp };
}

/**
 * What the fleet is narrowed to: lower-cased text and the bare hex digits when it could be
 * part of a MAC (empty: any), and the live states and last result a client must have (empty:
 * any).
 */
export interface Query {
  text: string;
  mac: string;
  states: ReadonlySet<string>;
  result: string;
  within?: string;
  only?: ClientSet;
}

/** A set of clients the fleet is narrowed to, named for the chip that says so (the dashboard's "stopped at the kernel"). */
export interface ClientSet {
  label: string;
  ips: ReadonlySet<string>;
}

export interface Filters {
  /** State names as the legend shows them (stateNames). */
  states: ReadonlySet<string>;
  /** `success`, `failure`, or '' for any. */
  result: string;
  /** The key of a center, room or folder the tree shows alone (the dashboard's links); undefined: all. */
  within?: string;
  /** Only these clients (undefined: any). */
  only?: ClientSet;
}

export function parseQuery(input: string, filters: Filters = { states: new Set(), result: '' }): Query | null {
  const text = input.trim().toLowerCase();
  if (!text && filters.states.size === 0 && !filters.result && !filters.within && !filters.only) return null;
  const mac = /^[0-9a-f:.-]+$/.test(text) ? bareMac(text) : '';
  return {
    text,
    mac: mac.length >= 4 ? mac : '',
    states: filters.states,
    result: filters.result,
    within: filters.within,
    only: filters.only,
  };
}

function textMatches(node: TreeNode, query: Query, macs: Map<string, string>): boolean {
  if (node.text.includes(query.text)) return true;
  return query.mac !== '' && (macs.get(node.ip ?? '') ?? '').includes(query.mac);
}

/** Whether a client's live state and last result are among those asked for, and it is in the set asked for. */
function liveMatches(node: TreeNode, query: Query, live: Map<string, ClientListing>): boolean {
  if (query.only && !query.only.ips.has(node.ip ?? '')) return false;
  const listing = live.get(node.ip ?? '');
  if (query.states.size > 0 && !query.states.has(stateOf(listing?.state))) return false;
  return !query.result || listing?.last_cmd.result === query.result;
}

/**
 * The rows to draw, in tree order. Without a query: every node whose ancestors are all
 * expanded. With one: matching clients and the path to them (collapsed or not), and
 * everything under a center, room or folder whose own name matches.
 */
export function visibleRows(
  model: TreeModel,
  collapsed: Set<string>,
  query: Query | null,
  macs: Map<string, string>,
  live: Map<string, ClientListing> = new Map(),
): TreeNode[] {
  const rows: TreeNode[] = [];
  if (!query) {
    const walk = (node: TreeNode) => {
      rows.push(node);
      if (!collapsed.has(node.key)) for (const child of node.children) walk(child);
    };
    for (const root of model.roots) walk(root);
    return rows;
  }
  // A center, room or folder whose name matches the text brings every client beneath that
  // has the asked state and result; a group is drawn only with something under it.
  const filter = (node: TreeNode, named: boolean): void => {
    if (node.type === 'computer') {
      if ((named || textMatches(node, query, macs)) && liveMatches(node, query, live)) rows.push(node);
      return;
    }
    const at = rows.length;
    rows.push(node);
    const nameMatches = named || (query.text !== '' && node.text.includes(query.text));
    for (const child of node.children) filter(child, nameMatches);
    if (rows.length === at + 1 && !(nameMatches && query.states.size === 0 && !query.result && !query.only)) rows.pop();
  };
  const within = query.within === undefined ? undefined : model.byKey.get(query.within);
  for (const root of within ? [within] : model.roots) filter(root, false);
  return rows;
}

/** Clients beneath a node that the current rows show: what selecting the node selects. */
export function shownClients(node: TreeNode, rows: TreeNode[], filtered: boolean): string[] {
  if (!filtered) return node.clients;
  const shown = new Set(rows.filter((r) => r.type === 'computer').map((r) => r.ip!));
  return node.clients.filter((ip) => shown.has(ip));
}

export interface Counts {
  total: number;
  on: number;
  busy: number;
}

/** Per center, room and folder: clients beneath, how many are connected and how many busy. */
export function countStates(model: TreeModel, states: Map<string, { state: string }>): Map<string, Counts> {
  const counts = new Map<string, Counts>();
  for (const node of model.byKey.values())
    if (node.type !== 'computer') counts.set(node.key, { total: node.clients.length, on: 0, busy: 0 });
  for (const [ip, { state }] of states) {
    if (state === 'WOL_SENT') continue;
    let node = model.byIp.get(ip)?.parent;
    while (node) {
      const c = counts.get(node.key)!;
      c.on++;
      if (state === 'BSY') c.busy++;
      node = node.parent;
    }
  }
  return counts;
}

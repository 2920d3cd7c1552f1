import assert from 'node:assert/strict';
import { pythonJson } from '../support/fake-agent';
import type { PythonClient, PythonReply } from './python-client';

/**
 * ogCLI's REST calls (cli/objects/*.py), one function per command, sending the bodies it
 * builds, keys in their order. GETs go through `py.read` (ogCLI exits on anything but 200 and
 * parses the JSON); POSTs must answer 200 or 202 (ogCLI exits 1 otherwise).
 */

async function post(py: PythonClient, path: string, payload: unknown): Promise<PythonReply> {
  const r = await py.post(path, payload);
  assert.ok(r.status === 200 || r.status === 202, `ogCLI POST ${path} ${pythonJson(payload)}: ${r.status} ${r.text}`);
  return r;
}

/** utils.scope_lookup: the node with this id and type, walking every node's `scope`. */
function scopeLookup(id: number, type: string, node: any): any {
  if (node.id === id && node.type === type) return node;
  for (const child of node.scope) {
    const found = scopeLookup(id, type, child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** utils.ips_in_scope: a node with `ip` is a computer; others are walked. */
function ipsInScope(node: any): string[] {
  if (node === undefined) return [];
  if ('ip' in node) return [node.ip];
  return node.scope.flatMap(ipsInScope);
}

/** `<sel>`: any mix of --center-id, --room-id and --client-ip. */
export interface Selection {
  centerIds?: number[];
  roomIds?: number[];
  clientIps?: string[];
}

/** The addresses a selection expands to through GET /scopes, in first-seen order (ogCLI uses a set). */
export async function expand(py: PythonClient, selection: Selection): Promise<string[]> {
  const tree = await py.read('/scopes');
  const ips = new Set<string>();
  for (const id of selection.centerIds ?? []) for (const ip of ipsInScope(scopeLookup(id, 'center', tree))) ips.add(ip);
  for (const id of selection.roomIds ?? []) for (const ip of ipsInScope(scopeLookup(id, 'room', tree))) ips.add(ip);
  for (const ip of selection.clientIps ?? []) ips.add(ip);
  return [...ips];
}

/** `send wol [--type broadcast|unicast] <sel>` */
export async function sendWol(py: PythonClient, selection: Selection, type: 'broadcast' | 'unicast' = 'broadcast'): Promise<PythonReply> {
  return post(py, '/wol', { type, clients: await expand(py, selection) });
}

/** `send poweroff|reboot <sel>` */
export async function sendPower(py: PythonClient, path: '/poweroff' | '/reboot', selection: Selection): Promise<PythonReply> {
  return post(py, path, { clients: await expand(py, selection) });
}

/** `send refresh --client-ip IP…` */
export const sendRefresh = (py: PythonClient, ips: string[]) => post(py, '/refresh', { clients: ips });

/** `set modes --mode M <sel>` */
export async function setModes(py: PythonClient, mode: string, selection: Selection): Promise<PythonReply> {
  return post(py, '/mode', { clients: await expand(py, selection), mode });
}

/** parse_size: decimal units mapped to KB (40G is "40000000"). */
function sizeInKb(size: string): string {
  const match = /^(\d+)([MGT])/.exec(size.toUpperCase());
  assert.ok(match, `ogCLI parses the size ${size}`);
  return String(Number(match[1]) * { M: 1e3, G: 1e6, T: 1e9 }[match[2] as 'M' | 'G' | 'T']);
}

export interface SetupDisk {
  type: 'dos' | 'gpt';
  /** --num, the disk (default 1). */
  num?: number;
  /** --format: true for all, or the partition numbers to format. */
  format?: true | string[];
  /** --part "num,TYPE,FS,SIZE", as typed. */
  parts: string[];
  clientIps: string[];
}

/** `setup disk`: gaps before a partition and slots up to 4 filled with EMPTY; cache keyed on filesystem CACHE. */
export async function setupDisk(py: PythonClient, args: SetupDisk): Promise<Record<string, any>> {
  await expand(py, { clientIps: args.clientIps });
  const payload: Record<string, any> = {
    clients: args.clientIps,
    type: { dos: 'MSDOS', gpt: 'GPT' }[args.type],
    disk: String(args.num ?? 1),
    cache: '0',
    cache_size: '0',
    partition_setup: [],
  };
  const empty = (n: number) => ({ partition: String(n), code: 'EMPTY', filesystem: 'EMPTY', size: '0', format: '0' });
  args.parts.forEach((part, index) => {
    const [num = '', code = '', fs = '', size = ''] = part.split(',');
    assert.ok(
      ['LINUX', 'EFI', 'WINDOWS', 'CACHE'].includes(code.toUpperCase()) && ['EXT4', 'FAT32', 'NTFS', 'CACHE'].includes(fs.toUpperCase()),
      `ogCLI accepts ${part}`,
    );
    for (let j = index + 1; j < Number(num); j++) payload.partition_setup.push(empty(j));
    const format = args.format === true || (Array.isArray(args.format) && args.format.includes(num)) ? '1' : '0';
    const kb = sizeInKb(size);
    if (fs.toUpperCase() === 'CACHE') {
      payload.cache = '1';
      payload.cache_size = kb;
    }
    payload.partition_setup.push({ partition: num, code: code.toUpperCase(), filesystem: fs.toUpperCase(), size: kb, format });
  });
  for (let i = args.parts.length + 1; i < 5; i++) payload.partition_setup.push(empty(i));
  await post(py, '/setup', payload);
  return payload;
}

export interface CreateImage {
  disk: string;
  part: string;
  name: string;
  desc?: string;
  /** --repo-id as typed (a string); without it ogCLI sends the int 1. */
  repoId?: string;
  clientIp: string;
}

/** `create image`: center from /client/info, code from /client/setup; description and repository_id only with --desc. */
export async function createImage(py: PythonClient, args: CreateImage): Promise<PythonReply> {
  const { center } = await py.read('/client/info', { client: [args.clientIp] });
  const { partitions } = await py.read('/client/setup', { client: [args.clientIp] });
  const part = partitions.find((p: any) => p.disk === Number(args.disk) && p.partition === Number(args.part));
  assert.ok(part, `ogCLI finds disk ${args.disk} partition ${args.part} ("Partition not found." otherwise)`);
  const payload: Record<string, unknown> = {
    clients: [args.clientIp],
    disk: args.disk,
    center_id: center,
    partition: args.part,
    code: String(part.code),
    name: args.name,
    id: '0',
  };
  if (args.desc) {
    payload.description = args.desc;
    payload.repository_id = args.repoId ?? 1;
  }
  return post(py, '/image/create', payload);
}

export interface RestoreImage extends Selection {
  disk: string;
  part: string;
  id: number;
  type?: 'unicast' | 'unicast-direct' | 'tiptorrent';
  /** --repo; by default the host of ogCLI's own server URL. */
  repo?: string;
}

/** `restore image`: the image found in /images by integer id; repository defaults to ogCLI's server host. */
export async function restoreImage(py: PythonClient, args: RestoreImage): Promise<PythonReply> {
  const ips = await expand(py, args);
  const image = (await py.read('/images')).images.find((i: any) => i.id === args.id);
  assert.ok(image, `ogCLI finds image ${args.id} in /images`);
  return post(py, '/image/restore', {
    disk: args.disk,
    partition: args.part,
    id: String(args.id),
    name: image.name,
    profile: String(image.software_id),
    repository: args.repo ?? '127.0.0.1',
    type: (args.type ?? 'tiptorrent').toUpperCase(),
    clients: ips,
  });
}

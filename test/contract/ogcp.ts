import assert from 'node:assert/strict';
import { pythonJson } from '../support/fake-agent';
import type { PythonClient, PythonReply } from './python-client';

/**
 * ogCP's REST calls (ogcp/views.py), one function per form or page, sending the bodies its
 * views build, keys in their order, values with their Python types. Each checks status as
 * ogCP does and returns what ogCP reads.
 */

/** A POST ogCP counts as done: exactly 200 (anything else, 202 included, flashes an error). */
async function post(py: PythonClient, path: string, payload: unknown): Promise<PythonReply> {
  const r = await py.post(path, payload);
  assert.equal(r.status, 200, `ogCP POST ${path} ${pythonJson(payload)}: ${r.status} ${r.text}`);
  return r;
}

/** parse_scopes_from_tree: every node of `type` below the top, recursing through the others. */
export function nodesOfType(tree: any, type: string): any[] {
  const found: any[] = [];
  for (const node of tree.scope) {
    if (node.type === type) found.push(node);
    else found.push(...nodesOfType(node, type));
  }
  return found;
}

/**
 * get_server_from_clients: before every command ogCP sends to the server whose /scopes holds
 * all the selected addresses; here, the one server must.
 */
async function pickServer(py: PythonClient, ips: string[]): Promise<void> {
  const known = nodesOfType(await py.read('/scopes'), 'computer').map((c) => c.ip);
  for (const ip of ips) assert.ok(known.includes(ip), `ogCP finds ${ip} in /scopes ("Selected clients not found in any server" otherwise)`);
}

export const addCenter = (py: PythonClient, name: string, comment = '') => post(py, '/center/add', { name, comment });
/** The center select's value: the id as a string. */
export const deleteCenter = (py: PythonClient, id: string) => post(py, '/center/delete', { id });
export const addRoom = (py: PythonClient, center: number, name: string, netmask: string) =>
  post(py, '/room/add', { center, name, netmask });
export const deleteRoom = (py: PythonClient, id: string) => post(py, '/room/delete', { id });

export interface ClientForm {
  boot: string;
  ip: string;
  livedir: string;
  mac: string;
  maintenance: boolean;
  name: string;
  netdriver: string;
  netiface: string;
  netmask: string;
  remote: boolean;
  repo_id: number;
  room: number;
  serial_number: string;
}

/** The add-client form; its repository select offers only `(1, 'Default')`. */
export const addClient = (py: PythonClient, form: ClientForm) =>
  post(py, '/client/add', {
    boot: form.boot,
    ip: form.ip,
    livedir: form.livedir,
    mac: form.mac,
    maintenance: form.maintenance,
    name: form.name,
    netdriver: form.netdriver,
    netiface: form.netiface,
    netmask: form.netmask,
    remote: form.remote,
    repo_id: form.repo_id,
    room: form.room,
    serial_number: form.serial_number,
  });

/** OG_REGEX_DHCPD_CONF: `host NAME { hardware ethernet MAC; fixed-address IP; }`. */
const dhcpdHost =
  /(?: *host *)([\w.-]*)(?: *{ *hardware *ethernet *)((?:[0-9A-Fa-f]{2}[:-]){5}(?:[0-9A-Fa-f]{2}))(?: *; *fixed-address *)(\d+\.\d+\.\d+\.\d+)(?: *; *})/g;

/** Import clients from a dhcpd.conf paste: one /client/add per host with the import defaults, stopping at the first failure. */
export async function importClients(py: PythonClient, room: number, dhcpdConf: string): Promise<void> {
  const hosts = [...dhcpdConf.matchAll(dhcpdHost)];
  assert.ok(hosts.length > 0, 'ogCP finds hosts in the paste');
  const payload: Record<string, unknown> = {
    boot: 'pxe',
    livedir: 'ogLive',
    maintenance: false,
    netdriver: 'generic',
    netiface: 'eth0',
    netmask: '255.255.255.0',
    remote: false,
    room,
  };
  for (const [, name, mac, ip] of hosts) {
    payload.name = name;
    payload.mac = mac!.replaceAll(':', '');
    payload.ip = ip;
    await post(py, '/client/add', payload);
  }
}

export const deleteClients = (py: PythonClient, ips: string[]) => post(py, '/client/delete', { clients: ips });

export async function setMode(py: PythonClient, ips: string[], mode: string): Promise<void> {
  await pickServer(py, ips);
  await post(py, '/mode', { clients: ips, mode });
}

/** The ogLive form: `default` first, then every `oglive[].directory`. */
export async function ogliveChoices(py: PythonClient, ips: string[]): Promise<string[]> {
  await pickServer(py, ips);
  return ['default', ...(await py.read('/oglive/list')).oglive.map((o: any) => o.directory)];
}

export async function setOglive(py: PythonClient, ips: string[], name: string): Promise<void> {
  await pickServer(py, ips);
  await post(py, '/oglive/set', { clients: ips, name });
}

/** Wake on LAN: ogCP ignores the answer. */
export async function wol(py: PythonClient, type: 'broadcast' | 'unicast', ips: string[]): Promise<PythonReply> {
  await pickServer(py, ips);
  return py.post('/wol', { type, clients: ips });
}

/** Power off, reboot, refresh, hardware re-inventory: `{clients}`. */
export async function command(py: PythonClient, path: '/poweroff' | '/reboot' | '/refresh' | '/hardware', ips: string[]): Promise<void> {
  await pickServer(py, ips);
  await post(py, path, { clients: ips });
}

export async function hardwareView(py: PythonClient, ip: string): Promise<any> {
  await pickServer(py, [ip]);
  return py.read('/hardware', { client: [ip] });
}

/** The software form's partitions: `partitions[1:]`, named through ogCP's code tables. */
export async function softwareChoices(py: PythonClient, ip: string): Promise<string[]> {
  const { partitions } = await py.read('/client/setup', { client: [ip] });
  return partitions.slice(1).map((p: any) => `${p.disk} ${p.partition}`);
}

/** View: disk and partition as integers. */
export async function softwareView(py: PythonClient, ips: string[], disk: string, partition: string): Promise<any> {
  await pickServer(py, ips);
  return py.read('/software', { client: ips, disk: Number(disk), partition: Number(partition) });
}

/** Update: disk and partition as the form's strings. */
export async function softwareUpdate(py: PythonClient, ips: string[], disk: string, partition: string): Promise<void> {
  await pickServer(py, ips);
  await post(py, '/software', { clients: ips, disk, partition });
}

export async function sessionForm(py: PythonClient, ip: string): Promise<any> {
  await pickServer(py, [ip]);
  return py.read('/session', { client: [ip] });
}

export async function startSession(py: PythonClient, ips: string[], disk: string, partition: string): Promise<void> {
  await pickServer(py, ips);
  await post(py, '/session', { clients: ips, disk, partition });
}

export interface PartitionRow {
  partition: string;
  type: string;
  fs: string;
  /** The form's size field; ogCP sends it times 1024. */
  size: number;
  format: boolean;
}

/** Partition & format: rows as entered, partitions 1-4 padded with EMPTY; cache keyed on type CACHE. */
export async function setup(
  py: PythonClient,
  ips: string[],
  disk: number,
  diskType: 'MSDOS' | 'GPT',
  rows: PartitionRow[],
): Promise<Record<string, any>> {
  const payload: Record<string, any> = {
    clients: ips,
    disk: String(disk),
    type: diskType,
    cache: '0',
    cache_size: '0',
    partition_setup: [],
  };
  const required = ['1', '2', '3', '4'];
  for (const row of rows) {
    payload.partition_setup.push({
      partition: row.partition,
      code: row.type,
      filesystem: row.fs,
      size: String(row.size * 1024),
      format: String(Number(row.format)),
    });
    if (required.includes(row.partition)) required.splice(required.indexOf(row.partition), 1);
    if (row.type === 'CACHE') {
      payload.cache = '1';
      payload.cache_size = String(row.size * 1024);
    }
  }
  for (const partition of required) payload.partition_setup.push({ partition, code: 'EMPTY', filesystem: 'EMPTY', size: '0', format: '0' });
  await pickServer(py, ips);
  await post(py, '/setup', payload);
  return payload;
}

/** The image forms' partition choices: `"disk part code"` of every entry but the disks. */
export async function imagePartitionChoices(py: PythonClient, ip: string): Promise<string[]> {
  const { partitions } = await py.read('/client/setup', { client: [ip] });
  return partitions.filter((p: any) => p.partition !== 0).map((p: any) => `${p.disk} ${p.partition} ${p.code}`);
}

/** get_repository: the one repository whose id is the image's `repo_id` (unpacking fails otherwise). */
async function repositoryOf(py: PythonClient, repoId: number): Promise<any> {
  const matches = (await py.read('/repositories')).repositories.filter((r: any) => r.id === repoId);
  assert.equal(matches.length, 1, `exactly one repository has id ${repoId}`);
  return matches[0];
}

async function imageById(py: PythonClient, id: number): Promise<any> {
  const image = (await py.read('/images')).images.find((i: any) => i.id === id);
  assert.ok(image, `image ${id} listed in /images`);
  return image;
}

/** Create image: `os` is a partition choice, `repository` the select's value (a string, sent as int). */
export async function createImage(
  py: PythonClient,
  ip: string,
  os: string,
  name: string,
  repository: string,
  description: string,
): Promise<void> {
  await pickServer(py, [ip]);
  const info = await py.read('/client/info', { client: [ip] });
  const [disk, partition, code] = os.split(' ');
  await post(py, '/image/create', {
    clients: [ip],
    disk,
    partition,
    code,
    name,
    repository_id: Number(repository),
    id: '0',
    description,
    group_id: 0,
    center_id: info.center,
  });
}

/** Update image: an existing image recreated from a partition, its repository named by address. */
export async function updateImage(py: PythonClient, ip: string, os: string, imageId: string): Promise<void> {
  const [disk, partition, code] = os.split(' ');
  await pickServer(py, [ip]);
  const image = await imageById(py, Number(imageId));
  const repository = await repositoryOf(py, image.repo_id);
  await post(py, '/image/create', {
    clients: [ip],
    disk,
    partition,
    code,
    name: image.name,
    repository: repository.ip,
    id: String(image.id),
    group_id: 0,
    center_id: 0,
  });
}

/** Restore image: TIPTORRENT only, `partition` a choice `"disk part"`. */
export async function restoreImage(py: PythonClient, ips: string[], partitionChoice: string, imageId: string): Promise<void> {
  const [disk, partition] = partitionChoice.split(' ');
  await pickServer(py, ips);
  const image = await imageById(py, Number(imageId));
  const repository = await repositoryOf(py, image.repo_id);
  await post(py, '/image/restore', {
    disk,
    partition,
    name: image.name,
    repository: repository.ip,
    clients: ips,
    type: 'TIPTORRENT',
    profile: String(image.software_id),
    id: String(image.id),
  });
}

export const deleteImage = (py: PythonClient, id: string) => post(py, '/image/delete', { image: id });

/**
 * Client details: info, ogLive and mode choices, rooms, images and the disk setup, where
 * every non-zero partition `image` must be listed in /images (`next(...)` raises otherwise).
 */
export async function clientDetails(py: PythonClient, ip: string): Promise<{ info: any; setup: any[] }> {
  await pickServer(py, [ip]);
  const info = await py.read('/client/info', { client: [ip] });
  await py.read('/oglive/list');
  await py.read('/mode');
  await py.read('/scopes');
  const { images } = await py.read('/images');
  const { partitions } = await py.read('/client/setup', { client: [ip] });
  for (const p of partitions) {
    if (images.length > 0 && p.image !== 0)
      assert.ok(
        images.some((i: any) => i.id === p.image),
        `partition ${p.disk}/${p.partition} image ${p.image} is listed in /images`,
      );
  }
  return { info, setup: partitions };
}

/** The dashboard: clients, images, ogLive list and stats, each parsed. */
export async function dashboard(py: PythonClient): Promise<{ clients: any; images: any; oglive: any; stats: any }> {
  return {
    clients: await py.read('/clients'),
    images: await py.read('/images'),
    oglive: await py.read('/oglive/list'),
    stats: await py.read('/stats'),
  };
}

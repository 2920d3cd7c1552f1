import type { EntityManager } from '@mikro-orm/core';
import { execute, insertInChunks, type Database } from 'ogserve';
import type { StoredDiskEntry } from './service';

/**
 * Records brought from another system (an OpenGnsys site), with the ids they had there.
 * References name ids of the same import or rows already stored; parents come before
 * children in every list. The importer has checked each record by the rules of the REST
 * call that would create it.
 */
export interface ImportedServer {
  id: number;
  ip: string;
  port: number;
}

export interface ImportedRepository {
  id: number;
  name: string;
  center: number;
  addresses: string[];
}

export interface ImportedCenter {
  id: number;
  name: string;
  comment: string;
}

export interface ImportedRoomFolder {
  id: number;
  name: string;
  centerId: number;
  parentId: number | null;
}

export interface ImportedRoom {
  id: number;
  name: string;
  centerId: number;
  folderId: number | null;
  netmask: string;
  gateway: string;
  location: string;
  ntp: string;
  dns: string;
  remote: boolean;
}

export interface ImportedComputerFolder {
  /** Table id; the public id is COMPUTER_FOLDER_MARKER + id. */
  id: number;
  publicId: number;
  name: string;
  roomId: number;
  parentId: number | null;
}

export interface ImportedClient {
  id: number;
  name: string;
  serialNumber: string;
  ip: string;
  /** 12 lower-case hex digits. */
  mac: string;
  roomId: number;
  /** Computer folder table id. */
  folderId: number | null;
  hardwareId: number;
  repositoryId: number | null;
  serverId: number | null;
  netmask: string;
  boot: string;
  netiface: string;
  netdriver: string;
  livedir: string;
  remote: boolean;
  maintenance: boolean;
}

export interface ImportedDisks {
  clientId: number;
  entries: StoredDiskEntry[];
}

export interface ImportedInventory {
  servers: ImportedServer[];
  repositories: ImportedRepository[];
  centers: ImportedCenter[];
  roomFolders: ImportedRoomFolder[];
  rooms: ImportedRoom[];
  computerFolders: ImportedComputerFolder[];
  clients: ImportedClient[];
  disks: ImportedDisks[];
}

/** What the inventory already holds, by id, with the keys that must stay unique. */
export interface InventoryHoldings {
  centers: Map<number, { name: string }>;
  roomFolders: Set<number>;
  rooms: Map<number, { centerId: number; name: string }>;
  computerFolders: Set<number>;
  clients: Map<number, { name: string; ip: string; mac: string }>;
  repositories: Map<number, { name: string; addresses: string[] }>;
  servers: Map<number, { ip: string }>;
}

const tables = ['Server', 'Repository', 'RepositoryAddress', 'Center', 'RoomFolder', 'Room', 'ComputerFolder', 'Client', 'Partition'];

export async function inventoryHoldings(em: EntityManager): Promise<InventoryHoldings> {
  const rows = (sql: string) => execute<Record<string, string | number>>(em, sql);
  const repositories = new Map<number, { name: string; addresses: string[] }>();
  for (const r of await rows('select id, name from repositories')) repositories.set(Number(r.id), { name: String(r.name), addresses: [] });
  for (const a of await rows('select repository_id, ip from repository_addresses order by id')) {
    repositories.get(Number(a.repository_id))?.addresses.push(String(a.ip));
  }
  return {
    centers: new Map((await rows('select id, name from centers')).map((r) => [Number(r.id), { name: String(r.name) }])),
    roomFolders: new Set((await rows('select id from room_folders')).map((r) => Number(r.id))),
    rooms: new Map(
      (await rows('select id, center_id, name from rooms')).map((r) => [
        Number(r.id),
        { centerId: Number(r.center_id), name: String(r.name) },
      ]),
    ),
    computerFolders: new Set((await rows('select id from computer_folders')).map((r) => Number(r.id))),
    clients: new Map(
      (await rows('select id, name, ip, mac from clients')).map((r) => [
        Number(r.id),
        { name: String(r.name), ip: String(r.ip), mac: String(r.mac) },
      ]),
    ),
    repositories,
    servers: new Map((await rows('select id, ip from servers')).map((r) => [Number(r.id), { ip: String(r.ip) }])),
  };
}

/**
 * Write imported records in the caller's transaction, keeping their ids. A repository
 * record replaces a stored repository with its id (the default one a fresh inventory seeds);
 * every other id must be new.
 */
export async function writeInventory(db: Database, em: EntityManager, records: ImportedInventory): Promise<void> {
  const replaced = records.repositories.map((r) => r.id);
  if (replaced.length > 0) await em.nativeDelete('Repository', { id: { $in: replaced } });
  await insertInChunks(em, 'Server', records.servers);
  await insertInChunks(
    em,
    'Repository',
    records.repositories.map((r) => ({ id: r.id, name: r.name, center: r.center })),
  );
  await insertInChunks(
    em,
    'RepositoryAddress',
    records.repositories.flatMap((r) => r.addresses.map((ip) => ({ repository: r.id, ip }))),
  );
  await insertInChunks(em, 'Center', records.centers);
  // A folder may name a parent of the same table: parents come first, and every engine
  // checks a foreign key after the rows before it in the same statement are in.
  await insertInChunks(
    em,
    'RoomFolder',
    records.roomFolders.map((f) => ({ id: f.id, name: f.name, center: f.centerId, parent: f.parentId })),
  );
  await insertInChunks(
    em,
    'Room',
    records.rooms.map((r) => ({
      id: r.id,
      name: r.name,
      center: r.centerId,
      folder: r.folderId,
      netmask: r.netmask,
      gateway: r.gateway,
      location: r.location,
      ntp: r.ntp,
      dns: r.dns,
      remote: r.remote,
    })),
  );
  await insertInChunks(
    em,
    'ComputerFolder',
    records.computerFolders.map((f) => ({ id: f.id, name: f.name, room: f.roomId, parent: f.parentId })),
  );
  await insertInChunks(
    em,
    'Client',
    records.clients.map((c) => ({
      id: c.id,
      name: c.name,
      serialNumber: c.serialNumber,
      ip: c.ip,
      mac: c.mac,
      room: c.roomId,
      folder: c.folderId,
      hardwareId: c.hardwareId,
      repository: c.repositoryId,
      server: c.serverId,
      netmask: c.netmask,
      boot: c.boot,
      netiface: c.netiface,
      netdriver: c.netdriver,
      livedir: c.livedir,
      remote: c.remote,
      maintenance: c.maintenance,
    })),
  );
  await insertInChunks(
    em,
    'Partition',
    records.disks.flatMap(({ clientId, entries }) =>
      entries.map((e) => ({
        client: clientId,
        disk: e.disk,
        partition: e.partition,
        diskType: e.diskType,
        code: e.code,
        size: e.size.toString(),
        usedSize: e.usedSize.toString(),
        freeSize: e.freeSize.toString(),
        filesystem: e.filesystem,
        os: e.os,
        image: e.image,
        software: e.software,
      })),
    ),
  );
  await db.restartIdSequences(em, tables);
}

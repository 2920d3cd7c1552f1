import type { EntityManager } from '@mikro-orm/core';
import { execute } from 'ogserve';
import { computerFolderPublicId } from './folder-ids';

/** A client as other plugins see it: its own fields plus its room's network settings. */
export interface ClientView {
  id: number;
  name: string;
  serialNumber: string;
  ip: string;
  /** 12 lower-case hex digits, no separators. */
  mac: string;
  netmask: string;
  boot: string;
  livedir: string;
  netiface: string;
  netdriver: string;
  hardwareId: number;
  repositoryId: number;
  serverId: number;
  /** Public computer-folder id (with the marker), 0 when in no folder. */
  folderId: number;
  remote: boolean;
  maintenance: boolean;
  room: {
    id: number;
    name: string;
    centerId: number;
    netmask: string;
    gateway: string;
    ntp: string;
    dns: string;
    location: string;
  };
}

export const clientViewSelect = `select c.id, c.name, c.serial_number, c.ip, c.mac, c.netmask, c.boot, c.livedir, c.netiface,
  c.netdriver, c.hardware_id, c.repository_id, c.server_id, c.folder_id, c.remote, c.maintenance,
  r.id as room_id, r.name as room_name, r.center_id, r.netmask as room_netmask, r.gateway as room_gateway,
  r.ntp as room_ntp, r.dns as room_dns, r.location as room_location
  from clients c join rooms r on r.id = c.room_id`;

export type ClientRow = Record<string, unknown>;

export function toClientView(row: ClientRow): ClientView {
  return {
    id: Number(row.id),
    name: String(row.name),
    serialNumber: String(row.serial_number),
    ip: String(row.ip),
    mac: String(row.mac),
    netmask: String(row.netmask),
    boot: String(row.boot),
    livedir: String(row.livedir),
    netiface: String(row.netiface),
    netdriver: String(row.netdriver),
    hardwareId: Number(row.hardware_id),
    repositoryId: Number(row.repository_id ?? 0),
    serverId: Number(row.server_id ?? 0),
    folderId: row.folder_id == null ? 0 : computerFolderPublicId(Number(row.folder_id)),
    remote: Boolean(Number(row.remote)),
    maintenance: Boolean(Number(row.maintenance)),
    room: {
      id: Number(row.room_id),
      name: String(row.room_name),
      centerId: Number(row.center_id),
      netmask: String(row.room_netmask),
      gateway: String(row.room_gateway),
      ntp: String(row.room_ntp),
      dns: String(row.room_dns),
      location: String(row.room_location),
    },
  };
}

/**
 * The clients matching a condition on `c` (clients) and `r` (their rooms), read in `em`, by
 * id. SQL against the inventory's tables: for the inventory's own code, never exported.
 */
export async function clientsWhere(em: EntityManager, sql: string, params: unknown[]): Promise<ClientView[]> {
  const rows = await execute(em, `${clientViewSelect} where ${sql} order by c.id`, params);
  return rows.map(toClientView);
}

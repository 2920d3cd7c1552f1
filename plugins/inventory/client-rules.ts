import type { EntityManager, EntitySchema } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ErrorCode, badRequest, type Logger, toInt } from 'ogserve';
import { ClientEntity, type Client } from './entities/client';
import { type ComputerFolder, ComputerFolderEntity } from './entities/folder';
import { RepositoryEntity } from './entities/repository';
import { RoomEntity } from './entities/room';
import { ServerEntity } from './entities/server';
import { parseFolderId } from './folder-ids';
import { requireRow } from './lookups';
import type { ClientAdd, ClientUpdate } from './schemas';

export interface InventoryConfig {
  default_boot: string;
  default_livedir: string;
  setup_size_unit: 'bytes' | 'KiB';
  import_max_rows: number;
}

type ClientFields = Partial<Static<typeof ClientUpdate>>;

/** A computer folder of the given room, or null for `folder_id` 0. */
export async function computerFolder(em: EntityManager, publicId: number | string, roomId: number): Promise<ComputerFolder | null> {
  const id = toInt(publicId);
  if (id === 0) return null;
  const ref = parseFolderId(id, 'folder_id');
  if (ref.kind !== 'computer')
    throw badRequest(ErrorCode.invalidField, `folder ${id} is a room folder; clients go in computer folders`, 'folder_id');
  const folder = await requireRow(em, ComputerFolderEntity, ref.id, 'folder_id');
  if (folder.room.id !== roomId) throw badRequest(ErrorCode.invalidField, `folder ${id} belongs to another room`, 'folder_id');
  return folder;
}

/** The row `value` names, or null for 0 (none). */
export async function optionalRef<T extends { id: number }>(
  em: EntityManager,
  entity: EntitySchema<T>,
  value: number | string,
  field: string,
): Promise<T | null> {
  const id = toInt(value);
  return id === 0 ? null : requireRow(em, entity, id, field);
}

/**
 * How a client is written and what refuses it, shared by the routes that write clients
 * (`/client/add`, `/client/update`, `/client/import`), so that each applies the same rules.
 */
export class ClientRules {
  constructor(
    private readonly config: InventoryConfig,
    private readonly log: Logger,
  ) {}

  /** Refuse an IP or MAC another client holds; the MAC owner is logged, as the reference does. */
  async checkUnique(em: EntityManager, fields: { ip?: string; mac?: string }, selfId?: number): Promise<void> {
    if (fields.ip !== undefined) {
      const owner = await em.findOne(ClientEntity, { ip: fields.ip, id: { $ne: selfId ?? 0 } });
      if (owner) throw badRequest(ErrorCode.duplicate, `client '${owner.name}' (id ${owner.id}) already has ip ${fields.ip}`, 'ip');
    }
    if (fields.mac !== undefined) {
      const owner = await em.findOne(ClientEntity, { mac: fields.mac, id: { $ne: selfId ?? 0 } });
      if (owner) {
        this.log.warn(
          `MAC ${fields.mac} already belongs to client name=${owner.name} ip=${owner.ip} mac=${owner.mac} room=${owner.room.id}`,
        );
        throw badRequest(ErrorCode.duplicate, `client '${owner.name}' (ip ${owner.ip}) already has mac ${fields.mac}`, 'mac');
      }
    }
  }

  /** Copy the optional fields a request set onto the entity, resolving references. */
  async applyFields(em: EntityManager, client: Client, body: ClientFields, roomId: number): Promise<void> {
    Object.assign(client, plainFields(body), await references(em, body, roomId));
  }

  /**
   * The rules of an added client, checked in the order their refusals are reported: the
   * room, the IP, the MAC, then the references. The constraints of the table catch all of
   * these but the folder's room; these checks say which rule a refused row broke.
   */
  async explainRefusal(em: EntityManager, body: Static<typeof ClientAdd>, mac: string): Promise<void> {
    const roomId = toInt(body.room);
    await requireRow(em, RoomEntity, roomId, 'room');
    await this.checkUnique(em, { ip: body.ip, mac });
    await references(em, body, roomId);
  }

  /** One statement: the room, repository and server by foreign key, the IP and MAC by unique key. */
  async insertClient(em: EntityManager, body: Static<typeof ClientAdd>, mac: string): Promise<number> {
    const roomId = toInt(body.room);
    const folder = body.folder_id === undefined ? null : await computerFolder(em, body.folder_id, roomId);
    const ref = (value: number | string | undefined) => (value === undefined || toInt(value) === 0 ? null : toInt(value));
    const row = {
      boot: this.config.default_boot,
      livedir: this.config.default_livedir,
      ...plainFields(body),
      ip: body.ip,
      mac,
      room: roomId,
      folder: folder?.id ?? null,
      repository: ref(body.repo_id),
      server: ref(body.server_id),
    };
    return Number(await em.insert(ClientEntity, row));
  }
}

/** The optional fields a request set that are stored as sent, by entity property. */
function plainFields(body: ClientFields): Partial<Client> {
  const plain = {
    name: 'name',
    serial_number: 'serialNumber',
    netmask: 'netmask',
    boot: 'boot',
    netiface: 'netiface',
    netdriver: 'netdriver',
    livedir: 'livedir',
    remote: 'remote',
    maintenance: 'maintenance',
  } as const;
  const fields: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(plain)) {
    const value = body[key as keyof typeof plain];
    if (value !== undefined) fields[property] = value;
  }
  if (body.hardware_id !== undefined) fields.hardwareId = toInt(body.hardware_id);
  return fields as Partial<Client>;
}

/** The references a request set, resolved: a 400 naming the field for one that does not exist. */
async function references(em: EntityManager, body: ClientFields, roomId: number): Promise<Partial<Client>> {
  const refs: Partial<Client> = {};
  if (body.repo_id !== undefined) refs.repository = await optionalRef(em, RepositoryEntity, body.repo_id, 'repo_id');
  if (body.server_id !== undefined) refs.server = await optionalRef(em, ServerEntity, body.server_id, 'server_id');
  if (body.folder_id !== undefined) refs.folder = await computerFolder(em, body.folder_id, roomId);
  return refs;
}

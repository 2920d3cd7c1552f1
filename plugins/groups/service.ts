import type { EntityManager } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { type Database, ErrorCode, HttpError, badRequest } from 'ogserve';
import type { ClientView, Inventory } from '../inventory';
import { type Group, GroupEntity } from './entities/group';
import { type Filter, matching } from './filter';
import type { GroupBody } from './schemas';

/** A group as the routes and other plugins see it: its filter read back. */
export interface GroupRecord {
  id: number;
  name: string;
  filter: Filter;
}

/** Says what of a plugin uses a group ("power calendar 2"), so that deleting it is refused while something does. */
export type GroupUsers = (groupId: number, em?: EntityManager) => Promise<string[]>;

const recordOf = (row: Group): GroupRecord => ({ id: row.id, name: row.name, filter: JSON.parse(row.filter) as Filter });

const notFound = (id: number) => new HttpError(404, ErrorCode.notFound, `no group with id ${id}`);

/**
 * Saved groups: named filters of the fleet. What other plugins use (the scheduler's tasks,
 * power calendars): `exists` and `name` to check and show a target, `clients` for its PCs at
 * the moment they are needed (a schedule's or calendar's firing), and `usedBy` to say what
 * of theirs targets a group, which keeps it from being deleted.
 */
export class Groups {
  private readonly users: GroupUsers[] = [];

  constructor(
    private readonly db: Database,
    private readonly inventory: Pick<Inventory, 'clientsWithCenters' | 'scopeExists' | 'computerFolderExists'>,
  ) {}

  /** Another plugin's check of what of it targets a group. */
  usedBy(users: GroupUsers): void {
    this.users.push(users);
  }

  async all(em?: EntityManager): Promise<GroupRecord[]> {
    const rows = await this.db.unit(em).find(GroupEntity, {}, { orderBy: { id: 'asc' } });
    // By name as people read it, whatever the engine's collation.
    return rows.map(recordOf).sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
  }

  /** Group `id`, read in `em` (a caller's unit of work), or null. */
  async get(id: number, em?: EntityManager): Promise<GroupRecord | null> {
    const row = await this.db.unit(em).findOne(GroupEntity, { id });
    return row ? recordOf(row) : null;
  }

  async exists(id: number, em?: EntityManager): Promise<boolean> {
    return (await this.get(id, em)) !== null;
  }

  async name(id: number): Promise<string | null> {
    return (await this.get(id))?.name ?? null;
  }

  /**
   * The PCs group `id` finds now ([] for a group that is gone), read in `em`: a schedule
   * firing inside its transaction passes its own.
   */
  async clients(id: number, em?: EntityManager): Promise<ClientView[]> {
    const group = await this.get(id, em);
    return group ? this.find(group.filter, em) : [];
  }

  /** The PCs a filter finds now, by id (read in `em` when given). */
  async find(filter: Filter, em?: EntityManager): Promise<ClientView[]> {
    const { clients, centers } = await this.inventory.clientsWithCenters(em);
    return matching(clients, filter, centers);
  }

  /** Every group with the PCs it finds now, the fleet read once for all. */
  async allWithClients(em?: EntityManager): Promise<(GroupRecord & { found: ClientView[] })[]> {
    const groups = await this.all(em);
    const { clients, centers } = await this.inventory.clientsWithCenters();
    return groups.map((g) => ({ ...g, found: matching(clients, g.filter, centers) }));
  }

  /** Create (no `id`) or replace group `id`: a name no other group has, a center, room or folder that exists. */
  async save(body: Static<typeof GroupBody>, id?: number, em?: EntityManager): Promise<GroupRecord> {
    const { within } = body.filter;
    if (within) {
      const exists =
        within.type === 'folder'
          ? await this.inventory.computerFolderExists(within.id, 'filter.within.id')
          : await this.inventory.scopeExists({ type: within.type, id: within.id });
      if (!exists) throw badRequest(ErrorCode.unknownId, `no ${within.type} with id ${within.id}`, 'filter.within.id');
    }
    const filter: Filter = {};
    if (within) filter.within = { type: within.type, id: within.id };
    if (body.filter.text?.trim()) filter.text = body.filter.text.trim();
    return this.db.transactional(async (em) => {
      const same = await em.findOne(GroupEntity, { name: body.name });
      if (same && same.id !== id) throw badRequest(ErrorCode.duplicate, `group ${same.id} is named '${body.name}' already`, 'name');
      const row = id === undefined ? em.create(GroupEntity, {} as Group) : await em.findOne(GroupEntity, { id });
      if (!row) throw notFound(id!);
      row.name = body.name;
      row.filter = JSON.stringify(filter);
      await em.flush();
      return recordOf(row);
    }, em);
  }

  /** Delete group `id`, unless a plugin's schedule or calendar targets it: a 409 naming them. */
  async remove(id: number, em?: EntityManager): Promise<void> {
    if (!(await this.exists(id, em))) throw notFound(id);
    const using = (await Promise.all(this.users.map((users) => users(id, em)))).flat();
    if (using.length > 0)
      throw new HttpError(409, ErrorCode.conflict, `group ${id} is the target of ${using.join(', ')}: change or delete them first`);
    await this.db.unit(em).nativeDelete(GroupEntity, { id });
  }
}

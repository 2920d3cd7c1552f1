import { definePlugin } from 'ogserve';
import { Inventory } from '../inventory';
import { GroupEntity } from './entities/group';
import { groupRoutes } from './routes';
import { Groups } from './service';

export { Groups, type GroupRecord, type GroupUsers } from './service';
export type { Filter as GroupFilter } from './filter';

/**
 * Saved groups: a name and a filter of the fleet ("Windows labs of School 3": the text
 * `windows` within center 3), usable wherever PCs are targeted. A group's PCs are found from
 * its filter each time it is used, never copied. Other plugins use it through `Groups`.
 */
export default definePlugin({
  name: 'groups',
  requires: ['inventory'],
  schemaVersion: 1,
  entities: [GroupEntity],
  register(ctx) {
    const groups = new Groups(ctx.db, ctx.use(Inventory));
    ctx.provide(Groups, groups);
    groupRoutes(ctx.router, groups, ctx.events);
  },
});

import { type Clock, StartupError, SystemClock, definePlugin } from 'ogserve';
import { AgentCommands, AgentLink } from '../agents';
import { Groups } from '../groups';
import { Inventory, SiteTime, isTimeZone, isoWithOffset } from '../inventory';
import { Waker } from '../wol';
import { PowerClock } from './clock';
import { PowerCalendarEntity } from './entities/calendar';
import type { Planned } from './plan';
import { powerOff, type Skip } from './power-off';
import { powerOn } from './power-on';
import { type ZoneSource, powerRoutes } from './routes';
import { PowerConfig } from './schemas';
import { CalendarStore } from './store';
import { governed } from './targets';
import { PowerTicker } from './ticker';

declare module 'ogserve' {
  interface EventMap {
    /** A calendar's action fired: the PCs it was sent to, and those it left alone with why. */
    'power.calendar.fired': {
      calendar: number;
      action: 'on' | 'off';
      at: string;
      clients: string[];
      skipped: Skip[];
      /** The power-off's job (GET /jobs/:id), when one was written. */
      job?: number;
    };
  }
}

export { PowerClock } from './clock';

/** The zone the calendars' times are in: `power.time_zone` when set (an override), else the site's. */
function zoneOf(configured: string, site: SiteTime): { zone: string; source: ZoneSource } {
  if (!configured) return { zone: site.zone, source: site.source };
  if (!isTimeZone(configured)) throw new StartupError(`power.time_zone: '${configured}' is not an IANA time zone (e.g. 'Europe/Madrid')`);
  return { zone: configured, source: 'power.time_zone' };
}

/**
 * Power calendars: per center, room, computer folder or saved group, a power-on and a power-off time
 * for each weekday and holiday ranges, in the site's time zone. Power-on wakes the PCs
 * (wol's `Waker`); power-off sends `poweroff` to connected PCs without a user session
 * (a job), unless the calendar forces it. GET /power/calendar/preview says what will happen.
 */
export default definePlugin({
  name: 'power',
  requires: ['inventory', 'agents', 'wol', 'groups'],
  schemaVersion: 1,
  entities: [PowerCalendarEntity],
  config: PowerConfig,
  register(ctx) {
    const site = ctx.use(SiteTime);
    const { zone, source } = zoneOf(ctx.config.time_zone, site);
    const clock = ctx.service<Clock>(PowerClock, () => new SystemClock());
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);
    const commands = ctx.use(AgentCommands);
    const waker = ctx.use(Waker);
    const groups = ctx.use(Groups);
    const store = new CalendarStore(ctx.db, inventory, groups);
    // A group a calendar powers is not deleted from under it.
    groups.usedBy(async (id, em) =>
      (await store.all(em)).filter((c) => c.target.type === 'group' && c.target.id === id).map((c) => `power calendar ${c.id}`),
    );

    const fire = async ({ at, action, calendar }: Planned) => {
      // All calendars: a PC follows the most specific one that names it.
      const clients = (await governed(inventory, groups, await store.all())).get(calendar.id) ?? [];
      // The job and the wake run name the calendar by its target's name, as people know it.
      const { type, id } = calendar.target;
      const name = type === 'group' ? await groups.name(id) : await inventory.scopeName(type, id);
      const asker = { name: name ?? `${type} ${id}`, source: 'calendar' };
      const done: { sent: string[]; skipped: Skip[]; job?: number } =
        action === 'on' ? await powerOn(waker, clients, asker) : await powerOff(link, commands, clients, calendar.force_off, asker);
      const when = isoWithOffset(at, zone);
      ctx.log.info(
        { calendar: calendar.id, action, at: when, clients: done.sent, skipped: done.skipped, job: done.job },
        `power calendar ${calendar.id} (${calendar.target.type} ${calendar.target.id}): power-${action} sent to ${done.sent.length} PC(s), ${done.skipped.length} skipped`,
      );
      const fired = { calendar: calendar.id, action, at: when, clients: done.sent, skipped: done.skipped };
      await ctx.events.emit('power.calendar.fired', done.job === undefined ? fired : { ...fired, job: done.job });
    };
    const ticker = new PowerTicker({ clock, zone, log: ctx.log, calendars: () => store.all(), fire });
    ticker.elect(ctx.cluster);
    ctx.onStop(() => ticker.stop());

    powerRoutes(ctx, {
      store,
      inventory,
      groups,
      zone,
      source,
      site: site.zone,
      now: () => clock.now(),
      changed: () => void ticker.rearm(),
    });
  },
});

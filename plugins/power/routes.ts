import type { IncomingMessage } from 'node:http';
import { ErrorCode, type PluginContext, badRequest } from 'ogserve';
import type { Groups } from '../groups';
import { type Inventory, isoWithOffset } from '../inventory';
import { planned } from './plan';
import { CalendarBody, CalendarList, CalendarView, Deleted, Preview } from './schemas';
import type { CalendarStore } from './store';
import { governed } from './targets';

const dayMs = 24 * 60 * 60 * 1000;
const maxPreviewDays = 31;

function idOf(req: IncomingMessage): number {
  const raw = (req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? '';
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw badRequest(ErrorCode.invalidField, "'id' must be a positive integer", 'id');
  return Number(raw);
}

/** Where the calendars' zone comes from: power's own override, else the site's (its key, or the system's). */
export type ZoneSource = 'power.time_zone' | 'site.time_zone' | 'system';

export interface PowerRouteDeps {
  store: CalendarStore;
  inventory: Pick<Inventory, 'allClients'>;
  groups: Pick<Groups, 'clients'>;
  zone: string;
  /** Where `zone` comes from (power's override, the site's key, the system). */
  source: ZoneSource;
  /** The site's zone, which power.time_zone may override. */
  site: string;
  now(): number;
  /** A calendar was saved or deleted: the ticker reads them again. */
  changed(): void;
}

/** CRUD of the calendars (admin writes, read reads) and GET /power/calendar/preview. */
export function powerRoutes(ctx: PluginContext<unknown>, deps: PowerRouteDeps): void {
  const { store, zone } = deps;
  const saved = <T>(result: T): T => {
    deps.changed();
    return result;
  };

  ctx.router.get(
    '/power/calendars',
    { permission: 'read', bodyPolicy: 'forbidden', response: CalendarList, summary: 'Power calendars, and the time zone of their times' },
    async ({ em }) => ({ time_zone: zone, time_zone_source: deps.source, site_time_zone: deps.site, calendars: await store.all(em) }),
  );
  ctx.router.post(
    '/power/calendars',
    {
      permission: 'admin',
      body: CalendarBody,
      response: CalendarView,
      summary: 'Create the power calendar of a center, room, folder or saved group',
    },
    async ({ body }) => saved(await store.save(body)),
  );
  ctx.router.get(
    '/power/calendars/:id',
    { permission: 'read', bodyPolicy: 'forbidden', response: CalendarView, summary: 'One power calendar' },
    async ({ req, em }) => store.get(idOf(req), em),
  );
  ctx.router.post(
    '/power/calendars/:id',
    { permission: 'admin', body: CalendarBody, response: CalendarView, summary: 'Replace a power calendar' },
    async ({ req, body }) => saved(await store.save(body, idOf(req))),
  );
  ctx.router.delete(
    '/power/calendars/:id',
    { permission: 'admin', bodyPolicy: 'forbidden', response: Deleted, summary: 'Delete a power calendar' },
    async ({ req, em }) => {
      const id = idOf(req);
      await store.remove(id, em);
      return saved({ id });
    },
  );

  ctx.router.get(
    '/power/calendar/preview',
    {
      permission: 'read',
      bodyPolicy: 'forbidden',
      response: Preview,
      // What fired is what the preview said would: its event goes to the readers this route answers.
      events: ['power.calendar.fired'],
      summary: `What the calendars would do in the next ?days= (1-${maxPreviewDays}, 7 by default), and to which PCs`,
    },
    async ({ query }) => {
      const raw = query.get('days') ?? '7';
      const days = /^[0-9]{1,2}$/.test(raw) ? Number(raw) : 0;
      if (days < 1 || days > maxPreviewDays)
        throw badRequest(ErrorCode.invalidField, `'days' must be a whole number from 1 to ${maxPreviewDays}`, 'days');
      const calendars = await store.all();
      const clients = await governed(deps.inventory, deps.groups, calendars);
      const now = deps.now();
      return {
        time_zone: zone,
        actions: planned(calendars, now, now + days * dayMs, zone).map((p) => ({
          at: isoWithOffset(p.at, zone),
          action: p.action,
          calendar: p.calendar.id,
          target: p.calendar.target,
          clients: clients.get(p.calendar.id) ?? [],
        })),
      };
    },
  );
}

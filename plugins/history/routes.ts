import { ErrorCode, HttpError, badRequest, Reply, type PluginContext } from 'ogserve';
import type { HardwareInventory, SoftwareInventory } from '../agents';
import type { Inventory } from '../inventory';
import { findChanges, onlyKnown, parseHistoryQuery } from './query';
import { hardwareCsv, hardwareReport, softwareCsv, softwareReport } from './reports';
import { HardwareReportSchema, HistoryPage, SoftwareReportSchema, TimelinePage } from './schemas';
import { historyEntries, parseTimelineQuery, timelineOf } from './timeline';

const csvType = 'text/csv; charset=utf-8';

/** Whether `format` asks for CSV (`format=csv`; JSON by default); a 400 naming it otherwise. */
function csvWanted(params: URLSearchParams, route: string): boolean {
  const format = params.get('format');
  if (format === null || format === 'json') return false;
  if (format === 'csv') return true;
  throw badRequest(ErrorCode.invalidField, `format: must be 'json' or 'csv' (${route})`, 'format');
}

/** GET /client/history, GET /reports/hardware and GET /reports/software: each answers only what the caller's scope holds. */
export function historyRoutes(
  ctx: PluginContext<unknown>,
  inventory: Inventory,
  hardware: HardwareInventory,
  software: SoftwareInventory,
): void {
  ctx.router.get(
    '/client/history',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: HistoryPage,
      events: ['client.hardware.changed', 'client.software.changed'],
      summary: "What changed in a client's hardware and software, newest first: ?client=&from=&to=&kind=&before=&limit=",
    },
    async ({ query: params, em, access }) => {
      const query = parseHistoryQuery(params);
      // A client outside a limited key's scope is refused as core refuses it on `clients` routes.
      const [outside] = (await access?.scope?.outside([query.client])) ?? [];
      if (outside !== undefined)
        throw new HttpError(
          403,
          ErrorCode.forbidden,
          `client ${outside} is outside what the key '${access!.name}' may reach (${access!.scope!.description})`,
        );
      const client = await inventory.clientByIp(query.client);
      if (!client) throw badRequest(ErrorCode.unknownId, `client: no client with ip ${query.client}`, 'client');
      return { client: client.ip, ...(await findChanges(em, client.id, query, (code) => hardware.typeName(code))) };
    },
  );

  ctx.router.get(
    '/client/timeline',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: TimelinePage,
      summary:
        'Everything that happened to a client, newest first: jobs and wakes, power states, boots, inventory changes, changes of its record: ?client=&before=&limit=',
    },
    async ({ query: params, access, log }) => {
      const query = parseTimelineQuery(params);
      const [outside] = (await access?.scope?.outside([query.client])) ?? [];
      if (outside !== undefined)
        throw new HttpError(
          403,
          ErrorCode.forbidden,
          `client ${outside} is outside what the key '${access!.name}' may reach (${access!.scope!.description})`,
        );
      const client = await inventory.clientByIp(query.client);
      if (!client) throw badRequest(ErrorCode.unknownId, `client: no client with ip ${query.client}`, 'client');
      const permissions = access?.permissions ?? new Set<string>();
      return { client: client.ip, ...(await timelineOf(ctx.events, client, query, permissions, log)) };
    },
  );
  // The history's own part of the timeline: what the inventories found changed.
  ctx.events.on(
    'client.timeline',
    async (question) => question.add(await historyEntries(ctx.db.fork(), question, (code) => hardware.typeName(code))),
    'add the inventory changes to a timeline',
  );

  ctx.router.get(
    '/reports/hardware',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: HardwareReportSchema,
      summary: 'PCs counted by CPU model, memory size, disk model and size, firmware type: ?by=center|room&format=json|csv',
    },
    async ({ query: params, access }) => {
      onlyKnown(params, ['by', 'format'], 'GET /reports/hardware');
      const by = params.get('by') ?? 'center';
      if (by !== 'center' && by !== 'room') throw badRequest(ErrorCode.invalidField, "by: must be 'center' or 'room'", 'by');
      const csv = csvWanted(params, 'GET /reports/hardware');
      const report = await hardwareReport(inventory, hardware, by, await access?.scope?.addresses());
      return csv ? Reply.text(hardwareCsv(report), csvType, { uncapped: true }) : Reply.json(report, { uncapped: true });
    },
  );

  ctx.router.get(
    '/reports/software',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: SoftwareReportSchema,
      summary: 'Which PCs have which versions of the packages whose name contains ?name= (&format=json|csv)',
    },
    async ({ query: params, access }) => {
      onlyKnown(params, ['name', 'format'], 'GET /reports/software');
      const name = params.get('name')?.trim() ?? '';
      if (name === '') throw badRequest(ErrorCode.missingField, 'name: the package name (or part of it) is required', 'name');
      if (name.length > 255) throw badRequest(ErrorCode.invalidField, 'name: at most 255 characters', 'name');
      const csv = csvWanted(params, 'GET /reports/software');
      const report = await softwareReport(inventory, software, name, await access?.scope?.addresses());
      return csv ? Reply.text(softwareCsv(report), csvType, { uncapped: true }) : Reply.json(report, { uncapped: true });
    },
  );
}

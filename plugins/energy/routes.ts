import { type Clock, type PluginContext, Reply } from 'ogserve';
import { roomsNow } from './now';
import { csvWanted, onlyKnown, parseEnergyQuery, scopeFilter } from './query';
import { type ReportSources, energyCsv, energyReport, pcsOf } from './report';
import { EnergyNowSchema, EnergyReportSchema } from './schemas';

const csvType = 'text/csv; charset=utf-8';

/** GET /energy and GET /energy/now: a limited caller's figures count only its PCs. */
export function energyRoutes(ctx: PluginContext<unknown>, sources: ReportSources, clock: Clock): void {
  ctx.router.get(
    '/energy',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: EnergyReportSchema,
      summary: 'Hours in each power state and estimated kWh: ?from=&to=&by=client|room|center|day&room=&center=&format=json|csv',
    },
    async ({ req, query, access }) => {
      const now = clock.now();
      const parsed = parseEnergyQuery(query, now);
      const csv = csvWanted(query, req.headers.accept);
      const pcs = await pcsOf(sources, parsed, await access?.scope?.addresses());
      const report = await energyReport(sources.readings, pcs, parsed, now);
      // A report by client grows with the fleet: never cut at rest.max_response_bytes.
      return csv ? Reply.text(energyCsv(report), csvType, { uncapped: true }) : Reply.json(report, { uncapped: true });
    },
  );

  ctx.router.get(
    '/energy/now',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: EnergyNowSchema,
      summary: "Each room's PCs by power state now, and those on with nobody using them: ?room=&center=",
    },
    async ({ query, access }) => {
      onlyKnown(query, ['room', 'center'], 'GET /energy/now');
      const pcs = await pcsOf(sources, scopeFilter(query), await access?.scope?.addresses());
      return Reply.json({ rooms: await roomsNow(sources.readings, pcs, clock.now()) }, { uncapped: true });
    },
  );
}

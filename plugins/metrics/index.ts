import { Type } from '@sinclair/typebox';
import { Reply, definePlugin } from 'ogserve';
import { AgentLink } from '../agents';
import { Inventory } from '../inventory';
import { collectServiceMetrics } from './collection';

/**
 * Prometheus: GET /metrics serves every figure core and the plugins put in `ctx.metrics`
 * (the text format), and GET /metrics/targets hands Prometheus the fleet as scrape targets
 * (HTTP service discovery): each client's exporter, labelled from the inventory.
 */
export default definePlugin({
  name: 'metrics',
  requires: ['inventory', 'agents'],
  config: Type.Object(
    {
      /** The port each client's exporter listens on (node_exporter's by default). */
      targets_port: Type.Integer({ default: 9100, minimum: 1, maximum: 65535 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    collectServiceMetrics(ctx.metrics, ctx.hooks, ctx.db);
    const inventory = ctx.use(Inventory);
    const link = ctx.use(AgentLink);

    const text = {
      permission: 'read',
      bodyPolicy: 'ignored',
      log: false,
      responseType: 'text/plain; version=0.0.4',
    } as const;
    // Uncapped: the series grow with the routes and plugins, and a scrape needs them whole.
    ctx.router.get('/metrics', { ...text, summary: 'Prometheus metrics' }, async () =>
      Reply.text(await ctx.metrics.metrics(), ctx.metrics.contentType, { uncapped: true }),
    );

    // Uncapped: a fleet of thousands is past the rest.max_response_bytes cap meant for the
    // reference's answers.
    const targetsSchema = Type.Array(
      Type.Object({
        targets: Type.Array(Type.String()),
        labels: Type.Object({ center: Type.String(), room: Type.String(), name: Type.String(), mac: Type.String(), state: Type.String() }),
      }),
    );
    const json = {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'ignored',
      log: false,
      response: targetsSchema,
    } as const;
    ctx.router.get('/metrics/targets', { ...json, summary: 'the fleet as Prometheus HTTP service discovery' }, async ({ access }) => {
      const states = new Map(link.listing().map((c) => [c.addr, c.state]));
      const port = ctx.config.targets_port;
      const inside = await access?.scope?.addresses();
      const fleet = (await inventory.fleetLabels()).filter((client) => !inside || inside.has(client.ip));
      const targets = fleet.map((client) => ({
        targets: [`${client.ip}:${port}`],
        labels: { center: client.center, room: client.room, name: client.name, mac: client.mac, state: states.get(client.ip) ?? 'OFF' },
      }));
      return Reply.json(targets, { uncapped: true });
    });
  },
});

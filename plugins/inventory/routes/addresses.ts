import { ClientAddresses } from '../schemas';
import type { PluginContext } from 'ogserve';

/**
 * GET /client/addresses -> `{clients: [{ip, mac}]}`: every client's MAC by address, in one
 * read, so a console can find clients by MAC (GET /scopes carries names and addresses only).
 * Kept out of the request log with the other reads consoles repeat.
 */
export function addressRoutes(ctx: PluginContext): void {
  const spec = { permission: 'read', bodyPolicy: 'forbidden', log: false, scoped: 'filtered', response: ClientAddresses } as const;
  ctx.router.get('/client/addresses', spec, async ({ access }) => {
    const rows = await ctx.db.query<{ ip: string; mac: string }>('select ip, mac from clients order by id');
    const inside = await access?.scope?.addresses();
    return { clients: rows.filter((r) => !inside || inside.has(r.ip)).map((r) => ({ ip: r.ip, mac: r.mac })) };
  });
}

import { Type } from '@sinclair/typebox';
import { type Clock, ErrorCode, badRequest, execute, type PluginContext } from 'ogserve';

/** The stages of a boot in the order a PC reaches them: the last one reached is where it stopped. */
const stageOrder = ['loader', 'script', 'kernel', 'initrd', 'root', 'agent'];

const LastStages = Type.Object({
  clients: Type.Array(
    Type.Object({
      client: Type.String(),
      started: Type.String({ description: 'when its last boot began (a loader or its script served), ISO 8601' }),
      stage: Type.String({ description: 'the furthest stage that boot reached: loader, script, kernel, initrd, root or agent' }),
      at: Type.String({ description: 'when it reached it, ISO 8601' }),
      cut_short: Type.Boolean({ description: 'a file transfer of that boot was cut short' }),
    }),
  ),
});

/** Hours GET /boot/stages looks back by default, and at most (a PC's boots older than that are not "its last boot"). */
const defaultHours = 24;
const maxHours = 24 * 31;

interface Row {
  ip: string;
  boot: string | number;
  stage: string;
  at: string | number;
  cut_short: number | boolean | null;
}

/**
 * GET /boot/stages?hours=<n>: for each PC that booted over the network in the last `n` hours,
 * its last boot and the furthest stage it reached, so that a room's PCs stuck at the kernel
 * or never reaching their agent stand out (the console's dashboard and fleet use it).
 */
export function lastStagesRoute(ctx: PluginContext<unknown>, clock: Clock): void {
  ctx.router.get(
    '/boot/stages',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: LastStages,
      events: ['boot.stage'],
      summary: "Each PC's last network boot of the last ?hours= (24) and the furthest stage it reached",
    },
    async ({ query, em, access }) => {
      const hours = hoursWanted(query.get('hours'));
      const since = clock.now() - hours * 3_600_000;
      // Each PC's latest boot since then, and all of that boot's stages, in one pass.
      const rows = await execute<Row>(
        em,
        `select c.ip as ip, s.boot as boot, s.stage as stage, s.at as at, s.cut_short as cut_short
           from boot_stages s
           join (select client_id, max(boot) as boot from boot_stages where boot >= ? group by client_id) latest
             on latest.client_id = s.client_id and latest.boot = s.boot
           join clients c on c.id = s.client_id
          order by c.ip, s.id`,
        [since],
      );
      const allowed = await access?.scope?.addresses();
      const reach = allowed ? new Set(allowed) : undefined;
      const byClient = new Map<string, { client: string; started: string; stage: string; at: string; cut_short: boolean }>();
      for (const row of rows) {
        if (reach && !reach.has(row.ip)) continue;
        const shown = byClient.get(row.ip);
        const cutShort = Boolean(row.cut_short) || (shown?.cut_short ?? false);
        const further = !shown || stageOrder.indexOf(row.stage) >= stageOrder.indexOf(shown.stage);
        byClient.set(row.ip, {
          client: row.ip,
          started: new Date(Number(row.boot)).toISOString(),
          stage: further ? row.stage : shown.stage,
          at: further ? new Date(Number(row.at)).toISOString() : shown.at,
          cut_short: cutShort,
        });
      }
      return { clients: [...byClient.values()] };
    },
  );
}

function hoursWanted(value: string | null): number {
  if (value === null) return defaultHours;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > maxHours)
    throw badRequest(ErrorCode.invalidField, `hours: a whole number from 1 to ${maxHours}`, 'hours');
  return n;
}

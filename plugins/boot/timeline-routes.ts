import { type Static, Type } from '@sinclair/typebox';
import { ErrorCode, HttpError, badRequest, isIpv4, type PluginContext } from 'ogserve';
import type { Inventory } from '../inventory';
import { BootStageEntity } from './entities/boot-stage';
import { bootStarts } from './timeline';

const Stage = Type.Object({
  stage: Type.String({ description: 'loader, script, kernel, initrd, root or agent' }),
  at: Type.String({ description: 'ISO 8601' }),
  bytes: Type.Optional(Type.Integer({ description: 'bytes sent (files)' })),
  ms: Type.Optional(Type.Integer({ description: 'how long the transfer took (files)' })),
  cut_short: Type.Optional(Type.Boolean({ description: 'the PC closed the transfer before its end' })),
  state: Type.Optional(Type.String({ description: 'the state its agent came up in (agent)' })),
});

export const Timeline = Type.Object({
  client: Type.String(),
  boots: Type.Array(Type.Object({ started: Type.String({ description: 'ISO 8601' }), stages: Type.Array(Stage) })),
});

/** Boots a timeline answers by default, and at most. */
const defaultBoots = 5;
const maxBoots = 50;

/** GET /boot/timeline?client=<ip>&boots=<n>: a PC's last boots, newest first, each stage with its time. */
export function timelineRoutes(ctx: PluginContext<unknown>, inventory: Inventory): void {
  ctx.router.get(
    '/boot/timeline',
    {
      permission: 'read',
      scoped: 'filtered',
      bodyPolicy: 'forbidden',
      response: Timeline,
      events: ['boot.stage'],
      summary: "A PC's last network boots, newest first, as stages with times: ?client=&boots=",
    },
    async ({ query, em, access }) => {
      const ip = query.get('client') ?? '';
      if (!isIpv4(ip)) throw badRequest(ErrorCode.invalidField, `client: '${ip.slice(0, 40)}' is not an IPv4 address`, 'client');
      const boots = bootsWanted(query.get('boots'));
      // A client outside a limited key's scope is refused as core refuses it on `clients` routes.
      const [outside] = (await access?.scope?.outside([ip])) ?? [];
      if (outside !== undefined)
        throw new HttpError(
          403,
          ErrorCode.forbidden,
          `client ${outside} is outside what the key '${access!.name}' may reach (${access!.scope!.description})`,
        );
      const client = await inventory.clientByIp(ip);
      if (!client) throw badRequest(ErrorCode.unknownId, `client: no client with ip ${ip}`, 'client');
      const starts = await bootStarts(em, client.id, boots);
      if (starts.length === 0) return { client: ip, boots: [] };
      const rows = await em.find(
        BootStageEntity,
        { client: client.id, boot: { $gte: String(starts[starts.length - 1]) } },
        { orderBy: { boot: 'desc', id: 'asc' } },
      );
      const answer: Static<typeof Timeline> = { client: ip, boots: [] };
      for (const row of rows) {
        const started = new Date(Number(row.boot)).toISOString();
        let boot = answer.boots[answer.boots.length - 1];
        if (boot?.started !== started) answer.boots.push((boot = { started, stages: [] }));
        boot.stages.push({
          stage: row.stage,
          at: new Date(Number(row.at)).toISOString(),
          ...(row.bytes === null ? {} : { bytes: Number(row.bytes) }),
          ...(row.ms === null ? {} : { ms: row.ms }),
          ...(row.cutShort === null ? {} : { cut_short: Boolean(row.cutShort) }),
          ...(row.state === null ? {} : { state: row.state }),
        });
      }
      return answer;
    },
  );
}

function bootsWanted(value: string | null): number {
  if (value === null) return defaultBoots;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > maxBoots)
    throw badRequest(ErrorCode.invalidField, `boots: a whole number from 1 to ${maxBoots}`, 'boots');
  return n;
}

import { Type } from '@sinclair/typebox';
import { definePlugin } from 'ogserve';
import { epochSeconds, memoryFigures, secondsSinceBoot, swapFigures } from './system';

/**
 * GET /stats: server clock, uptime and memory, as the web console's dashboard reads them.
 * `time.start` is the epoch second the service started (the spec's meaning); with
 * `stats.start: "uptime"` it is the seconds since then, as the reference sent it and as
 * ogCP's dashboard shows it.
 */
export default definePlugin({
  name: 'stats',
  config: Type.Object(
    {
      start: Type.Union([Type.Literal('epoch'), Type.Literal('uptime')], { default: 'epoch' }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const uptime = ctx.config.start === 'uptime';
    let startedAt = epochSeconds();
    ctx.onStart(() => {
      startedAt = epochSeconds();
    });
    const Figures = Type.Object({ size: Type.Number(), free: Type.Number() });
    const response = Type.Object({
      time: Type.Object({ now: Type.Integer(), boot: Type.Integer(), start: Type.Integer() }),
      memory: Figures,
      swap: Figures,
    });
    ctx.router.get('/stats', { permission: 'read', scoped: 'open', bodyPolicy: 'forbidden', response }, async () => ({
      time: { now: epochSeconds(), boot: secondsSinceBoot(), start: uptime ? epochSeconds() - startedAt : startedAt },
      memory: memoryFigures(),
      swap: await swapFigures(),
    }));
  },
});

import { definePlugin } from '../../core/plugin';
import { epochSeconds, memoryFigures, secondsSinceBoot, swapFigures } from './system';

/**
 * GET /stats: server clock, uptime and memory, as the web console's dashboard reads them.
 * `time.start` is the epoch second the service started (the spec's meaning; the older
 * reference sent the elapsed seconds instead).
 */
export default definePlugin({
  name: 'stats',
  register(ctx) {
    let startedAt = epochSeconds();
    ctx.onStart(() => {
      startedAt = epochSeconds();
    });
    ctx.router.get('/stats', { bodyPolicy: 'forbidden' }, async () => ({
      time: { now: epochSeconds(), boot: secondsSinceBoot(), start: startedAt },
      memory: memoryFigures(),
      swap: await swapFigures(),
    }));
  },
});

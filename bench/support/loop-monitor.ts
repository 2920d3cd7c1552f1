import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Preloaded into the service by the soak (`node --require loop-monitor.js dist/core/main.js`),
 * so the service's own event-loop delay is measured without any code in core: every
 * SOAK_LOOP_INTERVAL_MS it appends `{"t":..., "p99ms":..., "maxms":...}` to SOAK_LOOP_FILE.
 */
const file = process.env.SOAK_LOOP_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const timer = setInterval(() => {
    appendFileSync(file, JSON.stringify({ t: Date.now(), p99ms: histogram.percentile(99) / 1e6, maxms: histogram.max / 1e6 }) + '\n');
    histogram.reset();
  }, Number(process.env.SOAK_LOOP_INTERVAL_MS ?? 2000));
  timer.unref();
}

import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Preloaded into the service by the soak (`node --require service-probe.js dist/cli/main.js`),
 * so the service is measured without any code in core:
 * - every SOAK_PROBE_INTERVAL_MS it appends `{"t", "p99ms", "maxms"}` (event-loop delay of
 *   that window) and the heap figures of process.memoryUsage() (bytes) to SOAK_PROBE_FILE;
 * - on SIGUSR2 it runs a full garbage collection. V8 collects old space only under
 *   allocation pressure, so a server left idle after a mass disconnect keeps dead objects
 *   until traffic resumes: the soak collects before reading the memory left behind, so
 *   that reading shows what is still referenced (a leak), not what is merely not yet freed.
 */
const file = process.env.SOAK_PROBE_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const timer = setInterval(
    () => {
      const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      appendFileSync(
        file,
        `${JSON.stringify({
          t: Date.now(),
          p99ms: histogram.percentile(99) / 1e6,
          maxms: histogram.max / 1e6,
          heapUsed,
          heapTotal,
          external,
          arrayBuffers,
        })}\n`,
      );
      histogram.reset();
    },
    Number(process.env.SOAK_PROBE_INTERVAL_MS ?? 2000),
  );
  timer.unref();
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  process.on('SIGUSR2', () => gc());
}

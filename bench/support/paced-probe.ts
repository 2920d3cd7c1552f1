import http from 'node:http';
import { percentile } from './load';

/**
 * A console's reads during a storm: GET `urlPath` (with a JSON body, as the reference's clients
 * send) on one kept-alive connection, one request every `everyMs` at most (the next one waits
 * for the answer), until `done()`. Paced rather than closed-loop, so that the probe itself adds
 * almost nothing to the load it measures. Resolves with the latencies' p50, p99 and max in ms.
 */
export async function pacedProbe(
  port: number,
  urlPath: string,
  headers: Record<string, string>,
  body: unknown,
  everyMs: number,
  done: () => boolean,
): Promise<{ requests: number; errors: number; p50ms: number; p99ms: number; maxms: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const latencies: number[] = [];
  let errors = 0;
  while (!done()) {
    const t0 = performance.now();
    const status = await new Promise<number>((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: urlPath,
          method: 'GET',
          agent,
          headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(payload);
    });
    const ms = performance.now() - t0;
    latencies.push(ms);
    if (status !== 200) errors++;
    if (ms < everyMs) await new Promise((resolve) => setTimeout(resolve, everyMs - ms));
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    p50ms: percentile(latencies, 0.5),
    p99ms: percentile(latencies, 0.99),
    maxms: latencies.at(-1) ?? 0,
  };
}

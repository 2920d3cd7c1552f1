import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  maxms: number;
}

export interface LoadOptions {
  port: number;
  method: string;
  /** Path, or a function giving the path of request number i. */
  path: string | ((i: number) => string);
  /** JSON body, or a function giving the body of request number i. */
  body?: unknown | ((i: number) => unknown);
  headers?: Record<string, string>;
  /** Concurrent clients. */
  connections?: number;
  /**
   * false: a new TCP connection for every request (`Connection: close`), as the reference
   * server forces on its clients; true (the default): each client keeps its connection.
   */
  keepAlive?: boolean;
  /** Stop after this many requests or this many seconds, whichever comes first. */
  requests?: number;
  seconds?: number;
  /** Stop as soon as this says so (checked before each request), whatever `seconds` allows. */
  done?: () => boolean;
}

/** Closed-loop HTTP load from this process: `connections` clients each send, wait, send again. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const keepAlive = options.keepAlive ?? true;
  const agent = new http.Agent({ keepAlive, maxSockets: options.connections ?? 16 });
  const limit = options.requests ?? Number.MAX_SAFE_INTEGER;
  const deadline = Date.now() + (options.seconds ?? 10) * 1000;
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (issued < limit && Date.now() < deadline && !options.done?.()) {
      const i = issued++;
      const path = typeof options.path === 'function' ? options.path(i) : options.path;
      const rawBody = typeof options.body === 'function' ? (options.body as (i: number) => unknown)(i) : options.body;
      const t0 = process.hrtime.bigint();
      const status = await once(agent, options, path, rawBody === undefined ? undefined : JSON.stringify(rawBody));
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.connections ?? 16 }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50ms: percentile(latencies, 0.5),
    p99ms: percentile(latencies, 0.99),
    maxms: latencies.at(-1) ?? 0,
  };
}

function once(agent: http.Agent, options: LoadOptions, path: string, body?: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method,
        path,
        agent,
        headers: {
          ...(options.keepAlive === false ? { Connection: 'close' } : {}),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }),
          ...options.headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function rssMiB(): number {
  return Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;
}

/** Event-loop delay of this process while `fn` runs (p99, ms). */
export async function withLoopDelay<T>(fn: () => Promise<T>): Promise<{ result: T; loopP99ms: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const result = await fn();
  h.disable();
  return { result, loopP99ms: h.percentile(99) / 1e6 };
}

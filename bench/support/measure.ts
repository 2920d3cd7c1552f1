import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { TOKEN } from '../../test/support/server';
import type { LoadResult } from './load';
import { type GeneratorOptions, loadFromChild } from './load-process';
import { cpuMs } from './proc';
import { type BenchRow, fmt, loadFigures } from './report';

/** Run the load generator in its own process against `port`, with the API key. */
export function generate(options: GeneratorOptions): Promise<LoadResult> {
  return loadFromChild({ headers: { Authorization: TOKEN }, ...options });
}

/** `fn`'s result and the CPU ms process `pid` used meanwhile. */
export async function cpuOf<T>(pid: number, fn: () => Promise<T>): Promise<{ result: T; cpu: number }> {
  const before = cpuMs(pid);
  const result = await fn();
  return { result, cpu: cpuMs(pid) - before };
}

/** CPU ms per request of a load run measured with cpuOf. */
export const perReq = (x: { result: LoadResult; cpu: number }) => x.cpu / Math.max(1, x.result.requests);

export function loadRow(workload: string, r: LoadResult, cpu: number, extra: BenchRow['figures'] = {}): BenchRow {
  return {
    workload,
    figures: { ...loadFigures(r), cpu_ms_per_req: fmt(cpu / Math.max(1, r.requests), 3), ...extra },
  };
}

/** A bare Node server (bare-server.ts) answering `body`, in its own process. */
export async function bareServer(body: string): Promise<{ child: ChildProcess; pid: number; port: number }> {
  const child = spawn(process.execPath, [path.join(__dirname, 'bare-server.js'), body], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk) => resolve(Number(String(chunk).trim())));
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { child, pid: child.pid!, port };
}

/** The same load on a bare Node server answering `body` (the runtime's floor): its result and CPU. */
export async function onBareNode(body: string, options: Omit<GeneratorOptions, 'port'>): Promise<{ result: LoadResult; cpu: number }> {
  const bare = await bareServer(body);
  try {
    return await cpuOf(bare.pid, () => generate({ ...options, port: bare.port }));
  } finally {
    bare.child.kill();
  }
}

import { spawn } from 'node:child_process';
import path from 'node:path';
import type { LoadOptions, LoadResult } from './load';

/** What load-generator.js is told: `bodies` and `paths`, when given, are sent in turn, one a request (`paths` over `path`). */
export type GeneratorOptions = Omit<LoadOptions, 'body' | 'path'> & { path: string; bodies?: unknown[]; paths?: string[] };

/** Run the load generator in a process of its own, so that the server's CPU is not shared with the client loading it. */
export function loadFromChild(options: GeneratorOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'load-generator.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load generator exited ${code}`))));
    child.stdin.end(JSON.stringify(options));
  });
}

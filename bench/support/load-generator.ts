import { load } from './load';
import type { GeneratorOptions } from './load-process';

/**
 * The load generator as a process of its own (`node load-generator.js`, options as JSON on
 * stdin, the result as JSON on stdout), so the server's CPU is not shared with the client
 * that loads it. `bodies` and `paths`, when given, are sent in turn, one a request.
 */
async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { bodies, paths, ...options } = JSON.parse(input) as GeneratorOptions;
  const result = await load({
    ...options,
    body: bodies ? (i: number) => bodies[i % bodies.length] : undefined,
    ...(paths ? { path: (i: number) => paths[i % paths.length]! } : {}),
  });
  process.stdout.write(JSON.stringify(result));
}

void main();

import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * `node image-downloads.js PORT PATH COUNT`: COUNT PCs fetching PATH at once (each its own
 * connection, its `{n}` in PATH replaced by its number), every byte read and dropped; prints
 * `{seconds, bytes, errors}` once the last has its whole file. A process of its own, so that
 * the readers' CPU is not the server's.
 */
async function main(): Promise<void> {
  const [port, urlPath, count] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4])];
  let bytes = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: count },
      (_, n) =>
        new Promise<void>((resolve) => {
          const path = urlPath.replace('{n}', String(n + 1).padStart(12, '0'));
          http
            .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
              if (res.statusCode !== 200) errors++;
              res.on('data', (chunk: Buffer) => {
                bytes += chunk.length;
              });
              res.on('end', () => resolve());
              res.on('error', () => {
                errors++;
                resolve();
              });
            })
            .on('error', () => {
              errors++;
              resolve();
            });
        }),
    ),
  );
  process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000, bytes, errors }));
}

void main();

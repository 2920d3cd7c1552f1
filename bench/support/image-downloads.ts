import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * `node image-downloads.js PORT PATH COUNT [RANGE_BYTES]`: COUNT PCs fetching PATH at once (each
 * its own connection, its `{n}` in PATH replaced by its number), every byte read and dropped;
 * prints `{seconds, bytes, errors}` once the last has its whole file. With RANGE_BYTES, each PC
 * reads the file in Range requests of that size one after the other on its kept-alive
 * connection, as a live system reading its root image over HTTP does. A process of its own, so
 * that the readers' CPU is not the server's.
 */
let bytes = 0;
let errors = 0;

/** One GET read whole; its Content-Range's total when it is a 206, -1 on an error. */
function get(port: number, path: string, agent: http.Agent | false, range?: string): Promise<number> {
  return new Promise((resolve) => {
    const failed = () => {
      errors++;
      resolve(-1);
    };
    http
      .get({ host: '127.0.0.1', port, path, agent, headers: range ? { Range: range } : {} }, (res) => {
        if (res.statusCode !== (range ? 206 : 200)) errors++;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => resolve(Number(/\/(\d+)$/.exec(String(res.headers['content-range'] ?? ''))?.[1] ?? 0)));
        res.on('error', failed);
      })
      .on('error', failed);
  });
}

/** The whole file in ranges of `size` bytes, in turn, on one kept-alive connection. */
async function inRanges(port: number, path: string, size: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    let total = Number.POSITIVE_INFINITY;
    for (let from = 0; from < total; from += size) {
      const answer = await get(port, path, agent, `bytes=${from}-${from + size - 1}`);
      if (answer <= 0) return;
      total = answer;
    }
  } finally {
    agent.destroy();
  }
}

async function main(): Promise<void> {
  const [port, urlPath, count, range] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4]), Number(process.argv[5] ?? 0)];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, (_, n) => {
      const path = urlPath.replace('{n}', String(n + 1).padStart(12, '0'));
      return range > 0 ? inRanges(port, path, range) : get(port, path, false);
    }),
  );
  process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000, bytes, errors }));
}

void main();

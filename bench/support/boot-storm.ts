import http from 'node:http';

/**
 * A child process playing `count` iPXE clients booting at once: each fetches its script, then
 * the kernel and the initrd, reading them whole (a 503 is tried again after its Retry-After,
 * as iPXE does). Told {port, count, script: (mac) path, files: [path...]} on stdin; writes
 * {seconds, scriptMs: [...], retries, errors} when every client is done.
 */
interface Storm {
  port: number;
  count: number;
  macs: string[];
  scriptPath: string;
  files: string[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

let retries = 0;

/** Bytes of one GET read whole; a 503 waits its Retry-After and asks again. */
function fetchWhole(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        if (res.statusCode === 503) {
          res.resume();
          retries++;
          const wait = Number(res.headers['retry-after'] ?? 1) * 1000;
          setTimeout(() => fetchWhole(port, path).then(resolve, reject), wait);
          return;
        }
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${path}: ${res.statusCode}`))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const storm = JSON.parse(input) as Storm;
  const scriptMs: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    storm.macs.map(async (mac) => {
      try {
        const asked = performance.now();
        await fetchWhole(storm.port, storm.scriptPath.replace('MAC', mac));
        scriptMs.push(performance.now() - asked);
        for (const file of storm.files) await fetchWhole(storm.port, `${file}?mac=${mac}`);
      } catch {
        errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(JSON.stringify({ seconds, scriptMs, retries, errors }));
}

void main();

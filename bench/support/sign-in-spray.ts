import http from 'node:http';
import { percentile } from './load';

/** What the spray is told (JSON on stdin). */
export interface SprayOptions {
  port: number;
  /** Concurrent connections, each keeping its own. */
  connections: number;
  seconds: number;
  /** Source address of connection i: addresses[i % length] (loopback, 127.x.y.z). */
  addresses: string[];
  /** Attempt n signs in as usernames[n % length], always with a wrong password. */
  usernames: string[];
}

/** What it answers (one JSON line on stdout, after a first line `started`). */
export interface SprayResult {
  attempts: number;
  seconds: number;
  /** Answers by HTTP status; `0` for a request that got none. */
  statuses: Record<string, number>;
  p50ms: number;
  p99ms: number;
  /** CPU time this process used (user + system), ms: what the attacker itself took of the machine. */
  cpuMs: number;
}

/**
 * A password spray as a process of its own, so that the server's CPU is not shared with the
 * client attacking it: `connections` clients, each on its own kept-alive connection from its
 * own source address, post `POST /auth/login` with a wrong password, wait for the answer
 * and post again (a closed loop, as fast as the server answers; Retry-After is ignored, as
 * an attacker would). Prints `started` once the first requests are sent.
 */
async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const options = JSON.parse(input) as SprayOptions;
  const deadline = Date.now() + options.seconds * 1000;
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let attempt = 0;
  const started = process.hrtime.bigint();
  const worker = async (connection: number): Promise<void> => {
    const localAddress = options.addresses[connection % options.addresses.length]!;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (Date.now() < deadline) {
      const n = attempt++;
      const body = JSON.stringify({ username: options.usernames[n % options.usernames.length], password: `wrong-password-${n}` });
      const t0 = process.hrtime.bigint();
      const status = await post(options.port, agent, localAddress, body);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    agent.destroy();
  };
  const workers = Array.from({ length: options.connections }, (_, i) => worker(i));
  process.stdout.write('started\n');
  await Promise.all(workers);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const cpu = process.cpuUsage();
  const result: SprayResult = {
    attempts: latencies.length,
    seconds,
    statuses,
    p50ms: percentile(latencies, 0.5),
    p99ms: percentile(latencies, 0.99),
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function post(port: number, agent: http.Agent, localAddress: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/auth/login',
        agent,
        localAddress,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

void main();

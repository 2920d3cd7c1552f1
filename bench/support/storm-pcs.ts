import http from 'node:http';
import { FakeAgent } from '../../test/support/fake-agent';

/**
 * A child process playing PCs that power on at once, each from its own address as a lab's do:
 * its iPXE script (GET `scriptPath` with MAC in it), then the kernel and the initrd the script
 * names, read whole on the PC's one kept-alive connection (a 503 or a 429 is tried again after
 * its Retry-After, as iPXE does), then its ogLive agent connects and answers the server's
 * refresh with a live configuration (one disk, two partitions). Without `scriptPath` the PCs
 * fetch `files` and stop there (the bytes' floor, from another web server); without
 * `agentPort` no agent connects.
 * Told a Storm as JSON on stdin; writes a StormReport once every PC is done, then holds its
 * agents until it is sent any message.
 */
export interface Storm {
  port: number;
  agentPort?: number;
  pcs: { mac: string; ip: string }[];
  scriptPath?: string;
  files?: string[];
}

export interface StormReport {
  /** Epoch ms when the PCs were told to start (the process up, its input read). */
  startedAt: number;
  /** Epoch ms of the last PC to finish each step. */
  scriptsAt: number;
  filesAt: number;
  upAt: number;
  scriptMs: number[];
  bytes: number;
  retries: number;
  errors: string[];
}

let retries = 0;

/** How long a PC waits on a connection that brings no byte before it fails its boot. */
const silentMs = 60_000;

/** Bytes of one GET read whole from the PC's address; a 503 or 429 waits its Retry-After and asks again. */
function fetchWhole(port: number, path: string, agent: http.Agent, text?: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        if (res.statusCode === 503 || res.statusCode === 429) {
          res.resume();
          retries++;
          const wait = Number(res.headers['retry-after'] ?? 1) * 1000;
          res.on('end', () => setTimeout(() => fetchWhole(port, path, agent, text).then(resolve, reject), wait));
          return;
        }
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          text?.push(chunk.toString('latin1'));
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${path}: ${res.statusCode}`))));
        res.on('error', (error) => reject(new Error(`${path.replace(/\?.*/, '')}: ${error.message} after ${bytes} bytes`)));
      })
      .on('error', (error: NodeJS.ErrnoException) => {
        // The server closed the kept-alive connection as this request went out (its idle
        // timeout, while the PC waited a Retry-After): iPXE connects again, and so does this.
        if (req.reusedSocket && error.code === 'ECONNRESET') fetchWhole(port, path, agent, text).then(resolve, reject);
        else reject(new Error(`${path.replace(/\?.*/, '')}: ${error.message}${req.reusedSocket ? ' (a kept-alive connection)' : ''}`));
      });
    // iPXE gives up on a connection that brings nothing for a while; so does this PC, failing.
    req.setTimeout(silentMs, () => req.destroy(new Error(`nothing for ${silentMs / 1000} s`)));
  });
}

/** The paths (with their query) of the script's `kernel` and `initrd` lines. */
function filesOf(script: string): string[] {
  return [...script.matchAll(/^(?:kernel|initrd)\s+(\S+)/gm)].map((m) => {
    const url = new URL(m[1]!, 'http://pc');
    return url.pathname + url.search;
  });
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const storm = JSON.parse(input) as Storm;
  const report: StormReport = { startedAt: Date.now(), scriptsAt: 0, filesAt: 0, upAt: 0, scriptMs: [], bytes: 0, retries: 0, errors: [] };
  const agents: FakeAgent[] = [];
  await Promise.all(
    storm.pcs.map(async ({ mac, ip }) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: ip } as http.AgentOptions);
      try {
        let files = storm.files ?? [];
        if (storm.scriptPath) {
          const asked = performance.now();
          const text: string[] = [];
          await fetchWhole(storm.port, storm.scriptPath.replace('MAC', mac), agent, text);
          report.scriptMs.push(performance.now() - asked);
          report.scriptsAt = Math.max(report.scriptsAt, Date.now());
          files = filesOf(text.join(''));
          if (files.length !== 2) throw new Error(`the script of ${mac} names ${files.length} files: ${text.join('').slice(0, 300)}`);
        }
        for (const file of files) {
          const bytes = await fetchWhole(storm.port, file, agent);
          report.bytes += bytes;
        }
        report.filesAt = Math.max(report.filesAt, Date.now());
        agent.destroy();
        if (storm.agentPort === undefined) return;
        const pc = await FakeAgent.connect({ port: storm.agentPort, localAddress: ip });
        agents.push(pc);
        await pc.waitFor('refresh', 0, 180_000);
        report.upAt = Math.max(report.upAt, Date.now());
      } catch (error) {
        report.errors.push(String(error));
      } finally {
        agent.destroy();
      }
    }),
  );
  report.retries = retries;
  process.send!(report);
  process.on('message', () => {
    for (const pc of agents) pc.destroy();
    process.exit(0);
  });
}

void main();

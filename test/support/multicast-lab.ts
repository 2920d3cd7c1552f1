// System needs: netns, udpcast, partclone
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ImageStore } from '../../plugins/images';
import { eventually, within } from './fake-agent';
import { addCenter, addClient, addRoom, macFor } from './fixtures';
import { type NetLab, makeNetLab } from './netns';
import { mainScript } from './process';
import { type Reply, TOKEN, makeTestDir, removeTestStore, startServer } from './server';

/** The service's ports inside the lab's server namespace: none of the defaults (8888, 8889), as in netns-lab. */
const labPorts = { rest: 18888, agents: 18889 };

/**
 * A lab as a site has one: ogserve (the real service, a child process) in the server's
 * namespace, three PCs each in its own on a bridge, each with an agent (test/support/lab-agent)
 * connecting from its own address and running the shipped ogLive hook
 * (templates/oglive/restoreImageCustom) into a file the size of its partition. The image is a
 * real partition image: `mkfs.ext4 -d` into a file, `partclone.ext4 -c | lzop -1`, as an
 * ogLive makes one. The test reaches the service's REST port (loopback inside the server's
 * namespace) through a unix socket socat holds there. SQLite only: the service's loopback
 * is the namespace's.
 */

const root = path.resolve(__dirname, '..', '..', '..');
const hook = path.join(root, 'templates', 'oglive', 'restoreImageCustom');
const agentScript = path.join(__dirname, 'lab-agent.js');
export const partitionBytes = 32 * 1024 * 1024;

export interface RunningService {
  child: ChildProcess;
  pid: number;
  lines: string[];
  exited: Promise<number | null>;
}

export interface MulticastLab {
  net: NetLab;
  dir: string;
  /** The image's record id, and the partition it was made from. */
  image: number;
  partition: string;
  service: RunningService;
  /** Each PC's restored partition (a file of the partition's size). */
  targets: string[];
  agents: ChildProcess[];
  /** Each agent's JSON lines so far. */
  said: object[][];
  request(method: string, urlPath: string, body?: unknown): Promise<Reply>;
  /** Empty each PC's partition again (zeros, its size). */
  blank(): void;
  /** Start the service; resolves once it answers and `agents` PCs' agents are connected (every one by default). */
  start(agents?: number): Promise<void>;
  /** SIGKILL the service, as a crash or an OOM kill would. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

/** The partition image, as an ogLive's create makes one: the file system, then the image file. */
function makeImage(dir: string, images: string): string {
  const content = path.join(dir, 'content');
  mkdirSync(content, { recursive: true });
  for (let i = 0; i < 30; i++) writeFileSync(path.join(content, `file${i}.bin`), randomFillSync(Buffer.alloc(400_000)));
  writeFileSync(path.join(content, 'words.txt'), Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join('\n'));
  const partition = path.join(dir, 'partition.ext4');
  execFileSync('mkfs.ext4', ['-q', '-F', '-d', content, partition, `${partitionBytes / 1024}k`]);
  mkdirSync(images, { recursive: true });
  execFileSync('bash', [
    '-o',
    'pipefail',
    '-c',
    `partclone.ext4 -c -s "$1" -o - 2>/dev/null | lzop -1 > "$2"`,
    '-',
    partition,
    path.join(images, 'lab.img'),
  ]);
  return partition;
}

/** A request to the service through the socket socat forwards to its REST port. */
function sendUnix(socketPath: string, method: string, urlPath: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        method,
        path: urlPath,
        agent: false,
        headers: {
          Authorization: TOKEN,
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Lines of a child's stdout, each as it comes. */
function linesOf(child: ChildProcess, into: string[]): void {
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop()!;
    into.push(...parts.filter(Boolean));
  });
}

export interface LabOptions {
  /** PCs on the bridge (3). */
  pcs?: number;
  /** Config of the multicast plugin, over the lab's. */
  multicast?: Record<string, unknown>;
  /** Makes `<images>/lab.img` and answers the partition it was made from (a real partition image by default). */
  image?(dir: string, images: string): string;
  /** The agents' restore hook (the shipped templates/oglive/restoreImageCustom by default). */
  hook?: string;
}

export async function startMulticastLab(options: LabOptions = {}): Promise<MulticastLab> {
  const dir = makeTestDir();
  const net = makeNetLab(options.pcs ?? 3);
  const children: ChildProcess[] = [];
  const closeAll = async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    net.remove();
    await removeTestStore(dir, 'sqlite');
  };
  try {
    const images = path.join(dir, 'images');
    const partition = (options.image ?? makeImage)(dir, images);
    const plugins = ['inventory', 'agents', 'transfers', 'images', 'jobs', 'multicast'];
    let image = 0;
    // The site, made through REST by an in-process server on the same SQLite file, then closed.
    const prepare = await startServer({ dir, engine: 'sqlite', config: { plugins, repository: { directory: images } } });
    try {
      const center = await addCenter(prepare);
      const room = await addRoom(prepare, center, 'Lab 1');
      const repo = await prepare.post('/repository/add', { name: 'lab server', ip: [net.serverIp] });
      assert.equal(repo.status, 200, repo.text);
      for (const [i, ip] of net.pcIps.entries()) await addClient(prepare, room, ip, macFor(0x500 + i), { repo_id: repo.body.id });
      image = await prepare.app.container.resolve(ImageStore).saveCapture({
        name: 'lab',
        repositoryId: repo.body.id,
        clientId: 0,
        disk: 1,
        partition: 2,
        code: 131,
        size: BigInt(statSync(path.join(images, 'lab.img')).size),
        datasize: BigInt(partitionBytes),
        checksum: '',
        permissions: '644',
        lastUpdate: 0n,
        clonator: 'partclone',
        compressor: 'lzop',
        filesystem: 'EXT4',
      });
    } finally {
      await prepare.close();
    }
    const base = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    const config = {
      ...base,
      plugins,
      rest: { ...(base.rest as object), ip: '127.0.0.1', port: labPorts.rest },
      agents: { ip: net.serverIp, port: labPorts.agents },
      log: { level: 'info' },
      multicast: {
        directory: path.join(dir, 'multicast'),
        retries_until_drop: 10,
        max_bitrate: '20m',
        max_wait_s: 30,
        ...options.multicast,
      },
    };
    const configFile = path.join(dir, 'lab-config.json');
    writeFileSync(configFile, JSON.stringify(config));
    const socket = path.join(dir, 'rest.sock');
    const socat = net.spawnIn(net.server, 'socat', [`UNIX-LISTEN:${socket},fork`, `TCP:127.0.0.1:${labPorts.rest}`], { stdio: 'ignore' });
    children.push(socat);
    const request = (method: string, urlPath: string, body?: unknown) => sendUnix(socket, method, urlPath, body);

    const targets = net.pcIps.map((_, i) => path.join(dir, `pc${i + 1}.ext4`));
    const blank = () => {
      for (const target of targets) {
        writeFileSync(target, '');
        truncateSync(target, partitionBytes);
      }
    };
    blank();
    const lab: MulticastLab = {
      net,
      dir,
      image,
      partition,
      targets,
      agents: [],
      said: [],
      service: undefined as unknown as RunningService,
      request,
      blank,
      async start(connected = lab.agents.length) {
        const child = net.spawnIn(net.server, process.execPath, [mainScript, '--config', configFile], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        const lines: string[] = [];
        linesOf(child, lines);
        let stderr = '';
        child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        lab.service = { child, pid: child.pid!, lines, exited };
        await eventually(
          async () => existsSync(socket) && (await request('GET', '/scopes').catch(() => undefined))?.status === 200,
          `the service to answer (stderr: ${stderr.slice(0, 300)})`,
          30_000,
        );
        // The agents connect again (after a restart, their connections went with the old service).
        if (lab.agents.length > 0)
          await eventually(
            async () => {
              const clients = (await request('GET', '/clients')).body?.clients as { addr: string }[] | undefined;
              return clients?.length === connected;
            },
            `${connected} agents connected`,
            30_000,
          );
      },
      async kill() {
        lab.service.child.kill('SIGKILL');
        await within(lab.service.exited, 10_000, 'the service to die');
      },
      close: closeAll,
    };
    await lab.start();
    return await startAgents(lab, children, options.hook ?? hook);
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** One agent per PC, in its namespace, connecting (again, after a restart) to the service's agent port. */
async function startAgents(lab: MulticastLab, children: ChildProcess[], hook: string): Promise<MulticastLab> {
  const { net } = lab;
  for (const [i, ip] of net.pcIps.entries()) {
    const options = { server: net.serverIp, port: labPorts.agents, ip, hook, target: lab.targets[i] };
    const agent = net.spawnIn(net.pcs[i]!, process.execPath, [agentScript, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(agent);
    lab.agents.push(agent);
    const lines: string[] = [];
    const said: object[] = [];
    lab.said.push(said);
    linesOf(agent, lines);
    agent.stdout!.on('data', () => {
      while (lines.length > said.length) said.push(JSON.parse(lines[said.length]!));
    });
  }
  await eventually(() => lab.said.every((s) => s.some((l) => 'ready' in l)), 'the agents connected', 30_000);
  return lab;
}

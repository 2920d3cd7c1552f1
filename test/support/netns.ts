// System needs: netns
import { execFile, execFileSync, type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * A lab of network namespaces on one machine: a bridge in a namespace of its own, the
 * server's namespace and one per PC, each joined to the bridge by a veth pair, addresses of
 * 192.168.77.0/24 with their broadcast (udpcast finds its receivers by broadcast). Nothing
 * is made in the machine's own namespace and no packet leaves the box: the private addresses
 * live only in the namespaces, which are removed at the end, on a failure too, and at the next
 * run when a killed test left them (their names carry the test's pid).
 */
export interface NetLab {
  /** Namespace names. */
  server: string;
  pcs: string[];
  serverIp: string;
  pcIps: string[];
  /** `ip netns exec <ns> <program> <args>` as a child process. */
  spawnIn(ns: string, program: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** The same, to its end: its stdout (rejects on a non-zero exit, with its stderr). */
  runIn(ns: string, program: string, args: string[]): Promise<string>;
  /** Pids of the processes named `comm` in namespace `ns`. */
  pidsOf(ns: string, comm: string): number[];
  remove(): void;
}

const prefix = 'ogt';
const subnet = '192.168.77';

function ip(args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Names of every namespace now. */
function namespaces(): string[] {
  return ip(['netns', 'list'])
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter(Boolean);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes in a namespace (`ip netns pids`), killed; then the namespace removed. */
function removeNamespace(ns: string): void {
  let pids: number[] = [];
  try {
    pids = ip(['netns', 'pids', ns]).split('\n').filter(Boolean).map(Number);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  try {
    ip(['netns', 'del', ns]);
  } catch {
    // Removed by someone else meanwhile.
  }
}

/** Labs a killed test run left (their pid is gone). */
function removeStale(): void {
  for (const ns of namespaces()) {
    const m = new RegExp(`^${prefix}(\\d+)-`).exec(ns);
    if (m && !alive(Number(m[1]))) removeNamespace(ns);
  }
}

let made = 0;

/** A lab of `pcs` PCs; `name` tells two labs of one test process apart. */
export function makeNetLab(pcs: number): NetLab {
  removeStale();
  const base = `${prefix}${process.pid}-${++made}`;
  const bridge = `${base}-br`;
  const server = `${base}-srv`;
  const pcNames = Array.from({ length: pcs }, (_, i) => `${base}-pc${i + 1}`);
  const all = [bridge, server, ...pcNames];
  const remove = () => {
    for (const ns of all) removeNamespace(ns);
  };
  const exitHook = () => remove();
  process.once('exit', exitHook);
  try {
    for (const ns of all) {
      ip(['netns', 'add', ns]);
      ip(['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    ip(['-n', bridge, 'link', 'add', 'br0', 'type', 'bridge']);
    ip(['-n', bridge, 'link', 'set', 'br0', 'up']);
    const hosts = [server, ...pcNames];
    const addresses = [`${subnet}.1`, ...pcNames.map((_, i) => `${subnet}.${11 + i}`)];
    hosts.forEach((ns, i) => {
      // Made inside the bridge's namespace, its peer moved to the host's: nothing touches the machine's own.
      ip(['-n', bridge, 'link', 'add', `v${i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      ip(['-n', bridge, 'link', 'set', `v${i}`, 'master', 'br0', 'up']);
      ip(['-n', ns, 'addr', 'add', `${addresses[i]}/24`, 'brd', '+', 'dev', 'eth0']);
      ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
    });
    return {
      server,
      pcs: pcNames,
      serverIp: addresses[0]!,
      pcIps: addresses.slice(1),
      spawnIn: (ns, program, args, options = {}) => spawn('ip', ['netns', 'exec', ns, program, ...args], options),
      runIn: (ns, program, args) =>
        new Promise((resolve, reject) =>
          execFile('ip', ['netns', 'exec', ns, program, ...args], { maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) =>
            error ? reject(new Error(`${program} ${args.join(' ')} in ${ns}: ${error.message}\n${stderr}`)) : resolve(stdout),
          ),
        ),
      pidsOf: pidsIn,
      remove() {
        process.off('exit', exitHook);
        remove();
      },
    };
  } catch (error) {
    process.off('exit', exitHook);
    remove();
    throw error;
  }
}

/** One namespace with its loopback only (127.0.0.1 inside it is its own): for a sender and a receiver on `lo`. */
export interface LoopbackNamespace {
  name: string;
  spawnIn: NetLab['spawnIn'];
  pidsOf(comm: string): number[];
  remove(): void;
}

export function makeLoopbackNamespace(): LoopbackNamespace {
  removeStale();
  const name = `${prefix}${process.pid}-${++made}-lo`;
  const exitHook = () => removeNamespace(name);
  process.once('exit', exitHook);
  try {
    ip(['netns', 'add', name]);
    ip(['-n', name, 'link', 'set', 'lo', 'up']);
  } catch (error) {
    process.off('exit', exitHook);
    removeNamespace(name);
    throw error;
  }
  return {
    name,
    spawnIn: (_ns, program, args, options = {}) => spawn('ip', ['netns', 'exec', name, program, ...args], options),
    pidsOf: (comm) => pidsIn(name, comm),
    remove() {
      process.off('exit', exitHook);
      removeNamespace(name);
    },
  };
}

/** Pids of the processes named `comm` in namespace `ns`. */
function pidsIn(ns: string, comm: string): number[] {
  let pids: number[];
  try {
    pids = ip(['netns', 'pids', ns]).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return pids.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm;
    } catch {
      return false;
    }
  });
}

/** The pids of every process named `comm` on the machine (every namespace). */
export function pidsNamed(comm: string): number[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,comm='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, name]) => name === comm)
    .map(([pid]) => Number(pid));
}

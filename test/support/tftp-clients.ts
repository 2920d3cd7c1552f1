import { type ChildProcess, execFile, spawn } from 'node:child_process';
import dgram from 'node:dgram';

/**
 * Real TFTP clients for the tftp plugin's tests (Debian's tftp-hpa and atftp, and curl's
 * tftp://), a real tftpd-hpa to compare with, and a relay between a client and a server that
 * drops the packets a test names (no netem in this kernel: loss is made here).
 */

/** What a client printed and how it ended. */
export interface ClientRun {
  code: number;
  output: string;
}

/** Run a client to its end (killed after `seconds`); never throws for a failed transfer. */
export function runClient(command: string, args: string[], seconds = 30): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'utf8', timeout: seconds * 1000 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT')
        return reject(new Error(`${command} is not installed (Debian: tftp-hpa, atftp, curl; .ci/run installs them)`));
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** tftp-hpa's `get` (binary unless `netascii`), as a site's admin would try a server. */
export function tftpHpaGet(port: number, remote: string, local: string, options: { netascii?: boolean } = {}): Promise<ClientRun> {
  return runClient('tftp', ['-m', options.netascii ? 'netascii' : 'binary', '127.0.0.1', String(port), '-c', 'get', remote, local]);
}

/** tftp-hpa's `put`: a write request. */
export function tftpHpaPut(port: number, local: string, remote: string): Promise<ClientRun> {
  return runClient('tftp', ['-m', 'binary', '127.0.0.1', String(port), '-c', 'put', local, remote]);
}

/** atftp's `--get` with options (`blksize 1428`, `tsize enable`, `windowsize 8`, `timeout 1`). */
export function atftpGet(port: number, remote: string, local: string, options: string[] = []): Promise<ClientRun> {
  return runClient('atftp', [
    ...options.flatMap((o) => ['--option', o]),
    '--trace',
    '-g',
    '-r',
    remote,
    '-l',
    local,
    '127.0.0.1',
    String(port),
  ]);
}

/** curl's tftp://, from `from` (a 127.x address: the PC) when given. */
export function curlTftp(
  port: number,
  remote: string,
  local: string,
  options: { blksize?: number; from?: string; host?: string } = {},
): Promise<ClientRun> {
  return runClient('curl', [
    '-sS',
    '--path-as-is',
    ...(options.blksize ? ['--tftp-blksize', String(options.blksize)] : []),
    ...(options.from ? ['--interface', options.from] : []),
    '-o',
    local,
    `tftp://${options.host ?? '127.0.0.1'}:${port}/${remote}`,
  ]);
}

/** The TFTP error tftp-hpa printed (`Error code 2: Access violation`), or undefined. */
export function tftpHpaError(run: ClientRun): { code: number; message: string } | undefined {
  const match = /Error code (\d+): (.*)/.exec(run.output);
  return match ? { code: Number(match[1]), message: match[2]!.trim() } : undefined;
}

/** A UDP port free now on loopback (for a server of another program). */
export async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** A real tftpd-hpa serving `dir` (chrooted, `--secure`) on loopback, in the foreground; needs root. */
export async function startTftpdHpa(
  dir: string,
  port: number,
  extra: string[] = [],
): Promise<{ pid: number; port: number; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    '/usr/sbin/in.tftpd',
    ['--listen', '--foreground', '--secure', '--address', `127.0.0.1:${port}`, ...extra, dir],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Up once it answers: a request for a name nobody has gets an error back.
  const probe = dgram.createSocket('udp4');
  try {
    await new Promise<void>((resolve) => probe.bind(0, '127.0.0.1', () => resolve()));
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`in.tftpd exited: ${errors}`);
      const answered = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 200);
        probe.once('message', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      probe.send(Buffer.from('\0\x01no-such-file\0octet\0', 'latin1'), port, '127.0.0.1');
      if (await answered) break;
      if (i > 50) throw new Error(`in.tftpd did not answer: ${errors}`);
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    probe.close();
  }
  return {
    pid: child.pid!,
    port,
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Which way a relayed packet goes. */
export type Direction = 'to-server' | 'to-client';

/**
 * A relay between TFTP clients and a server: clients send their request to `port`; each
 * transfer gets its own pair of sockets, so the client sees the relay's ports as the server's
 * TIDs. `drop(packet, direction)` answering true loses that packet (counted in `dropped`).
 */
export async function lossyRelay(
  serverPort: number,
  drop: (packet: Buffer, direction: Direction) => boolean,
): Promise<{ port: number; dropped: () => number; close(): void }> {
  const sockets: dgram.Socket[] = [];
  const open = async () => {
    const socket = dgram.createSocket('udp4');
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    return socket;
  };
  let dropped = 0;
  const front = await open();
  front.on('message', async (request, client) => {
    // This transfer's sockets: `up` talks to the server, `down` to the client.
    const [up, down] = [await open(), await open()];
    let server = { address: '127.0.0.1', port: serverPort };
    const pass = (packet: Buffer, direction: Direction, send: () => void) => {
      if (drop(packet, direction)) dropped++;
      else send();
    };
    up.on('message', (packet, from) => {
      server = { address: from.address, port: from.port };
      pass(packet, 'to-client', () => down.send(packet, client.port, client.address));
    });
    down.on('message', (packet) => pass(packet, 'to-server', () => up.send(packet, server.port, server.address)));
    up.send(request, serverPort, '127.0.0.1');
  });
  return {
    port: front.address().port,
    dropped: () => dropped,
    close: () => {
      for (const socket of sockets) socket.close();
    },
  };
}

/** An opcode and block number of a DATA or ACK packet. */
export function blockOf(packet: Buffer): { op: number; block: number } {
  return { op: packet.readUInt16BE(0), block: packet.length >= 4 ? packet.readUInt16BE(2) : -1 };
}

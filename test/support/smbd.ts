// System needs: samba, root
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { eventually } from './fake-agent';
import { accepts, freePort } from './child-server';

/**
 * A real smbd for one test: its own smb.conf, port (an ephemeral one on 127.0.0.1, never 445 or
 * 139), lock, state, cache, pid and private folders (its passdb with them) in a temporary
 * folder; nothing of the system's Samba is read or touched. Its smb.conf includes the file
 * ogserve writes the share section to (`shareFile`), as a site's does.
 */
export interface Smbd {
  port: number;
  /** Its smb.conf (repository.share.smb_conf). */
  smbConf: string;
  /** The included file ogserve writes (repository.share.config_file). */
  shareFile: string;
  /** The Samba user the agents log in as: the Unix user running the test (root in CI). */
  user: string;
  /** Run smbclient against //127.0.0.1/<share> as `user` with `password`: its exit code and output. */
  client(share: string, password: string, commands: string): Promise<{ code: number; out: string }>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }
});

export async function startSmbd(): Promise<Smbd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-smbd-'));
  for (const sub of ['lock', 'state', 'cache', 'pid', 'private', 'ncalrpc', 'log']) mkdirSync(path.join(dir, sub));
  const port = await freePort();
  const smbConf = path.join(dir, 'smb.conf');
  const shareFile = path.join(dir, 'ogserve-ogimages.conf');
  writeFileSync(shareFile, '');
  writeFileSync(
    smbConf,
    [
      '[global]',
      `  smb ports = ${port}`,
      '  interfaces = 127.0.0.1',
      '  bind interfaces only = yes',
      '  disable netbios = yes',
      '  server role = standalone server',
      `  lock directory = ${dir}/lock`,
      `  state directory = ${dir}/state`,
      `  cache directory = ${dir}/cache`,
      `  pid directory = ${dir}/pid`,
      `  private dir = ${dir}/private`,
      `  ncalrpc dir = ${dir}/ncalrpc`,
      `  log file = ${dir}/log/%m.log`,
      `  passdb backend = tdbsam:${dir}/private/passdb.tdb`,
      '  load printers = no',
      '  printing = bsd',
      '  printcap name = /dev/null',
      '  disable spoolss = yes',
      `  include = ${shareFile}`,
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    output = '';
    // A session of its own: smbd ends by signalling its whole process group, which must not be the test's.
    child = spawn('/usr/sbin/smbd', ['-F', '--no-process-group', '--debug-stdout', '-s', smbConf], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => (output += `${error.message} (apt-get install samba)`));
    running.add(child);
    const started = child;
    started.once('exit', () => running.delete(started));
    await eventually(() => accepts(port), `smbd to listen on ${port} (${output.slice(-500)})`, 20_000);
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    // Its group: smbd and the children it forked for each connection.
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-c.pid!, name);
      } catch {}
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
    await eventually(async () => !(await accepts(port)), 'smbd to stop listening');
  };
  await start();
  return {
    port,
    smbConf,
    shareFile,
    user: userInfo().username,
    client: (share, password, commands) =>
      new Promise((resolve) => {
        execFile(
          'smbclient',
          [`//127.0.0.1/${share}`, '-p', String(port), '-U', userInfo().username, '-c', commands],
          { env: { ...process.env, PASSWD: password }, maxBuffer: 64 * 2 ** 20, timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
        );
      }),
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// System needs: deb-tools, package-install
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { eventually } from './fake-agent';

/** The checkout the compiled tests belong to. */
export const checkout = path.resolve(__dirname, '..', '..', '..');
export const unitFile = '/lib/systemd/system/ogserve.service';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of an admin's shell: without the test run's OGSERVE_* settings (its state folder, say). */
const adminEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OGSERVE_')));

/** A program run to its end (apt and lintian take their time: ten minutes at most). */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { ...adminEnv, ...env }, timeout: 600_000, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A field of the ogserve package as dpkg knows it ('' when it knows none). */
export async function packageField(field: string): Promise<string> {
  return (await run('dpkg-query', ['-W', `-f=\${${field}}`, 'ogserve'])).stdout;
}

/** Whether a package's dpkg status leaves anything of it on the machine (installed, or its config files). */
export function isOnMachine(status: string): boolean {
  return / (installed|config-files|unpacked|half-installed|half-configured|triggers-awaited|triggers-pending)$/.test(status);
}

/** apt-get as an admin runs it on a machine without a terminal. */
export function apt(...args: string[]): Promise<Run> {
  return run('apt-get', ['-y', '-q', ...args], { DEBIAN_FRONTEND: 'noninteractive' });
}

/** `npm run package:deb`'s script on this checkout's build: the .deb's path. */
export async function buildPackage(version: string, outDir: string): Promise<string> {
  const built = await run(process.execPath, [path.join(checkout, 'scripts/package-deb.mjs'), '--out', outDir, '--version', version]);
  if (built.code !== 0) throw new Error(`package-deb failed: ${built.stderr}`);
  return built.stdout.trim();
}

/** Every package dpkg knows on this machine, with its state (installed, config-files, ...). */
export async function packagesOnMachine(): Promise<Map<string, string>> {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields.
  const listed = await run('dpkg-query', ['-W', '-f=${binary:Package} ${db:Status-Status}\n']);
  if (listed.code !== 0) throw new Error(`dpkg-query: ${listed.stderr}`);
  const packages = new Map<string, string>();
  for (const line of listed.stdout.split('\n')) {
    const [name, state] = line.split(' ');
    if (name && state && state !== 'not-installed') packages.set(name, state);
  }
  return packages;
}

/**
 * The machine's packages put back as `before` lists them: what was installed since (apt-get
 * brought the .deb's dependencies, ipxe say) is purged, or only removed where its config files
 * were there before. Answers the packages it took away.
 */
export async function putBackPackages(before: Map<string, string>): Promise<string[]> {
  const now = await packagesOnMachine();
  const brought = [...now.keys()].filter((name) => !before.has(name));
  const reinstalled = [...now]
    .filter(([name, state]) => before.get(name) === 'config-files' && state !== 'config-files')
    .map(([name]) => name);
  if (brought.length) {
    const purged = await apt('purge', ...brought);
    if (purged.code !== 0) throw new Error(`apt-get purge ${brought.join(' ')}: ${purged.stderr}`);
  }
  if (reinstalled.length) {
    const removed = await apt('remove', ...reinstalled);
    if (removed.code !== 0) throw new Error(`apt-get remove ${reinstalled.join(' ')}: ${removed.stderr}`);
  }
  return [...brought, ...reinstalled];
}

/** The unit's service settings as systemd reads them, from the installed unit. */
export function installedUnit(): { execStart: string[]; user: string; workingDirectory: string; umask: string; stateDirectory: string } {
  const settings = new Map<string, string>();
  for (const line of readFileSync(unitFile, 'utf8').split('\n')) {
    const match = /^(\w+)=(.*)$/.exec(line);
    if (match && !settings.has(match[1]!)) settings.set(match[1]!, match[2]!);
  }
  const need = (key: string) => {
    const value = settings.get(key);
    if (value === undefined) throw new Error(`${unitFile} has no ${key}=`);
    return value;
  };
  return {
    execStart: need('ExecStart').split(/\s+/),
    user: need('User'),
    workingDirectory: need('WorkingDirectory'),
    umask: need('UMask'),
    stateDirectory: `/var/lib/${need('StateDirectory')}`,
  };
}

export interface UnitRun {
  /** The REST port the start log announced. */
  port: number;
  /** The service's process. */
  pid: number;
  /** The start log so far (the service logs JSON lines on stdout). */
  log(): string;
  /** SIGTERM, as systemctl stop sends it; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * The installed unit's ExecStart line run as systemd would on a machine without systemd
 * running: as its User, in its WorkingDirectory, with its UMask and $STATE_DIRECTORY.
 */
export function startUnit(): Promise<UnitRun> {
  const unit = installedUnit();
  // setpriv execs (runuser would stay the service's parent and SIGKILL it 2 s into a stop).
  const as = ['--reuid', unit.user, '--regid', unit.user, '--init-groups'];
  const child = spawn('setpriv', [...as, '--', 'sh', '-c', `umask ${unit.umask} && exec "$@"`, 'sh', ...unit.execStart], {
    cwd: unit.workingDirectory,
    env: { PATH: process.env.PATH, STATE_DIRECTORY: unit.stateDirectory },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return serving(child);
}

/** A command as an admin types it in a shell (root's, in `cwd`), that serves until stopped. */
export function startCommand(command: string, args: string[], cwd: string): Promise<UnitRun> {
  return serving(spawn(command, args, { cwd, env: adminEnv, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** The service `child` runs, once its REST interface listens; killed when it exits first or never listens. */
async function serving(child: ChildProcess): Promise<UnitRun> {
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  let port = 0;
  try {
    await eventually(
      async () => {
        if (gone) throw new Error(`the service exited at start:\n${out}`);
        port = Number(/REST interface listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? 0);
        return port > 0;
      },
      'the REST interface listening',
      60_000,
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    port,
    pid: child.pid!,
    log: () => out,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Whatever a failed run left: the package purged, its folders and user gone. */
export async function leaveNothing(): Promise<void> {
  await run('dpkg', ['--purge', 'ogserve']);
  for (const dir of ['/etc/ogserve', '/var/lib/ogserve', '/var/log/ogserve', '/var/backups/ogserve', '/usr/lib/ogserve'])
    rmSync(dir, { recursive: true, force: true });
  await run('deluser', ['--system', '--quiet', 'ogserve']);
}

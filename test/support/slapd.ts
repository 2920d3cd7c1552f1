// System needs: slapd
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { makeServerCertificate } from './certificates';
import { accepts, freePort } from './child-server';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real OpenLDAP slapd for one test: its own configuration, database, pid file and (with
 * `tls`) throwaway CA in a temporary folder, listening on a free loopback port. Never the
 * system's slapd or its /etc/ldap/slapd.d. Close it in a `finally`; close is idempotent, and
 * a slapd still running when the process exits is killed then, and its folder removed.
 */
export interface Slapd {
  /** ldap://127.0.0.1:<port> (StartTLS is offered on it when started with `tls`). */
  url: string;
  port: number;
  /** ldaps://127.0.0.1:<another port>, with `tls` only. */
  ldapsUrl?: string;
  suffix: string;
  adminDn: string;
  adminPassword: string;
  /** The PEM CA that signed the server certificate (for 127.0.0.1), with `tls` only. */
  caFile?: string;
  /** ldapadd as the admin; rejects with ldapadd's output when it fails. */
  add(ldif: string): Promise<void>;
  /** ldapmodify as the admin. */
  modify(ldif: string): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s) and wait until it is gone; the data stays. */
  stop(): Promise<void>;
  /** Start again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stop and remove the temporary folder. */
  close(): Promise<void>;
}

export interface SlapdOptions {
  /** A CA and certificate for StartTLS on `url` and for `ldapsUrl`. */
  tls?: boolean;
  /** Load the memberof overlay: groupOfNames members get a memberOf attribute, as on AD. */
  memberOf?: boolean;
}

const suffix = 'dc=example,dc=test';
const adminDn = `cn=admin,${suffix}`;
const adminPassword = 'admin-secret';
const running = new Set<ChildProcess>();
const folders = new Set<string>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

export async function startSlapd(options: SlapdOptions = {}): Promise<Slapd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-slapd-'));
  folders.add(dir);
  mkdirSync(path.join(dir, 'db'));
  const port = await freePort();
  const ldapsPort = options.tls ? await freePort() : undefined;
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = ldapsPort ? `ldaps://127.0.0.1:${ldapsPort}` : undefined;
  const caFile = options.tls ? await makeServerCertificate(dir) : undefined;
  writeFileSync(path.join(dir, 'slapd.conf'), configuration(dir, options));
  // -y reads the password from a file: it stays out of the process list.
  writeFileSync(path.join(dir, 'admin.pw'), adminPassword, { mode: 0o600 });
  const listen = [`${url}/`, ...(ldapsUrl ? [`${ldapsUrl}/`] : [])].join(' ');

  let child: ChildProcess | undefined;
  const start = async () => {
    // -d 0 keeps slapd in the foreground (no daemonising): the pid we hold is the one to kill.
    const proc = spawn('/usr/sbin/slapd', ['-d', '0', '-f', path.join(dir, 'slapd.conf'), '-h', listen], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Not started (ENOENT): the wait below fails naming it, instead of an uncaught error ending the run.
    proc.once('error', (error) => (stderr += `${error.message} (apt-get install slapd ldap-utils)`));
    running.add(proc);
    proc.once('exit', () => running.delete(proc));
    child = proc;
    await waitForPort(port, proc, () => stderr);
    if (ldapsPort) await waitForPort(ldapsPort, proc, () => stderr);
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
  const tool = (command: string) => (ldif: string) =>
    run(command, ['-x', '-H', url, '-D', adminDn, '-y', path.join(dir, 'admin.pw')], ldif);
  let closed = false;
  const slapd: Slapd = {
    url,
    port,
    ldapsUrl,
    suffix,
    adminDn,
    adminPassword,
    caFile,
    add: tool('ldapadd'),
    modify: tool('ldapmodify'),
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await stop();
      rmSync(dir, { recursive: true, force: true });
      folders.delete(dir);
    },
  };
  try {
    await start();
    await slapd.add(`dn: ${suffix}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`);
  } catch (error) {
    await slapd.close();
    throw error;
  }
  return slapd;
}

function configuration(dir: string, options: SlapdOptions): string {
  const schema = (name: string) => `include /etc/ldap/schema/${name}.schema`;
  return [
    schema('core'),
    schema('cosine'),
    schema('inetorgperson'),
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    ...(options.memberOf ? ['moduleload memberof'] : []),
    `pidfile ${dir}/slapd.pid`,
    `argsfile ${dir}/slapd.args`,
    // As Active Directory does: a DN with an empty password binds (unauthenticated). The
    // client must refuse empty passwords itself; the tests would not see it otherwise.
    'allow bind_anon_dn',
    ...(options.tls
      ? [`TLSCACertificateFile ${dir}/ca.pem`, `TLSCertificateFile ${dir}/server.pem`, `TLSCertificateKeyFile ${dir}/server.key`]
      : []),
    'database mdb',
    'maxsize 16777216',
    `suffix "${suffix}"`,
    `rootdn "${adminDn}"`,
    `rootpw ${adminPassword}`,
    `directory ${dir}/db`,
    // A directory's usual rules: passwords only for binding, the rest readable.
    'access to attrs=userPassword by anonymous auth by * none',
    'access to * by * read',
    ...(options.memberOf ? ['overlay memberof'] : []),
    '',
  ].join('\n');
}

async function waitForPort(port: number, proc: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`slapd exited before listening on ${port}: ${stderr()}`);
    if (await accepts(port)) return;
    if (Date.now() > deadline) throw new Error(`slapd did not listen on 127.0.0.1:${port} within 10 s: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function run(command: string, args: string[], input?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = execFile(command, args, { timeout: 20_000 }, (error, stdout) => {
      // The message has the command line and stderr already.
      if (error) reject(new Error(`${error.message.trim()}\n${stdout}`));
      else resolve();
    });
    proc.stdin!.end(input ?? '');
  });
}

import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { HttpError, type Logger, type PluginEvents } from 'ogserve';
import { ntStatus, runTool } from './samba';
import { sectionText } from './section';

/** `repository.share`: the Samba share ogserve keeps for repository.directory. */
export interface ShareSettings {
  enabled: boolean;
  name: string;
  config_file: string;
  smb_conf: string;
  user: string;
  password: string;
  host: string;
  port: number;
  force_user: string;
  check_s: number;
}

/** The last reload asked of smbd. */
interface Reload {
  at: string;
  ok: boolean;
  error: string | null;
}

/** GET /images/repository's `share`. */
export interface ShareStatus {
  enabled: boolean;
  name: string;
  path: string;
  config_file: string;
  /** Writable now: a create is under way. */
  writable: boolean;
  /** smbd answered ogserve's own login to the share. */
  reachable: boolean;
  /** The section smbd serves is ogserve's: its file as written, the share there with repository.directory in it. */
  in_step: boolean;
  /** What is wrong, in sentences (empty when all is well). */
  problems: string[];
  last_reload: Reload | null;
  checked: string | null;
}

declare module 'ogserve' {
  interface EventMap {
    /** The ogimages share stopped answering or drifted from what ogserve wrote (`problems`), or is well again (none). */
    'image.share': { reachable: boolean; in_step: boolean; problems: string[] };
  }
}

/** The marker ogserve keeps in the folder: read back through the share, it proves the share is this folder. */
const markerName = '.ogserve-share';

/**
 * Keeps Samba's `ogimages` share in step with ogserve, as the dhcp plugin keeps Kea: ogserve
 * writes the share section (`repository.share.config_file`, which smb.conf includes) for
 * repository.directory and applies every change with `smbcontrol smbd reload-config`; the
 * share is read-only except while a create is under way. Every `check_s` it logs in to the
 * share as the agents do and reads its marker file back: smbd not answering, the agents' user
 * refused, the share missing or not this folder, or the section changed by someone else is a
 * problem (GET /images/repository, the dashboard), and a changed section is written again.
 */
export class ShareKeeper {
  private writable = false;
  private chain: Promise<unknown> = Promise.resolve();
  private marker = '';
  private lastReload: Reload | null = null;
  private last: ShareStatus | null = null;
  private passwordTried = '';
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly settings: ShareSettings,
    private readonly directory: string,
    private readonly events: PluginEvents,
    private readonly log: Logger,
  ) {}

  private get forceUser(): string {
    return this.settings.force_user || userInfo().username;
  }

  private text(): string {
    const { name, user, config_file } = this.settings;
    return sectionText({
      name,
      user,
      path: path.resolve(this.directory),
      forceUser: this.forceUser,
      writable: this.writable,
      configFile: config_file,
    });
  }

  /** Write the section and the marker, reload smbd, check; then every check_s. */
  async start(): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    this.marker = randomBytes(16).toString('hex');
    await writeFile(path.join(this.directory, markerName), `${this.marker}\n`);
    await this.apply().catch((error: Error) =>
      this.log.error({ err: error.message }, `the ${this.settings.name} share was not written: ${error.message}`),
    );
    await this.check();
    this.timer = setInterval(() => void this.check().catch(() => undefined), this.settings.check_s * 1000);
    this.timer.unref();
  }

  /** Stop checking; the share is left read-only. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (!this.writable) return;
    this.writable = false;
    await this.apply().catch(() => undefined);
  }

  /** Creates under way now: writable while there is one. Throws a 503 when smbd could not be told. */
  async creates(count: number): Promise<void> {
    const writable = count > 0;
    if (writable === this.writable) return;
    this.writable = writable;
    try {
      await this.apply();
    } catch (error) {
      if (!writable) return;
      throw new HttpError(
        503,
        'share_unavailable',
        `the ${this.settings.name} share could not be made writable: ${(error as Error).message}`,
      );
    }
  }

  /** The share's state now (checked again when asked). */
  async status(): Promise<ShareStatus> {
    return this.check();
  }

  /**
   * Write the section when it differs from what is there, and have smbd read it (again, when
   * the last reload failed: smbd was down); one at a time.
   */
  private apply(): Promise<void> {
    const run = this.chain.then(async () => {
      const want = this.text();
      const file = this.settings.config_file;
      const have = await readFile(file, 'utf8').catch(() => undefined);
      if (have === want) {
        if (this.lastReload && !this.lastReload.ok) await this.reload();
        return;
      }
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(`${file}.tmp`, want, { mode: 0o644 });
      await rename(`${file}.tmp`, file);
      await this.reload();
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async reload(): Promise<void> {
    const done = await runTool('smbcontrol', ['-s', this.settings.smb_conf, 'smbd', 'reload-config']);
    this.lastReload = { at: new Date().toISOString(), ok: done.code === 0, error: done.code === 0 ? null : done.out.slice(0, 500) };
    if (done.code !== 0) throw new Error(`smbcontrol smbd reload-config: ${done.out.slice(0, 300) || `exit ${done.code}`}`);
    this.log.info(
      { share: this.settings.name, writable: this.writable },
      `smbd reloaded: the ${this.settings.name} share is ${this.writable ? 'writable' : 'read-only'}`,
    );
  }

  /** Log in as the agents do and read the marker back; what is wrong, announced when it changes. */
  private async check(): Promise<ShareStatus> {
    // After any change being applied: what is compared is what ogserve meant to be there.
    await this.chain;
    const problems: string[] = [];
    let reachable = false;
    let inStep = true;
    const { name, user, host, port, config_file } = this.settings;
    const written = await readFile(config_file, 'utf8').catch(() => undefined);
    if (written !== this.text()) {
      inStep = false;
      problems.push(`${config_file} is not the section ogserve wrote (changed or removed): written again`);
      await this.rewrite();
    }
    const read = await this.readMarker();
    const status = read.code === 0 ? undefined : ntStatus(read.out);
    // smbd answers again after a reload that failed: it is told what it missed.
    if (read.code === 0 && this.lastReload && !this.lastReload.ok) await this.rewrite();
    if (read.code === 0) {
      reachable = true;
      if (!read.out.includes(this.marker)) {
        inStep = false;
        problems.push(`//${host}/${name} is not ${path.resolve(this.directory)}: another section of smb.conf serves that name`);
      }
    } else if (status === 'NT_STATUS_LOGON_FAILURE' || status === 'NT_STATUS_ACCESS_DENIED') {
      reachable = true;
      const set = await this.setPassword();
      if (set) return this.check();
      problems.push(
        `smbd refuses the agents' user '${user}' (repository.share.user, password): as root, run smbpasswd -a ${user} with repository.share.password`,
      );
    } else if (status === 'NT_STATUS_BAD_NETWORK_NAME') {
      reachable = true;
      inStep = false;
      problems.push(`smbd serves no share ${name}: smb.conf must include ${config_file} (include = ${config_file})`);
    } else {
      problems.push(`smbd does not answer on ${host}:${port}: ${(status ?? read.out.split('\n').pop() ?? '').slice(0, 200)}`);
    }
    if (this.lastReload && !this.lastReload.ok) problems.push(`the last reload failed: ${this.lastReload.error}`);
    const now: ShareStatus = {
      enabled: true,
      name,
      path: path.resolve(this.directory),
      config_file,
      writable: this.writable,
      reachable,
      in_step: inStep,
      problems,
      last_reload: this.lastReload,
      checked: new Date().toISOString(),
    };
    const before = this.last;
    this.last = now;
    if (!before || before.problems.join('\n') !== problems.join('\n')) {
      if (problems.length) this.log.warn({ share: name, problems }, `the ${name} share needs a look: ${problems.join('; ')}`);
      else if (before) this.log.info({ share: name }, `the ${name} share is well again`);
      await this.events.emit('image.share', { reachable, in_step: inStep, problems });
    }
    return now;
  }

  private async rewrite(): Promise<void> {
    await this.apply().catch((error: Error) =>
      this.log.error({ err: error.message }, `the ${this.settings.name} share was not written: ${error.message}`),
    );
  }

  private readMarker() {
    const { name, user, password, host, port } = this.settings;
    // The password goes in the environment, not on a command line anyone may read.
    return runTool('smbclient', [`//${host}/${name}`, '-p', String(port), '-U', user, '-c', `get ${markerName} -`], {
      env: { PASSWD: password },
    });
  }

  /** Give the agents' user the configured password in smbd's passdb (root only); whether it was set. Tried once per password. */
  private async setPassword(): Promise<boolean> {
    const { user, password, smb_conf } = this.settings;
    if (this.passwordTried === password) return false;
    this.passwordTried = password;
    const done = await runTool('smbpasswd', ['-c', smb_conf, '-s', '-a', user], { input: `${password}\n${password}\n` });
    if (done.code === 0) this.log.info({ user }, `smbd's password of '${user}' set from repository.share.password`);
    else this.log.warn({ user, err: done.out.slice(0, 300) }, `smbd's password of '${user}' not set: ${done.out.slice(0, 300)}`);
    return done.code === 0;
  }
}

import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Counter } from 'prom-client';
import {
  type ChosenAddress,
  CoreConfig,
  type CoreSettings,
  ErrorCode,
  HttpError,
  inject,
  injectable,
  type Logger,
  MetricsRegistry,
  PluginConfig,
  PluginLog,
  type Registry,
} from 'ogserve';
import { type ClientView, Inventory } from '../inventory';
import { removeFile, removeFilesWhere, removeStaleTempFiles, syncDirectory, writeAtomic } from './atomic-file';
import { bootParameters, paramValue } from './boot-params';
import { biosFileName, macOfBootFile, uefiFileName } from './file-names';
import { changedAnything, compareFile, describeReconciliation, noReconciliation, type Reconciliation } from './reconciliation';
import type { PxeModesSettings } from './schemas';
import { serverAddress } from './server-address';
import {
  type Catalog,
  FIRMWARES,
  type Firmware,
  type RenderInput,
  type Renderer,
  type TemplateVariables,
  Templates,
  templateVariables,
} from './templates';

export interface BootFilesSettings {
  biosDir: string;
  uefiDir: string;
  serverIp: string;
  lang: string;
  vga: string;
}

/** A boot mode that has no template: the request named something GET /mode does not list. */
export class UnknownModeError extends HttpError {
  constructor(mode: string, field = 'mode') {
    super(400, ErrorCode.invalidField, `'${mode.slice(0, 64)}' is not a boot mode (GET /mode lists them)`, field);
  }
}

/** How many boot files are written at once: enough to keep the disk busy, few enough for the fd limit. */
const parallelWrites = 32;

/** Boot files written or removed, as another instance repeats it. */
export type BootFileChange = { write: ClientView[]; mode: string } | { remove: ClientView[] };

/**
 * Per-client boot files of both firmware kinds. Other plugins (live) rewrite a client's
 * files through this service after changing what goes into them.
 */
@injectable()
export class BootFiles {
  /** The end of the chain of boot-file changes: each runs after the previous one ends. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Told of every write and removal made through this service (other instances repeat them). */
  onChange: (change: BootFileChange) => void = () => undefined;

  constructor(
    @inject(PluginConfig) config: PxeModesSettings,
    @inject(CoreConfig) core: CoreSettings,
    @inject(Templates) private readonly templates: Templates,
    @inject(Inventory) private readonly inventory: Inventory,
    @inject(PluginLog) private readonly log: Logger,
    @inject(MetricsRegistry) registry: Registry,
  ) {
    this.server = serverAddress(config.server_ip, core.rest.ip);
    this.settings = {
      biosDir: config.bios_dir,
      uefiDir: config.uefi_dir,
      serverIp: this.server.address,
      lang: config.lang || process.env.LANG || '',
      vga: config.vga,
    };
    this.filesWritten = new Counter({
      name: 'ogserve_boot_files_written_total',
      help: 'Boot files (BIOS and UEFI) written',
      registers: [registry],
    });
  }

  /** The address boot parameters name, and how it was chosen. */
  readonly server: ChosenAddress;

  /** The folders of the per-client files: `bios_dir` (grub4dos menu.lst files) and `uefi_dir` (GRUB's). */
  get folders(): Readonly<Record<Firmware, string>> {
    return { bios: this.settings.biosDir, uefi: this.settings.uefiDir };
  }
  private readonly settings: BootFilesSettings;
  /** Boot files written (the boot-file metrics). */
  private readonly filesWritten: Counter;

  /** Told how many files each write put in place. */
  private written(files: number): void {
    this.filesWritten.inc(files);
  }

  /**
   * Run a change of boot files (and of the records they follow) alone. Files are written
   * from records read earlier, so two changes running interleaved can leave a client with
   * the files of one and the record of the other; callers read the clients inside `change`.
   */
  exclusive<T>(change: () => Promise<T>): Promise<T> {
    const run = this.tail.then(change, change);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The offered boot modes, sorted. */
  async modes(): Promise<string[]> {
    return [...(await this.templates.catalog()).keys()];
  }

  /** Write the files of many clients for one mode; every file is in place when this resolves. */
  async writeMany(clients: ClientView[], mode: string): Promise<void> {
    await this.write(clients, mode);
    if (clients.length > 0) this.onChange({ write: clients, mode });
  }

  /** Remove both boot files of a client (deleted, or its MAC or IP changed). */
  async deleteFor(client: ClientView): Promise<void> {
    await this.remove(client);
    this.onChange({ remove: [client] });
  }

  /** These clients are gone: remove every file no client has (their files, and whatever a crash left). */
  async deleteAll(clients: ClientView[]): Promise<void> {
    await this.removeOrphans();
    this.onChange({ remove: clients });
  }

  /**
   * Write each client's files for its own boot mode, one batch per mode; the clients of a
   * mode without a template are logged and left as they are.
   */
  async writeOwnModes(clients: Iterable<ClientView>): Promise<void> {
    await this.byMode(clients, (group, mode) => this.writeMany(group, mode));
  }

  /**
   * Make the boot folders match the database: every client's files are compared byte for
   * byte with what its record renders to now; those missing or different are written
   * (atomically), a file of a firmware its mode has no template for is removed, and so are
   * files of MACs no client has and temp files of interrupted writes. Clients of a mode
   * without a template are logged and left as they are. Only what differs is written, and
   * each folder is synced once afterwards. Logged with its counts, and told to nobody: each
   * instance reconciles its own folders.
   *
   * Runs at start, and after `ogserve import-opengnsys`; call it after anything else that
   * changes clients behind this service's back (a restore of a backup). It takes the lock
   * of boot-file changes itself: never call it inside `exclusive`. `tempFiles: false` keeps
   * temp files, for when another process may be writing in these folders (another instance
   * sharing them).
   */
  async reconcile(options: { tempFiles?: boolean } = {}): Promise<Reconciliation> {
    return this.exclusive(async () => {
      const started = performance.now();
      const result = noReconciliation();
      if (options.tempFiles !== false) {
        for (const firmware of FIRMWARES) result.tempFiles += await removeStaleTempFiles(this.directory(firmware));
      }
      const catalog = await this.templates.catalog();
      const repoIp = this.repoIps();
      for (const [mode, group] of groupByMode(await this.inventory.allClients())) {
        result.clients += group.length;
        const renderers = await this.renderers(catalog, mode);
        if (!renderers) {
          result.untemplated.push({ mode, clients: group.length });
          this.log.warn({ mode, clients: group.length }, 'boot mode has no template; boot files of these clients left unchanged');
          continue;
        }
        await inBatches(group, parallelWrites, async (client) => {
          try {
            if (await this.reconcileOne(client, mode, renderers, await repoIp(client.repositoryId), result)) result.clientsPutRight++;
          } catch (error) {
            if (result.failed++ === 0) result.error = (error as Error).message;
          }
        });
      }
      result.orphans = await this.removeOrphans();
      if (result.orphans > 0)
        this.log.warn({ removed: result.orphans }, `removed ${result.orphans} boot file(s) of clients no longer in the inventory`);
      // Each written file's data was synced before its rename; this makes renames and removals durable.
      if (changedAnything(result)) for (const firmware of FIRMWARES) await syncDirectory(this.directory(firmware), { missingOk: true });
      this.written(result.missing + result.different);
      result.ms = performance.now() - started;
      const level = result.failed > 0 ? 'error' : changedAnything(result) ? 'warn' : 'info';
      const { untemplated, error, ...counts } = result;
      this.log[level]({ ...counts, ms: Math.round(result.ms) }, describeReconciliation(result));
      return result;
    });
  }

  /** Compare one client's files with what its record renders to; write or remove what differs. Resolves with whether anything did. */
  private async reconcileOne(
    client: ClientView,
    mode: string,
    renderers: Partial<Record<Firmware, Renderer>>,
    repoIp: string,
    result: Reconciliation,
  ): Promise<boolean> {
    const input = this.renderInput(client, mode, repoIp);
    const changed = await Promise.all(
      FIRMWARES.map(async (firmware) => {
        const dir = this.directory(firmware);
        const name = fileName(firmware, client.mac);
        const render = renderers[firmware];
        if (!render) {
          if (!(await exists(path.join(dir, name)))) return false;
          await removeFile(dir, name);
          result.unwanted++;
          return true;
        }
        const wanted = render(input);
        const state = await compareFile(path.join(dir, name), Buffer.from(wanted));
        if (state === 'same') return false;
        await writeAtomic(dir, name, wanted);
        if (state === 'missing') result.missing++;
        else result.different++;
        return true;
      }),
    );
    return changed.includes(true);
  }

  private async byMode(clients: Iterable<ClientView>, write: (group: ClientView[], mode: string) => Promise<void>): Promise<void> {
    for (const [mode, group] of groupByMode(clients)) {
      try {
        await write(group, mode);
      } catch (error) {
        if (!(error instanceof UnknownModeError)) throw error;
        this.log.warn({ mode, clients: group.length }, 'boot mode has no template; boot files of these clients left unchanged');
      }
    }
  }

  /** Repeat another instance's change here (inside `exclusive`), telling nobody. */
  async repeat(change: BootFileChange): Promise<void> {
    if ('remove' in change) for (const client of change.remove) await this.remove(client);
    else await this.write(change.write, change.mode);
  }

  private async write(clients: ClientView[], mode: string): Promise<void> {
    const renderers = await this.renderers(await this.templates.catalog(), mode);
    if (!renderers) throw new UnknownModeError(mode);
    const repoIp = this.repoIps();
    await inBatches(clients, parallelWrites, async (client) => this.writeOne(client, mode, renderers, await repoIp(client.repositoryId)));
    // Each file's data was synced before its rename; this makes the renames durable.
    if (clients.length > 0) for (const firmware of FIRMWARES) if (renderers[firmware]) await syncDirectory(this.directory(firmware));
    this.written(clients.length * Object.keys(renderers).length);
    this.log.debug({ mode, clients: clients.length }, 'boot files written');
  }

  /** The renderers of a mode's templates, their folders made; undefined for a mode without templates. */
  private async renderers(catalog: Catalog, mode: string): Promise<Partial<Record<Firmware, Renderer>> | undefined> {
    const templates = catalog.get(mode);
    if (!templates) return undefined;
    const renderers: Partial<Record<Firmware, Renderer>> = {};
    for (const firmware of FIRMWARES) {
      const template = templates[firmware];
      if (!template) continue;
      renderers[firmware] = await this.templates.load(template);
      await mkdir(this.directory(firmware), { recursive: true });
    }
    return renderers;
  }

  /** The first address of each repository, read once per batch of writes. */
  private repoIps(): (id: number) => Promise<string> {
    const ips = new Map<number, Promise<string>>();
    return (id) => {
      if (id === 0) return Promise.resolve('');
      let ip = ips.get(id);
      if (!ip) ips.set(id, (ip = this.inventory.repository(id).then((r) => r?.addresses[0] ?? '')));
      return ip;
    };
  }

  private async remove(client: ClientView): Promise<void> {
    await Promise.all([
      removeFile(this.settings.biosDir, biosFileName(client.mac)),
      removeFile(this.settings.uefiDir, uefiFileName(client.mac)),
    ]);
  }

  /**
   * Remove the boot files whose MAC no client has: only files named as this plugin names
   * them, only in the two boot folders. Run at start (a crash between a delete's commit and
   * its file removals leaves some behind) and after removals of several clients; call it
   * inside `exclusive`, so no write of this process runs meanwhile. Resolves with the count.
   */
  async removeOrphans(): Promise<number> {
    const macs = await this.inventory.macs();
    let removed = 0;
    for (const firmware of FIRMWARES) {
      removed += await removeFilesWhere(this.directory(firmware), (name) => {
        const mac = macOfBootFile(firmware, name);
        return mac !== undefined && !macs.has(mac);
      });
    }
    return removed;
  }

  /** Whether the client has a UEFI boot file. */
  async hasUefiFile(client: ClientView): Promise<boolean> {
    return exists(path.join(this.settings.uefiDir, uefiFileName(client.mac)));
  }

  /** Whether the client has a BIOS (grub4dos) boot file. */
  async hasBiosFile(client: ClientView): Promise<boolean> {
    return exists(path.join(this.settings.biosDir, biosFileName(client.mac)));
  }

  private async writeOne(client: ClientView, mode: string, renderers: Partial<Record<Firmware, Renderer>>, repoIp: string): Promise<void> {
    const input = this.renderInput(client, mode, repoIp);
    await Promise.all(
      FIRMWARES.map((firmware) => {
        const name = fileName(firmware, client.mac);
        const render = renderers[firmware];
        // A mode without a template for this firmware must not leave the previous mode's file behind.
        return render ? writeAtomic(this.directory(firmware), name, render(input)) : removeFile(this.directory(firmware), name);
      }),
    );
  }

  /**
   * What the client's boot-file templates get for its current mode (its boot parameters,
   * live directory...), for boot scripts of another kind (the boot plugin's iPXE scripts),
   * which must start the PC as its boot files would.
   */
  async templateVariables(client: ClientView): Promise<TemplateVariables> {
    return templateVariables(this.renderInput(client, client.boot, await this.repoIps()(client.repositoryId)));
  }

  /** What a template gets for one client: the same for a write and for a comparison. */
  private renderInput(client: ClientView, mode: string, repoIp: string): RenderInput {
    const { serverIp, lang, vga } = this.settings;
    return {
      mode,
      data: bootParameters(client, { serverIp, lang, repoIp, vga }),
      oglivedir: paramValue(client.livedir),
      serverIp,
      repoIp,
      client,
    };
  }

  private directory(firmware: Firmware): string {
    return firmware === 'bios' ? this.settings.biosDir : this.settings.uefiDir;
  }
}

function fileName(firmware: Firmware, mac: string): string {
  return firmware === 'bios' ? biosFileName(mac) : uefiFileName(mac);
}

function groupByMode(clients: Iterable<ClientView>): Map<string, ClientView[]> {
  const byMode = new Map<string, ClientView[]>();
  for (const client of clients) {
    const group = byMode.get(client.boot);
    if (group) group.push(client);
    else byMode.set(client.boot, [client]);
  }
  return byMode;
}

async function inBatches<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

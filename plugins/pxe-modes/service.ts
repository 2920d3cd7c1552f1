import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, HttpError } from '../../core/errors';
import type { Logger } from '../../core/log';
import type { ClientView, Inventory } from '../inventory';
import { removeFile, removeFilesWhere, removeStaleTempFiles, syncDirectory, writeAtomic } from './atomic-file';
import { bootParameters, paramValue } from './boot-params';
import { biosFileName, macOfBootFile, uefiFileName } from './file-names';
import { FIRMWARES, type Firmware, type Renderer, type Templates } from './templates';

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
export class BootFiles {
  /** The end of the chain of boot-file changes: each runs after the previous one ends. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Told of every write and removal made through this service (other instances repeat them). */
  onChange: (change: BootFileChange) => void = () => undefined;

  constructor(
    private readonly settings: BootFilesSettings,
    private readonly templates: Templates,
    private readonly inventory: Inventory,
    private readonly log: Logger,
    /** Told how many files each write put in place (the boot-file metrics). */
    private readonly written: (files: number) => void = () => undefined,
  ) {}

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

  /** Write every client's files for its mode and remove the rest (inside `exclusive`), telling nobody. */
  async rewriteAll(inventory: Pick<Inventory, 'allClients'>): Promise<void> {
    await this.byMode(await inventory.allClients(), (group, mode) => this.write(group, mode));
    await this.removeOrphans();
  }

  private async byMode(clients: Iterable<ClientView>, write: (group: ClientView[], mode: string) => Promise<void>): Promise<void> {
    const byMode = new Map<string, ClientView[]>();
    for (const client of clients) {
      const group = byMode.get(client.boot);
      if (group) group.push(client);
      else byMode.set(client.boot, [client]);
    }
    for (const [mode, group] of byMode) {
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
    const templates = (await this.templates.catalog()).get(mode);
    if (!templates) throw new UnknownModeError(mode);
    const renderers: Partial<Record<Firmware, Renderer>> = {};
    for (const firmware of FIRMWARES) {
      const template = templates[firmware];
      if (!template) continue;
      renderers[firmware] = await this.templates.load(template);
      await mkdir(this.directory(firmware), { recursive: true });
    }
    const repoIps = new Map<number, Promise<string>>();
    const repoIp = (id: number): Promise<string> => {
      if (id === 0) return Promise.resolve('');
      let ip = repoIps.get(id);
      if (!ip) repoIps.set(id, (ip = this.inventory.repository(id).then((r) => r?.addresses[0] ?? '')));
      return ip;
    };
    await inBatches(clients, parallelWrites, async (client) => this.writeOne(client, mode, renderers, await repoIp(client.repositoryId)));
    // Each file's data was synced before its rename; this makes the renames durable.
    if (clients.length > 0) for (const firmware of FIRMWARES) if (renderers[firmware]) await syncDirectory(this.directory(firmware));
    this.written(clients.length * Object.keys(renderers).length);
    this.log.debug({ mode, clients: clients.length }, 'boot files written');
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

  /** At startup: drop temp files an interrupted write left in the boot directories. */
  async removeStaleTempFiles(): Promise<void> {
    for (const firmware of FIRMWARES) {
      const removed = await removeStaleTempFiles(this.directory(firmware));
      if (removed > 0) this.log.warn({ dir: this.directory(firmware), removed }, 'removed temp files of interrupted boot file writes');
    }
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
    const { serverIp, lang, vga } = this.settings;
    const input = {
      mode,
      data: bootParameters(client, { serverIp, lang, repoIp, vga }),
      oglivedir: paramValue(client.livedir),
      serverIp,
      repoIp,
      client,
    };
    await Promise.all(
      FIRMWARES.map((firmware) => {
        const name = firmware === 'bios' ? biosFileName(client.mac) : uefiFileName(client.mac);
        const render = renderers[firmware];
        // A mode without a template for this firmware must not leave the previous mode's file behind.
        return render ? writeAtomic(this.directory(firmware), name, render(input)) : removeFile(this.directory(firmware), name);
      }),
    );
  }

  private directory(firmware: Firmware): string {
    return firmware === 'bios' ? this.settings.biosDir : this.settings.uefiDir;
  }
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

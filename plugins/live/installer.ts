import { randomBytes } from 'node:crypto';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode, type Logger, PluginConfig, PluginLog, badRequest, inject, injectable } from 'ogserve';
import { Inventory } from '../inventory';
import { LiveCatalog, type LiveList } from './catalog';
import { IsoRefused, unpackIso } from './iso';
import { LIVE_PREFIX, type LiveEntry, liveDirectoryPattern, parseLiveName } from './live-names';
import { LIVE_FILES, writeManifest } from './manifest';
import { type KernelSignature, KernelSignatures } from './kernel-signatures';

/** Where to install from: an ISO file, or a folder holding the three files (or an `ogclient/` folder with them). */
export type LiveSource = { iso: string } | { dir: string };

/** A name `live install` gives or accepts: an `ogLive-*` directory name (the catalog lists those). */
const installName = new RegExp(`^${LIVE_PREFIX}-`);

/** The hidden names of work in progress in the live directory: installs, removals, the next default link. */
const workPrefixes = ['.install-', '.remove-', `.${LIVE_PREFIX}-`];
const abandonedAfterMs = 60 * 60 * 1000;

/** How many clients a refused removal names before saying how many more. */
const namedClients = 10;

declare module 'ogserve' {
  interface CommandLineParts {
    /** `ogserve live`: the installer, on the config's live directory. */
    liveInstaller: typeof LiveInstaller;
  }
}

/**
 * Installs, removes and sets the default live image in `live.directory`, as oglivecli does:
 * each image an `ogLive-<kernel>-r<revision>` folder (`-i386` before the revision for 32-bit)
 * named after its ISO, with its manifest; the `ogLive` link names the default. An install
 * unpacks into a hidden folder beside the others and renames it into place once whole, so a
 * failed one leaves nothing, and the boot plugin never serves half an image.
 */
@injectable()
export class LiveInstaller {
  private readonly directory: string;
  /** `live.iso_dir`: the only folder POST /live/install takes ISOs from. */
  readonly isoDir: string;

  constructor(
    @inject(PluginConfig) config: { directory: string; iso_dir: string },
    @inject(LiveCatalog) private readonly catalog: LiveCatalog,
    @inject(Inventory) private readonly inventory: Inventory,
    @inject(PluginLog) private readonly log: Logger,
    @inject(KernelSignatures) private readonly signatures: KernelSignatures,
  ) {
    this.directory = config.directory;
    this.isoDir = config.iso_dir;
  }

  /**
   * Install an image under `name` (default: the reference's name for the ISO or the folder's
   * own name); its kernel's signature is recorded and answered with it.
   */
  async install(source: LiveSource, name?: string): Promise<LiveEntry & Pick<KernelSignature, 'signed' | 'signer'>> {
    const field = 'iso' in source ? 'iso' : 'dir';
    const from = 'iso' in source ? source.iso : source.dir;
    const sourceInfo = await stat(from).catch(() => null);
    if ('iso' in source ? !sourceInfo?.isFile() : !sourceInfo?.isDirectory())
      throw badRequest(ErrorCode.invalidField, `${from} is not ${'iso' in source ? 'a file' : 'a folder'}`, field);
    const target = name ?? ('iso' in source ? nameOfIso(path.basename(from)) : path.basename(path.resolve(from)));
    if (!target || !installName.test(target) || !liveDirectoryPattern.test(target)) {
      const why = name
        ? `'${name.slice(0, 64)}' is not an ogLive-* directory name (letters, digits, ._+-)`
        : `no ogLive-* directory name can be read from ${path.basename(from)}: name it`;
      throw badRequest(ErrorCode.invalidField, why, 'name');
    }
    await this.refuseTaken(target);
    await mkdir(this.directory, { recursive: true });
    // Hidden (a dot): the catalog lists only ogLive-*, and the boot plugin serves no dot folder.
    const work = await mkdtemp(path.join(this.directory, '.install-'));
    try {
      if ('iso' in source) await unpackIso(from, work);
      else await copyFolder(from, work);
      for (const file of LIVE_FILES) await chmod(path.join(work, file), 0o644);
      await writeManifest(work, LIVE_FILES);
      await chmod(work, 0o755);
      await this.refuseTaken(target);
      await rename(work, path.join(this.directory, target)).catch((error: NodeJS.ErrnoException) => {
        // Another install of the same name finished meanwhile.
        if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST') throw taken(target);
        throw error;
      });
    } catch (error) {
      await rm(work, { recursive: true, force: true });
      if (error instanceof IsoRefused) throw badRequest(ErrorCode.invalidField, error.message, field);
      throw error;
    }
    const entry = { ...parseLiveName(target), ...('iso' in source ? isoFields(path.basename(from)) : {}) };
    await this.catalog.record(entry);
    // The first image becomes the default, as oglivecli makes it.
    if (!(await lstat(this.defaultLink).catch(() => null))) await this.setDefault(target);
    const { signed, signer, problem } = await this.signatures.record(target);
    this.log.info({ name: target, from, signed, signer, problem }, 'live image installed');
    return { ...entry, signed, signer };
  }

  /** Remove an installed image; refused for the default and for one that clients boot, naming them. */
  async remove(name: string): Promise<void> {
    const folder = await this.installed(name);
    if ((await this.defaultTarget()) === name)
      throw badRequest(ErrorCode.conflict, `${name} is the default live image: make another one the default first`, 'name');
    const booting = [...(await this.inventory.allClients())].filter((c) => c.livedir === name);
    if (booting.length > 0) {
      const named = booting.slice(0, namedClients).map((c) => `${c.name || c.ip} (${c.ip})`);
      const more = booting.length > namedClients ? ` and ${booting.length - namedClients} more` : '';
      throw badRequest(ErrorCode.conflict, `${name} is the live image of ${named.join(', ')}${more}: give them another one first`, 'name');
    }
    // Out of the catalog's and the boot plugin's sight at once, then deleted.
    const gone = path.join(this.directory, `.remove-${randomBytes(6).toString('hex')}`);
    await rename(folder, gone);
    await rm(gone, { recursive: true, force: true });
    await this.catalog.forget(name);
    this.log.info({ name }, 'live image removed');
  }

  /** Point the `ogLive` link at an installed image (replaced in one rename: a PC never finds it missing). */
  async setDefault(name: string): Promise<void> {
    await this.installed(name);
    const current = await lstat(this.defaultLink).catch(() => null);
    if (current && !current.isSymbolicLink())
      throw badRequest(ErrorCode.conflict, `${this.defaultLink} is not a link: move it away to set the default here`, 'name');
    const link = path.join(this.directory, `.${LIVE_PREFIX}-${randomBytes(6).toString('hex')}`);
    await symlink(name, link);
    await rename(link, this.defaultLink).catch(async (error: unknown) => {
      await rm(link, { force: true });
      throw error;
    });
    await this.catalog.markDefault(name);
    this.log.info({ name }, 'default live image set');
  }

  /**
   * Delete what an install, removal or default change cut off by a crash left (hidden work
   * folders and links), once it is an hour old: a younger one may be another process's at work.
   */
  async sweep(now = Date.now()): Promise<string[]> {
    const names = await readdir(this.directory).catch(() => []);
    const swept: string[] = [];
    for (const name of names.filter((n) => workPrefixes.some((p) => n.startsWith(p)))) {
      const info = await lstat(path.join(this.directory, name)).catch(() => null);
      if (!info || now - info.mtimeMs < abandonedAfterMs) continue;
      await rm(path.join(this.directory, name), { recursive: true, force: true });
      swept.push(name);
    }
    return swept;
  }

  /** What GET /live/list answers. */
  list(): Promise<LiveList> {
    return this.catalog.list();
  }

  /** The `.iso` files in `live.iso_dir`, by name. */
  async isos(): Promise<string[]> {
    const names = await readdir(this.isoDir).catch(() => []);
    return names.filter((n) => n.endsWith('.iso')).sort();
  }

  private get defaultLink(): string {
    return path.join(this.directory, LIVE_PREFIX);
  }

  private async defaultTarget(): Promise<string | undefined> {
    const target = await readlink(this.defaultLink).catch(() => null);
    return target === null ? undefined : path.basename(target);
  }

  /** The folder of an installed image (a directory of its own, not a link); a 400 naming `name` otherwise. */
  private async installed(name: string): Promise<string> {
    const folder = path.join(this.directory, name);
    const info = installName.test(name) && liveDirectoryPattern.test(name) ? await lstat(folder).catch(() => null) : null;
    if (!info?.isDirectory()) throw badRequest(ErrorCode.unknownId, `no live image '${name.slice(0, 64)}' is installed`, 'name');
    return folder;
  }

  private async refuseTaken(name: string): Promise<void> {
    const listed = (await this.catalog.list()).live.some((e) => e.directory === name);
    if (listed || (await lstat(path.join(this.directory, name)).catch(() => null))) throw taken(name);
  }
}

function taken(name: string): Error {
  return badRequest(ErrorCode.duplicate, `live image '${name}' exists already: remove it first, or give another name`, 'name');
}

/**
 * The directory oglivecli makes for an ISO named `ogLive-<distribution>-<kernel>-<arch>-r<revision>.iso`:
 * `ogLive-<kernel up to its first dash>-r<revision>`, with `-i386` before the revision for 32-bit.
 */
export function nameOfIso(iso: string): string | undefined {
  const { kernel, architecture, revision } = parseLiveName(iso);
  if (!iso.startsWith(`${LIVE_PREFIX}-`) || !kernel || !revision) return undefined;
  const arch = architecture === 'amd64' ? '' : `${architecture}-`;
  return `${LIVE_PREFIX}-${kernel.split('-')[0]}-${arch}${revision}`;
}

/** What the ISO's name says, for the listing (distribution and full kernel version, which the directory name drops). */
function isoFields(iso: string): Partial<LiveEntry> {
  const { distribution, kernel, architecture, revision } = parseLiveName(iso);
  return { distribution, kernel, architecture, revision, iso };
}

/** Copy the three files from a folder (or its `ogclient/` folder, as a mounted ISO shows them). */
async function copyFolder(from: string, into: string): Promise<void> {
  const inner = path.join(from, 'ogclient');
  const base = (await stat(inner).catch(() => null))?.isDirectory() ? inner : from;
  for (const file of LIVE_FILES) {
    const source = path.join(base, file);
    if (!(await stat(source).catch(() => null))?.isFile())
      throw badRequest(ErrorCode.invalidField, `${from} is not an ogLive folder: it has no ${file}`, 'dir');
    // A link in the folder is followed here: what lands in the image is a plain copy.
    await copyFile(source, path.join(into, file));
  }
}

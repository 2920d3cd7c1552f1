import { lstat, readdir, readFile, readlink, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Database, inject, injectable, type Logger, PluginConfig, PluginLog } from 'ogserve';
import { LIVE_PREFIX, liveDirectoryPattern, parseLiveName, type LiveEntry } from './live-names';
import { ManifestCheck } from './manifest-check';

export interface LiveList {
  live: LiveEntry[];
  /** Index in `live` of the default image. */
  default: number;
}

/** OpenGnsys' ogliveinfo.json, as oglivecli writes it. */
interface InfoFile {
  oglive: unknown[];
  default?: unknown;
}

const fields = ['distribution', 'kernel', 'architecture', 'revision', 'directory', 'iso'] as const;

/**
 * The live images a client may boot: the entries of an OpenGnsys `ogliveinfo.json` (when the
 * site has one), the `ogLive-*` directories found in the live directory, and the entries
 * added through POST /live/add, in that order, each directory once. Read on every call: the
 * site installs images with its own tools.
 */
@injectable()
export class LiveCatalog {
  /** `live.directory`: the boot plugin serves its files over HTTP. */
  readonly directory: string;
  private readonly infoFile: string;
  private readonly manifests: ManifestCheck;

  constructor(
    /** `directory`, and `info_file` (default: <directory>/ogliveinfo.json). */
    @inject(PluginConfig) config: { directory: string; info_file?: string },
    @inject(Database) private readonly db: Database,
    @inject(PluginLog) private readonly log: Logger,
  ) {
    this.directory = config.directory;
    this.infoFile = config.info_file ?? path.join(config.directory, 'ogliveinfo.json');
    this.manifests = new ManifestCheck(config.directory);
  }

  /**
   * Why a file under the live directory (its real path, links followed) must not be served:
   * it differs from its image's manifest (SHA256SUMS, written at install), or is gone.
   * Undefined when it may be: as it is listed, or not listed in a manifest at all.
   */
  refusal(file: string): Promise<string | undefined> {
    return this.manifests.refusal(file);
  }

  /** Check every image's files against their manifests now (at start); what does not match. */
  checkAll(): Promise<string[]> {
    return this.manifests.warm();
  }

  async list(): Promise<LiveList> {
    const info = await this.readInfoFile();
    const live: LiveEntry[] = [];
    const seen = new Set<string>();
    const add = (entry: LiveEntry): void => {
      if (seen.has(entry.directory) || !liveDirectoryPattern.test(entry.directory)) return;
      seen.add(entry.directory);
      live.push(entry);
    };
    info?.entries.forEach(add);
    (await this.scanDirectory()).forEach(add);
    (await this.added()).forEach(add);
    return { live, default: await this.defaultIndex(live, info?.default) };
  }

  /**
   * The directory a client gets when it asks for `default` or for an image that is not
   * listed: the `ogLive` link oglivecli keeps pointing at the default image, or the default
   * entry's directory when the site has no such link.
   */
  async defaultDirectory(list?: LiveList): Promise<string> {
    if (await exists(path.join(this.directory, LIVE_PREFIX))) return LIVE_PREFIX;
    const { live, default: index } = list ?? (await this.list());
    return live[index]?.directory ?? LIVE_PREFIX;
  }

  /** The directory to store for a requested name: the name itself when listed, else the default. */
  async resolve(name: string): Promise<string> {
    const list = await this.list();
    if (name !== 'default' && list.live.some((e) => e.directory === name)) return name;
    return this.defaultDirectory(list);
  }

  /**
   * List an installed image in the info file with what its ISO's name says, as oglivecli's
   * install does (creating the file, with it as the default, when there is none).
   */
  record(entry: LiveEntry): Promise<void> {
    return this.editInfoFile((info, index) => {
      if (index >= 0) return false;
      info.oglive.push(entry);
      return true;
    }, entry.directory);
  }

  /**
   * Drop a removed image from the info file, as oglivecli's uninstall does (the default index
   * moved down when an entry before it goes), so that it is no longer listed.
   */
  forget(directory: string): Promise<void> {
    return this.editInfoFile((info, index) => {
      if (index < 0) return false;
      info.oglive.splice(index, 1);
      if (typeof info.default === 'number' && index < info.default) info.default -= 1;
      return true;
    }, directory);
  }

  /** Make the info file's default the image the `ogLive` link now names, as oglivecli's set-default does. */
  markDefault(directory: string): Promise<void> {
    return this.editInfoFile((info, index) => {
      if (index < 0) return false;
      info.default = index;
      return true;
    }, directory);
  }

  /**
   * Change the info file (`index`: where it lists `directory`, or -1), replaced in one rename
   * when `edit` says it changed it. A file that is not an OpenGnsys info file is left alone,
   * and one that cannot be written is said in the log: the image's folder is what PCs boot.
   */
  private async editInfoFile(edit: (info: InfoFile, index: number) => boolean, directory: string): Promise<void> {
    const text = await readFile(this.infoFile, 'utf8').catch(() => null);
    let info: InfoFile;
    try {
      info = text === null ? { oglive: [], default: 0 } : (JSON.parse(text) as InfoFile);
    } catch {
      return;
    }
    if (!Array.isArray(info?.oglive)) return;
    const index = info.oglive.findIndex((e) => isEntry(e) && e.directory === directory);
    if (!edit(info, index)) return;
    const next = `${this.infoFile}.${process.pid}.tmp`;
    try {
      await writeFile(next, `${JSON.stringify(info, null, 2)}\n`);
      await rename(next, this.infoFile);
    } catch (error) {
      this.log.warn({ file: this.infoFile, err: error }, `live image info file not updated: ${(error as Error).message}`);
    }
  }

  private async readInfoFile(): Promise<{ entries: LiveEntry[]; default?: number } | null> {
    let text: string;
    try {
      text = await readFile(this.infoFile, 'utf8');
    } catch {
      return null;
    }
    try {
      const parsed = JSON.parse(text) as { oglive?: unknown; default?: unknown };
      const list = Array.isArray(parsed.oglive) ? parsed.oglive : [];
      const entries = list.filter(isEntry).map((e) => Object.fromEntries(fields.map((f) => [f, e[f] ?? ''])) as unknown as LiveEntry);
      return { entries, default: Number.isInteger(parsed.default) ? (parsed.default as number) : undefined };
    } catch (error) {
      this.log.warn({ file: this.infoFile, err: error }, 'live image info file is not valid JSON; ignored');
      return null;
    }
  }

  /** `ogLive-*` directories (or links to one), leaving out oglivecli's `.old` backups. */
  private async scanDirectory(): Promise<LiveEntry[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch {
      return [];
    }
    const found: LiveEntry[] = [];
    for (const name of names.sort()) {
      if (!name.startsWith(`${LIVE_PREFIX}-`) || name.endsWith('.old')) continue;
      const info = await stat(path.join(this.directory, name)).catch(() => null);
      if (info?.isDirectory()) found.push(parseLiveName(name));
    }
    return found;
  }

  private async added(): Promise<LiveEntry[]> {
    const rows = await this.db.query<LiveEntry>(
      'select directory, distribution, kernel, architecture, revision, iso from live_images order by id',
    );
    return rows.map((r) => Object.fromEntries(fields.map((f) => [f, String(r[f] ?? '')])) as unknown as LiveEntry);
  }

  /**
   * The entry the `ogLive` link points at (what PCs booting `ogLive` get; `ogserve live
   * default` moves it); else the info file's default; else the first.
   */
  private async defaultIndex(live: LiveEntry[], fromInfo: number | undefined): Promise<number> {
    const target = await readlink(path.join(this.directory, LIVE_PREFIX)).catch(() => null);
    const linked = target === null ? -1 : live.findIndex((e) => e.directory === path.basename(target));
    if (linked >= 0) return linked;
    if (fromInfo !== undefined && fromInfo >= 0 && fromInfo < live.length) return fromInfo;
    return 0;
  }
}

function isEntry(value: unknown): value is Partial<Record<(typeof fields)[number], string>> {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.directory === 'string' && fields.every((f) => entry[f] === undefined || typeof entry[f] === 'string');
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

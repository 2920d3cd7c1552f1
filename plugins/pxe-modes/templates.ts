import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import ejs from 'ejs';
import { inject, injectable, PluginConfig } from 'ogserve';
import type { ClientView } from '../inventory';
import type { PxeModesSettings } from './schemas';
import { withoutLivedir } from './boot-params';

export type Firmware = 'bios' | 'uefi';
export const FIRMWARES: readonly Firmware[] = ['bios', 'uefi'];

/** One template file: `<mode>.ejs`, or `<mode>` in the reference's plain format. */
export interface TemplateFile {
  file: string;
  format: 'ejs' | 'plain';
}

/** The templates of one mode; a firmware kind may lack one. */
export type ModeTemplates = Partial<Record<Firmware, TemplateFile>>;

/** The modes a site offers: one per template in `bios/`, with the UEFI template when there is one. */
export type Catalog = Map<string, ModeTemplates>;

/** What a template gets to render one client's boot file. */
export interface RenderInput {
  mode: string;
  /** The reference's DATA string (each parameter preceded by a space). */
  data: string;
  oglivedir: string;
  serverIp: string;
  repoIp: string;
  client: ClientView;
}

export type Renderer = (input: RenderInput) => string;

/** The variables an ejs template sees (templates/pxe/README.md); the boot plugin's iPXE templates see them too. */
export interface TemplateVariables {
  mode: string;
  params: string;
  oglivedir: string;
  server_ip: string;
  repo_ip: string;
  client: ClientView;
}

export function templateVariables(input: RenderInput): TemplateVariables {
  return {
    mode: input.mode,
    params: input.data.trim(),
    oglivedir: input.oglivedir,
    server_ip: input.serverIp,
    repo_ip: input.repoIp,
    client: input.client,
  };
}

/**
 * Mode names are template file names, so they are checked before they are offered: what
 * GET /mode lists is safe to store in the client's `boot` column and to show.
 */
const modeName = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/**
 * The template folders (`<dir>/bios`, `<dir>/uefi`), so that a site can add, remove or edit
 * templates without a restart. The mode list is rescanned when a folder's mtime changes (a
 * file added, removed or renamed); compiled ejs is kept until its file changes.
 */
@injectable()
export class Templates {
  private readonly compiled = new Map<string, { stamp: string; render: (vars: object) => string }>();
  private scanned?: { stamp: string; catalog: Catalog };

  private readonly dir: string;

  constructor(@inject(PluginConfig) config: Pick<PxeModesSettings, 'templates_dir'>) {
    this.dir = config.templates_dir;
  }

  async catalog(): Promise<Catalog> {
    const stamp = (
      await Promise.all(
        FIRMWARES.map((fw) =>
          stat(path.join(this.dir, fw)).then(
            (i) => String(i.mtimeMs),
            () => 'none',
          ),
        ),
      )
    ).join('/');
    if (this.scanned?.stamp === stamp) return this.scanned.catalog;
    const [bios, uefi] = await Promise.all([this.scan('bios'), this.scan('uefi')]);
    const catalog: Catalog = new Map();
    for (const mode of [...bios.keys()].sort()) catalog.set(mode, { bios: bios.get(mode), uefi: uefi.get(mode) });
    this.scanned = { stamp, catalog };
    return catalog;
  }

  /** Read (and for ejs compile) a template once; the renderer is then used for a whole batch. */
  async load(template: TemplateFile): Promise<Renderer> {
    if (template.format === 'plain') {
      const text = await readFile(template.file, 'utf8');
      return (input) => renderPlain(text, input);
    }
    const info = await stat(template.file);
    const stamp = `${info.mtimeMs}:${info.size}`;
    let entry = this.compiled.get(template.file);
    if (!entry || entry.stamp !== stamp) {
      const render = ejs.compile(await readFile(template.file, 'utf8'), { filename: template.file }) as (vars: object) => string;
      this.compiled.set(template.file, (entry = { stamp, render }));
    }
    const { render } = entry;
    return (input) => render(templateVariables(input));
  }

  /** Regular files of one firmware folder, by mode name; `<mode>.ejs` wins over a plain `<mode>`. */
  private async scan(firmware: Firmware): Promise<Map<string, TemplateFile>> {
    const dir = path.join(this.dir, firmware);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw error;
    }
    const found = new Map<string, TemplateFile>();
    for (const name of names.sort()) {
      const format = name.endsWith('.ejs') ? 'ejs' : 'plain';
      const mode = format === 'ejs' ? name.slice(0, -'.ejs'.length) : name;
      if (!modeName.test(mode) || (format === 'plain' && found.get(mode)?.format === 'ejs')) continue;
      const file = path.join(dir, name);
      const info = await stat(file).catch(() => null);
      if (info?.isFile()) found.set(mode, { file, format });
    }
    return found;
  }
}

/**
 * The reference's template format (setclientmode): every `vga=<digits>` removed, `INFOHOST`
 * replaced by DATA (without its oglivedir token when the template sets oglivedir itself),
 * and `set ISODIR=...` pointed at the client's live image directory.
 */
export function renderPlain(text: string, input: RenderInput): string {
  const data = text.includes('oglivedir=') ? withoutLivedir(input.data) : input.data;
  return text
    .replace(/vga=[0-9]*/g, '')
    .replace(/INFOHOST/g, () => data)
    .replace(/set ISODIR=.*/g, () => `set ISODIR=${input.oglivedir}`);
}

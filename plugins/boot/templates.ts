import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import ejs from 'ejs';
import type { TemplateVariables } from '../pxe-modes';
import { modeName } from './schemas';

/** What an iPXE template sees: the GRUB templates' variables, and where the boot files are. */
export interface ScriptVariables extends Omit<TemplateVariables, 'client'> {
  client: TemplateVariables['client'] | null;
  /** `<public_url>/boot/files`: kernels and initrds of `live.directory` (and `boot.extra_dir`). */
  files_url: string;
  /** `?mac=<mac>` for file URLs, so that a transfer is tied to its PC ('' for an unknown one). */
  mac_query: string;
}

/**
 * The iPXE templates: `<dir>/<mode>.ejs`, looked up when a PC asks, so a site adds or edits
 * one without a restart; compiled ejs is kept until its file changes.
 */
export class IpxeTemplates {
  private readonly compiled = new Map<string, { stamp: string; render: (vars: ScriptVariables) => string }>();

  constructor(private readonly dir: string) {}

  /** Whether the folder has a template for `mode`. */
  async has(mode: string): Promise<boolean> {
    return modeName.test(mode) && (await stat(path.join(this.dir, `${mode}.ejs`)).catch(() => null))?.isFile() === true;
  }

  /** The mode's script, or undefined when the folder has no template for it. */
  async render(mode: string, vars: ScriptVariables): Promise<string | undefined> {
    if (!modeName.test(mode)) return undefined;
    const file = path.join(this.dir, `${mode}.ejs`);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return undefined;
    const stamp = `${info.mtimeMs}:${info.size}`;
    let entry = this.compiled.get(file);
    if (!entry || entry.stamp !== stamp) {
      const render = ejs.compile(await readFile(file, 'utf8'), { filename: file }) as (vars: ScriptVariables) => string;
      this.compiled.set(file, (entry = { stamp, render }));
    }
    return entry.render(vars);
  }
}

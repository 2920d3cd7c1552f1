import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EntitySchema } from '@mikro-orm/core';
import { StartupError } from './errors';
import type { PluginDefinition } from './plugin';
import { resolveOgserveToThisInstall } from './self-resolution';
import { packageRoot } from './version';

const bundledDir = path.resolve(__dirname, '..', 'plugins');

/** Names of the plugins shipped in plugins/: their config sections are known even when disabled. */
export function bundledPluginNames(): string[] {
  return readdirSync(bundledDir).filter(isBundled);
}

/** Plugins shipped in plugins/, by directory name. */
export function isBundled(name: string): boolean {
  return /^[a-z][a-z0-9-]*$/.test(name) && existsSync(path.join(bundledDir, name, 'index.js'));
}

/** A plugin's definition, and where it came from (`ogserve plugins` lists it): `bundled`, or the file it was read from. */
export interface ImportedPlugin {
  definition: PluginDefinition;
  from: string;
}

/**
 * Import each enabled plugin: a bundled name, a path (relative to the config file that
 * listed it) or an npm package name, found beside the config file, the working directory or
 * ogserve's own node_modules (its package.json's `ogserve` field names its entry, else
 * `main`). The definition is the module's default export or `plugin`; its entities must be
 * the running MikroORM's.
 */
export async function importPlugins(specifiers: string[], baseDir: string): Promise<ImportedPlugin[]> {
  const imported: ImportedPlugin[] = [];
  if (specifiers.some((specifier) => !isBundled(specifier))) resolveOgserveToThisInstall();
  for (const specifier of specifiers) {
    let file: string;
    let mod: Record<string, unknown>;
    try {
      file = isBundled(specifier) ? path.join(bundledDir, specifier, 'index.js') : entryOf(specifier, baseDir);
      mod = (await import(file)) as Record<string, unknown>;
    } catch (error) {
      throw new StartupError(`config: plugins: '${specifier}' cannot be loaded: ${(error as Error).message.split('\n')[0]}`);
    }
    const definition = definitionOf(mod, specifier);
    checkEntities(definition);
    imported.push({ definition, from: isBundled(specifier) ? 'bundled' : file });
  }
  return imported;
}

/** The entry of a plugin named by a path or a package name. */
function entryOf(specifier: string, baseDir: string): string {
  const paths = [baseDir, process.cwd(), packageRoot];
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) return require.resolve(path.resolve(baseDir, specifier), { paths });
  let manifest: string;
  try {
    manifest = require.resolve(`${specifier}/package.json`, { paths });
  } catch {
    // A package whose exports hide its package.json: its main entry.
    return require.resolve(specifier, { paths });
  }
  const declared = (JSON.parse(readFileSync(manifest, 'utf8')) as { ogserve?: unknown }).ogserve;
  const entry = typeof declared === 'string' ? declared : (declared as { entry?: unknown } | undefined)?.entry;
  if (entry === undefined) return require.resolve(specifier, { paths });
  if (typeof entry !== 'string') throw new Error(`its package.json's "ogserve" field must name its entry (a path in the package)`);
  return require.resolve(path.resolve(path.dirname(manifest), entry));
}

/**
 * An entity made with another copy of MikroORM (the plugin's own node_modules) is an object
 * the running one cannot read: refused by name here rather than failing deep inside MikroORM.
 */
function checkEntities(definition: PluginDefinition): void {
  for (const entity of definition.entities ?? []) {
    if (entity instanceof EntitySchema) continue;
    const named = entity as { meta?: { className?: string }; name?: string } | undefined;
    const name = named?.meta?.className ?? named?.name ?? String(entity);
    throw new StartupError(
      `plugin '${definition.name}': entity '${name}' is not an EntitySchema of the MikroORM ogserve runs: make it with EntitySchema from 'ogserve' (a plugin's own copy of @mikro-orm/core makes schemas ogserve cannot read)`,
    );
  }
}

function definitionOf(mod: Record<string, unknown>, specifier: string): PluginDefinition {
  const candidates = [mod.default, (mod.default as Record<string, unknown> | undefined)?.default, mod.plugin];
  const found = candidates.find(
    (c): c is PluginDefinition =>
      typeof c === 'object' &&
      c !== null &&
      typeof (c as PluginDefinition).name === 'string' &&
      typeof (c as PluginDefinition).register === 'function',
  );
  if (!found)
    throw new StartupError(`config: plugins: '${specifier}' exports no plugin definition (a default export with name and register)`);
  return found;
}

/** Order plugins so that each comes after everything it requires; refuse duplicates, gaps and cycles. */
export function orderPlugins(definitions: PluginDefinition[]): PluginDefinition[] {
  const byName = new Map<string, PluginDefinition>();
  for (const def of definitions) {
    if (byName.has(def.name)) throw new StartupError(`config: plugins: plugin '${def.name}' is enabled twice`);
    byName.set(def.name, def);
  }
  for (const def of definitions) {
    for (const dep of def.requires ?? []) {
      if (!byName.has(dep)) throw new StartupError(`config: plugins: dependency '${dep}' of plugin '${def.name}' is not enabled`);
    }
  }
  const ordered: PluginDefinition[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (def: PluginDefinition, trail: string[]): void => {
    const seen = state.get(def.name);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(def.name)), def.name];
      throw new StartupError(`config: plugins: plugins require each other in a cycle: ${cycle.join(' -> ')}`);
    }
    state.set(def.name, 'visiting');
    for (const dep of def.requires ?? []) visit(byName.get(dep)!, [...trail, def.name]);
    state.set(def.name, 'done');
    ordered.push(def);
  };
  for (const def of definitions) visit(def, []);
  return ordered;
}

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from './errors';
import type { PluginDefinition } from './plugin';
import { resolveOgserveToThisInstall } from './self-resolution';

const bundledDir = path.resolve(__dirname, '..', 'plugins');

/** Names of the plugins shipped in plugins/: their config sections are known even when disabled. */
export function bundledPluginNames(): string[] {
  return readdirSync(bundledDir).filter(isBundled);
}

/** Plugins shipped in plugins/, by directory name. */
export function isBundled(name: string): boolean {
  return /^[a-z][a-z0-9-]*$/.test(name) && existsSync(path.join(bundledDir, name, 'index.js'));
}

/**
 * Import each enabled plugin: a bundled name, a path (relative to the config file that
 * listed it) or an npm package name. The definition is the module's default export or `plugin`.
 */
export async function importPlugins(specifiers: string[], baseDir: string): Promise<PluginDefinition[]> {
  const definitions: PluginDefinition[] = [];
  if (specifiers.some((specifier) => !isBundled(specifier))) resolveOgserveToThisInstall();
  for (const specifier of specifiers) {
    const target = isBundled(specifier)
      ? path.join(bundledDir, specifier, 'index.js')
      : specifier.startsWith('.') || path.isAbsolute(specifier)
        ? path.resolve(baseDir, specifier)
        : specifier;
    let mod: Record<string, unknown>;
    try {
      mod = (await import(require.resolve(target, { paths: [baseDir, process.cwd()] }))) as Record<string, unknown>;
    } catch (error) {
      throw new StartupError(`config: plugins: '${specifier}' cannot be loaded: ${(error as Error).message.split('\n')[0]}`);
    }
    definitions.push(definitionOf(mod, specifier));
  }
  return definitions;
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

import path from 'node:path';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { CoreSchema, type CoreSettings, databaseTypes } from '../../core/config-schema';
import { StartupError } from '../../core/errors';
import { bundledPluginNames } from '../../core/loader';
import type { Logger } from '../../core/log';
import type { PluginDefinition } from '../../core/plugin';
import type { SiteConfig } from '../../core/site-config';
import { compile } from '../../core/validation';
import { packageRoot } from '../../core/version';
import { type EnvOverride, envOverrides, segmentNames, typedFromEnv } from './env';
import { resolveApiToken } from './api-token';
import { readJson } from './file';
import { defaultConfigFile, type StateDirectory, stateDirectory } from './install';
import { applyPluginChanges, isPluginChangeList } from './plugin-list';
import { describeConfigProblem } from './problem';
import { logStart } from './start-log';

export { packageRoot } from '../../core/version';
export { defaultConfigFile } from './install';

/** The database keys of the reference's ogserver.json: with them and no `type`, the database is MySQL/MariaDB. */
const serverDatabaseKeys = ['ip', 'port', 'name', 'user', 'pass'];

export { CoreSchema, type CoreSettings, databaseTypes, logFormats, logLevels } from '../../core/config-schema';

type Json = Record<string, unknown>;

/**
 * Where a value came from. Relative paths resolve by it: the defaults' against the state
 * directory (data) or the install (shipped files), a site file's against its directory,
 * the environment's and the caller's against the working directory.
 */
type Source =
  | { kind: 'default' }
  | { kind: 'file'; file: string; dir: string; lines: Map<string, number> }
  | { kind: 'env'; variable: string }
  | { kind: 'override' };

const fromDefaults: Source = { kind: 'default' };

export interface ConfigEnvironment {
  /** Where `OGSERVE_*` variables are read from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** The state directory, over OGSERVE_STATE_DIR and systemd's STATE_DIRECTORY. */
  stateDir?: string;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The merged configuration: config/default.json, the site's file, `OGSERVE_<SECTION>__<KEY>`
 * environment variables, then the caller's overrides. Remembers where each key came from,
 * for relative paths and for errors.
 */
export class Config implements SiteConfig {
  private readonly sources = new Map<string, Source>();
  /** Environment variables that name a section not known yet (a third-party plugin's). */
  private pendingEnv: EnvOverride[] = [];
  readonly raw: Json = {};
  readonly core: CoreSettings;
  readonly stateDir: StateDirectory;
  /** The environment variables that set keys, for the start log. */
  readonly envVariables: string[] = [];
  /** Every data path (a `path: true` key) of the sections validated so far, resolved: `pxe-modes.bios_dir` -> `/srv/tftp/menu.lst`. */
  readonly dataPaths = new Map<string, string>();
  /** The sections config/default.json has: known even when the plugin reading one is off. */
  private readonly shippedSections: string[];
  /** The database is MySQL/MariaDB because the section has the reference's keys and no `type`. */
  databaseTypeInferred = false;

  constructor(
    readonly file: string | undefined,
    overrides: Json = {},
    environment: ConfigEnvironment = {},
  ) {
    const env = environment.env ?? process.env;
    this.stateDir = stateDirectory(env, environment.stateDir);
    const shipped = readJson(defaultConfigFile).value;
    this.shippedSections = Object.keys(shipped);
    this.merge(this.raw, shipped, fromDefaults, '');
    if (file) {
      const { value, lines } = readJson(file);
      this.merge(this.raw, value, { kind: 'file', file: path.resolve(file), dir: path.dirname(path.resolve(file)), lines }, '');
    }
    this.pendingEnv = this.applyEnv(envOverrides(env), [...Object.keys(CoreSchema.properties), ...bundledPluginNames()]);
    this.merge(this.raw, overrides, { kind: 'override' }, '');
    this.core = this.validateCore();
  }

  /** Validate and return one plugin's section, with defaults applied and paths resolved. */
  section<S extends TObject>(name: string, schema: S): Static<S> {
    const value = structuredClone(this.raw[name] ?? {}) as Json;
    this.typeEnvValues(name, schema, value);
    const result = compile(schema)(value);
    if (!result.ok) throw this.error(name, describeConfigProblem(schema, result.errors));
    this.resolvePaths(name, schema, value);
    return value as Static<S>;
  }

  pluginsLoaded(plugins: readonly PluginDefinition[], log: Logger): void {
    this.checkSections([...plugins.map((d) => d.section ?? d.name), ...bundledPluginNames()]);
    this.refuseEnabledWhileOff(bundledPluginNames().filter((name) => !plugins.some((d) => d.name === name)));
    logStart(
      log,
      this,
      plugins.map((d) => d.name),
    );
  }

  /**
   * Refuse top-level keys that are neither core sections nor a known plugin's, once the
   * plugins are known; environment variables naming a plugin's section apply here.
   */
  private checkSections(pluginNames: Iterable<string>): void {
    const known = [...new Set([...Object.keys(CoreSchema.properties), ...this.shippedSections, ...pluginNames])];
    for (const pending of this.applyEnv(this.pendingEnv, known)) {
      throw this.error(pending.segments[0]!, { key: '', problem: `not a known section (${describeKnown(known)})` }, pending.variable);
    }
    this.pendingEnv = [];
    const unknown = Object.keys(this.raw).find((key) => !known.includes(key));
    if (unknown) throw this.error(unknown, { key: '', problem: `not a known section (${describeKnown(known)})` });
  }

  /**
   * A disabled plugin's section is ignored, unless it says `enabled: true`: the site meant
   * the plugin on, and running without it would hide that.
   */
  private refuseEnabledWhileOff(disabled: Iterable<string>): void {
    for (const name of disabled) {
      const section = this.raw[name];
      if (typeof section === 'object' && section !== null && !Array.isArray(section) && (section as Json).enabled === true)
        throw this.error(name, { key: 'enabled', problem: `is true, but plugin '${name}' is not in plugins: add it there` });
    }
  }

  apiToken(log: Logger): string {
    return resolveApiToken(this.core.rest.api_token, this.core.rest.api_token_file, log);
  }

  /** Where a relative plugin path listed in `plugins` resolves from. */
  baseDirOf(key: string): string {
    const source = this.sourceOf(key);
    return source.kind === 'file' ? source.dir : source.kind === 'default' ? packageRoot : process.cwd();
  }

  private validateCore(): CoreSettings {
    const core: Json = {};
    for (const key of Object.keys(CoreSchema.properties)) if (key in this.raw) core[key] = structuredClone(this.raw[key]);
    this.inferDatabaseType(core.database as Json | undefined);
    this.typeEnvValues('', CoreSchema, core);
    const result = compile(CoreSchema)(core);
    if (!result.ok) throw this.error('', describeConfigProblem(CoreSchema, result.errors));
    const settings = core as CoreSettings;
    for (const section of ['rest', 'database'] as const) {
      this.resolvePaths(section, CoreSchema.properties[section] as TObject, settings[section] as unknown as Json);
    }
    settings.rest.port = Number(settings.rest.port);
    if (settings.database.port !== undefined) settings.database.port = Number(settings.database.port);
    return settings;
  }

  /**
   * The reference's ogserver.json has `ip`, `port`, `name`, `user` and `pass` and no `type`:
   * its only engine is MySQL/MariaDB. Such a section must not fall back to SQLite.
   */
  private inferDatabaseType(database: Json | undefined): void {
    if (!database || this.sourceOf('database.type').kind !== 'default') return;
    const serverKeys = serverDatabaseKeys.filter((k) => k in database && this.sourceOf(`database.${k}`).kind !== 'default');
    if (serverKeys.length === 0) return;
    if (this.sourceOf('database.path').kind !== 'default') {
      throw this.error('database.type', {
        key: '',
        problem: `is required when the section sets both path (SQLite) and ${serverKeys.join(', ')} (a database server): one of ${databaseTypes.join(', ')}`,
      });
    }
    database.type = 'mariadb';
    this.databaseTypeInferred = true;
  }

  /**
   * A `config: <key>: <problem>` error that says where the key was set: the environment
   * variable, or the site file and its line.
   */
  private error(prefix: string, problem: { key: string; problem: string }, variable?: string): StartupError {
    const key = [prefix, problem.key].filter(Boolean).join('.');
    return new StartupError(`config: ${key}: ${problem.problem}${this.whereSet(key, variable)}`);
  }

  /** ` (set by OGSERVE_REST__PORT)`, ` (/etc/ogserve/ogserve.json, line 3)`, or nothing for the defaults. */
  private whereSet(key: string, variable?: string): string {
    const source = this.sourceOf(key);
    const setBy = variable ?? (source.kind === 'env' ? source.variable : undefined);
    if (setBy) return ` (set by ${setBy})`;
    if (source.kind !== 'file') return '';
    for (let k = key; k; k = parentKey(k)) {
      const line = source.lines.get(k);
      if (line !== undefined) return ` (${source.file}, line ${line})`;
    }
    return ` (${source.file})`;
  }

  /** Where a key came from; an item or key inside a value comes from where the value came from. */
  private sourceOf(key: string): Source {
    for (let k = key; k; k = parentKey(k)) {
      const source = this.sources.get(k);
      if (source) return source;
    }
    return fromDefaults;
  }

  /** Environment values are strings: give each the type its schema expects. */
  private typeEnvValues(section: string, schema: TSchema, value: Json): void {
    for (const [key, source] of this.sources) {
      if (source.kind !== 'env') continue;
      const steps = section ? (key.startsWith(`${section}.`) ? key.slice(section.length + 1).split('.') : undefined) : key.split('.');
      if (!steps) continue;
      let node: TSchema | undefined = schema;
      let holder: unknown = value;
      for (const step of steps.slice(0, -1)) {
        node = (node?.properties as Record<string, TSchema> | undefined)?.[step];
        holder = isObject(holder) ? holder[step] : undefined;
      }
      const last = steps[steps.length - 1]!;
      if (!isObject(holder) || typeof holder[last] !== 'string') continue;
      holder[last] = typedFromEnv((node?.properties as Record<string, TSchema> | undefined)?.[last], holder[last] as string);
    }
  }

  /**
   * Set the keys the variables name, each segment matched against the keys already there
   * (so `PXE_MODES` finds `pxe-modes`). Answers the variables whose section is not known yet.
   */
  private applyEnv(overrides: EnvOverride[], sections: string[]): EnvOverride[] {
    const pending: EnvOverride[] = [];
    for (const override of overrides) {
      const [first, ...rest] = override.segments;
      const section = [...sections, ...Object.keys(this.raw)].find((name) => segmentNames(first!, name));
      if (!section) {
        pending.push(override);
        continue;
      }
      const keys = [section];
      let holder: Json = this.raw;
      for (const segment of rest) {
        const name = keys[keys.length - 1]!;
        if (holder[name] === undefined) holder[name] = {};
        if (!isObject(holder[name])) throw this.error(keys.join('.'), { key: '', problem: 'not a section' }, override.variable);
        holder = holder[name] as Json;
        keys.push(Object.keys(holder).find((k) => segmentNames(segment, k)) ?? segment);
      }
      const key = keys.join('.');
      this.sources.set(key, { kind: 'env', variable: override.variable });
      holder[keys[keys.length - 1]!] =
        key === 'plugins' ? this.pluginList(holder.plugins, typedFromEnv(CoreSchema.properties.plugins, override.value)) : override.value;
      this.envVariables.push(override.variable);
    }
    return pending;
  }

  private resolvePaths(section: string, schema: TObject, value: Json): void {
    for (const [key, property] of Object.entries(schema.properties) as [string, TSchema][]) {
      const kind = (property as { path?: boolean | 'state' | 'install' }).path;
      if (!kind || typeof value[key] !== 'string') continue;
      // Exactly this key's source: a default of the schema is a default even in a section a file set.
      const source = this.sources.get(`${section}.${key}`) ?? fromDefaults;
      const base =
        source.kind === 'file'
          ? source.dir
          : source.kind === 'default'
            ? kind === 'install'
              ? packageRoot
              : this.stateDir.dir
            : process.cwd();
      value[key] = path.resolve(base, value[key] as string);
      if (kind !== 'install') this.dataPaths.set(`${section}.${key}`, value[key] as string);
    }
  }

  private merge(target: Json, source: Json, origin: Source, prefix: string): void {
    for (const [key, value] of Object.entries(source)) {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
      const full = prefix ? `${prefix}.${key}` : key;
      if (isObject(value) && isObject(target[key])) {
        this.merge(target[key] as Json, value, origin, full);
      } else {
        this.markSource(full, value, origin);
        target[key] = full === 'plugins' ? this.pluginList(target[key], value) : structuredClone(value);
      }
    }
  }

  /**
   * The `plugins` list a layer sets: its own list, or, when it lists only changes
   * (`+name`, `-name`), the list beneath it changed. Its source is marked already, so a
   * bad change is named where it was written.
   */
  private pluginList(beneath: unknown, value: unknown): unknown {
    if (!isPluginChangeList(value)) return structuredClone(value);
    const changed = applyPluginChanges(Array.isArray(beneath) ? (beneath as unknown[]) : [], value);
    if ('problem' in changed) throw this.error(`plugins[${changed.index}]`, { key: '', problem: changed.problem });
    return changed.list;
  }

  private markSource(key: string, value: unknown, origin: Source): void {
    this.sources.set(key, origin);
    if (isObject(value)) for (const [k, v] of Object.entries(value)) this.markSource(`${key}.${k}`, v, origin);
  }
}

function describeKnown(known: string[]): string {
  return `known: ${known.join(', ')}`;
}

/** `a.b[2]` -> `a.b`, `a.b` -> `a`, `a` -> ``. */
function parentKey(key: string): string {
  return key.replace(/(\[\d+\]|\.?[^.[]+)$/, '');
}

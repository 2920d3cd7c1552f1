import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { StartupError } from './errors';
import { compile } from './validation';

/** The checkout (or installed package) root: bundled defaults and templates live below it. */
export const packageRoot = path.resolve(__dirname, '..', '..');
export const defaultConfigFile = path.join(packageRoot, 'config', 'default.json');

const Port = Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.String({ pattern: '^[0-9]{1,5}$' })]);

/** Keys core itself reads. Everything else belongs to a plugin section named after the plugin. */
export const CoreSchema = Type.Object(
  {
    rest: Type.Object(
      {
        ip: Type.String({ default: '0.0.0.0' }),
        port: Type.Optional(Port),
        api_token: Type.Optional(Type.String({ minLength: 1 })),
        api_token_file: Type.String({ default: 'var/api-token', path: true }),
        max_response_bytes: Type.Integer({ minimum: 1024, default: 262144 }),
        max_request_bytes: Type.Integer({ minimum: 1024, default: 131072 }),
        /** Deepest nesting of arrays and objects a request body may have: deeper is a 400, never a stack overflow. */
        max_json_depth: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
        /** On SIGTERM, how long requests in flight may take to finish before their connections are cut. */
        shutdown_grace_s: Type.Number({ minimum: 0, maximum: 3600, default: 15 }),
      },
      { additionalProperties: false, default: {} },
    ),
    database: Type.Object(
      {
        type: Type.Union([Type.Literal('sqlite'), Type.Literal('mariadb'), Type.Literal('mysql'), Type.Literal('postgresql')], {
          default: 'sqlite',
        }),
        path: Type.String({ default: 'var/ogserve.sqlite', path: true }),
        ip: Type.String({ default: '127.0.0.1' }),
        port: Type.Optional(Port),
        name: Type.String({ default: 'ogserve' }),
        user: Type.String({ default: '' }),
        pass: Type.String({ default: '' }),
      },
      { additionalProperties: false, default: {} },
    ),
    repository: Type.Object(
      { directory: Type.String({ default: 'var/images', path: true }) },
      { additionalProperties: false, default: {} },
    ),
    log: Type.Object({ level: Type.String({ default: 'info' }) }, { additionalProperties: false, default: {} }),
    plugins: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  },
  { additionalProperties: true },
);

export type CoreSettings = Static<typeof CoreSchema> & { rest: { port: number }; database: { port?: number } };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The merged configuration: config/default.json, then the site's file over it.
 * Remembers which file each key came from, because relative paths resolve against
 * the directory of the file that set them.
 */
export class Config {
  private readonly origins = new Map<string, string>();
  readonly raw: Json = {};
  readonly core: CoreSettings;

  constructor(
    readonly file: string | undefined,
    overrides: Json = {},
  ) {
    this.merge(this.raw, readJson(defaultConfigFile), packageRoot, '');
    if (file) this.merge(this.raw, readJson(file), path.dirname(path.resolve(file)), '');
    this.merge(this.raw, overrides, process.cwd(), '');
    this.core = this.validateCore();
  }

  /** Validate and return one plugin's section, with defaults applied and paths resolved. */
  section<S extends TObject>(name: string, schema: S): Static<S> {
    const value = structuredClone(this.raw[name] ?? {});
    const result = compile(schema)(value);
    if (!result.ok) throw new StartupError(`config: ${prefixed(name, result.violation.field)}: ${result.violation.message}`);
    this.resolvePaths(name, schema, value as Json);
    return value as Static<S>;
  }

  /** Top-level keys that are neither core sections nor a known plugin's section. */
  checkSections(pluginNames: Iterable<string>): void {
    const known = new Set([...Object.keys(CoreSchema.properties), ...pluginNames]);
    const unknown = Object.keys(this.raw).filter((key) => !known.has(key));
    if (unknown.length > 0)
      throw new StartupError(`config: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}`);
  }

  /** Where a relative plugin path listed in `plugins` resolves from. */
  baseDirOf(key: string): string {
    return this.origins.get(key) ?? packageRoot;
  }

  private validateCore(): CoreSettings {
    const core: Json = {};
    for (const key of Object.keys(CoreSchema.properties)) if (key in this.raw) core[key] = structuredClone(this.raw[key]);
    const result = compile(CoreSchema)(core);
    if (!result.ok) throw new StartupError(`config: ${result.violation.field}: ${result.violation.message}`);
    const settings = core as CoreSettings;
    for (const section of ['rest', 'database', 'repository'] as const) {
      this.resolvePaths(section, CoreSchema.properties[section] as TObject, settings[section] as unknown as Json);
    }
    settings.rest.port = Number(settings.rest.port ?? 8888);
    if (settings.database.port !== undefined) settings.database.port = Number(settings.database.port);
    return settings;
  }

  private resolvePaths(section: string, schema: TObject, value: Json): void {
    for (const [key, property] of Object.entries(schema.properties) as [string, TSchema][]) {
      if ((property as { path?: boolean }).path && typeof value[key] === 'string') {
        value[key] = path.resolve(this.origins.get(`${section}.${key}`) ?? packageRoot, value[key] as string);
      }
    }
  }

  private merge(target: Json, source: Json, base: string, prefix: string): void {
    for (const [key, value] of Object.entries(source)) {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
      const full = prefix ? `${prefix}.${key}` : key;
      if (isObject(value) && isObject(target[key])) {
        this.merge(target[key] as Json, value, base, full);
      } else {
        target[key] = structuredClone(value);
        this.markOrigin(full, value, base);
      }
    }
  }

  private markOrigin(key: string, value: unknown, base: string): void {
    this.origins.set(key, base);
    if (isObject(value)) for (const [k, v] of Object.entries(value)) this.markOrigin(`${key}.${k}`, v, base);
  }
}

function prefixed(section: string, field: string): string {
  return field ? `${section}.${field}` : section;
}

function readJson(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new StartupError(`config: cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StartupError(`config: ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new StartupError(`config: ${file} must hold a JSON object`);
  return value;
}

import type { TSchema } from '@sinclair/typebox';
import { StartupError } from '../../core/errors';

const prefix = 'OGSERVE_';

/**
 * One config key set from the environment: `OGSERVE_REST__PORT=9000` sets `rest.port`.
 * Levels are joined by a double underscore; `segments` are lower-cased, with `_` standing
 * for a dash (`PXE_MODES` names the section `pxe-modes`).
 */
export interface EnvOverride {
  variable: string;
  segments: string[];
  value: string;
}

/**
 * The variables that set config keys: every `OGSERVE_*` with a double underscore, and
 * `OGSERVE_PLUGINS`. Others (`OGSERVE_STATE_DIR`, the test variables) are not config keys.
 */
export function envOverrides(env: NodeJS.ProcessEnv): EnvOverride[] {
  const found: EnvOverride[] = [];
  for (const variable of Object.keys(env).sort()) {
    const value = env[variable];
    if (value === undefined || !variable.startsWith(prefix)) continue;
    const name = variable.slice(prefix.length);
    if (name !== 'PLUGINS' && !name.includes('__')) continue;
    const segments = name.split('__').map((s) => s.toLowerCase());
    if (segments.some((s) => s === ''))
      throw new StartupError(`config: ${variable}: not a config key (write OGSERVE_<SECTION>__<KEY>, each level joined by __)`);
    found.push({ variable, segments, value });
  }
  return found;
}

/** Whether an environment segment names `key`: case aside, `_` stands for `-`. */
export function segmentNames(segment: string, key: string): boolean {
  return key.toLowerCase().replace(/-/g, '_') === segment;
}

/**
 * An environment string typed as the schema expects the value, as JSON in the file would
 * be: numbers, `true`/`false`, JSON arrays (or a comma-separated list of strings) and
 * objects. A string that does not fit stays a string, and validation then says what the
 * key must be.
 */
export function typedFromEnv(schema: TSchema | undefined, text: string): unknown {
  if (!schema) return text;
  const branches = schema.anyOf as TSchema[] | undefined;
  if (branches) return branches.some((b) => b.type === 'string') ? text : typedFromEnv(branches[0], text);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'array': {
      const parsed = parseJson(text, '[');
      if (parsed !== undefined) return parsed;
      return (schema.items as TSchema | undefined)?.type === 'string'
        ? text
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : text;
    }
    case 'object':
      return parseJson(text, '{') ?? text;
    default:
      return text;
  }
}

function parseJson(text: string, opening: string): unknown {
  if (!text.trim().startsWith(opening)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

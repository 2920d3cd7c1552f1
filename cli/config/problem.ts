import type { ErrorObject } from 'ajv';
import type { TSchema } from '@sinclair/typebox';

/** One bad config value: where it is (relative to the schema checked) and what is wrong with it. */
export interface ConfigProblem {
  /** `port`, `plugins[2]`, `prot` for an unknown key. */
  key: string;
  /** A sentence without the key: `must be an integer`, `must be one of a, b`. */
  problem: string;
}

type Node = Record<string, unknown>;

const typeNames: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a section (a JSON object)',
  null: 'null',
};

const formatNames: Record<string, string> = {
  ipv4: 'an IPv4 address',
  'host address': 'a host IPv4 address',
  mac: 'a MAC address',
  netmask: 'a netmask',
};

/**
 * What a user is told about a config value the schema refuses. Unions are described as a
 * whole (`must be one of sqlite, mariadb, ...`), not by the branch Ajv happened to try first.
 */
export function describeConfigProblem(schema: TSchema, errors: ErrorObject[]): ConfigProblem {
  const first = errors[0];
  if (!first) return { key: '', problem: 'is invalid' };
  const union = errors
    .filter((e) => e.keyword === 'anyOf' && first.schemaPath.startsWith(`${e.schemaPath}/`))
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length)[0];
  const error = union ?? first;
  const params = error.params as Record<string, unknown>;
  const key = keyOf(error.instancePath);
  switch (error.keyword) {
    case 'additionalProperties': {
      const known = Object.keys((nodeAt(schema, error.schemaPath, 1).properties as Node | undefined) ?? {});
      return {
        key: join(key, String(params.additionalProperty)),
        problem: `not a known key${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`,
      };
    }
    case 'required':
      return { key: join(key, String(params.missingProperty)), problem: 'is required' };
    case 'anyOf':
      return { key, problem: describeUnion(nodeAt(schema, error.schemaPath, 1)) };
    case 'type':
      return { key, problem: `must be ${typeNames[String(params.type)] ?? String(params.type)}` };
    case 'minimum':
      return { key, problem: `must be at least ${params.limit}` };
    case 'exclusiveMinimum':
      return { key, problem: `must be greater than ${params.limit}` };
    case 'maximum':
      return { key, problem: `must be at most ${params.limit}` };
    case 'exclusiveMaximum':
      return { key, problem: `must be less than ${params.limit}` };
    case 'minLength':
      return { key, problem: params.limit === 1 ? 'must not be empty' : `must have at least ${params.limit} characters` };
    case 'maxLength':
      return { key, problem: `must have at most ${params.limit} characters` };
    case 'format':
      return { key, problem: `must be ${formatNames[String(params.format)] ?? `a valid ${String(params.format)}`}` };
    case 'const':
      return { key, problem: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'pattern': {
      const expected = nodeAt(schema, error.schemaPath, 1).expected;
      return { key, problem: typeof expected === 'string' ? `must be ${expected}` : (error.message ?? 'is invalid') };
    }
    case 'enum':
      return { key, problem: `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}` };
    default:
      return { key, problem: error.message ?? 'is invalid' };
  }
}

/** A union of constants lists them; a union that says what it expects (`expected`) says that. */
function describeUnion(node: Node): string {
  const branches = (node.anyOf as Node[] | undefined) ?? [];
  if (branches.length > 0 && branches.every((b) => 'const' in b))
    return `must be one of ${branches.map((b) => String(b.const)).join(', ')}`;
  if (typeof node.expected === 'string') return `must be ${node.expected}`;
  return 'has the wrong type or value';
}

/** The schema node `#/properties/a/anyOf` points at, less `up` trailing steps. */
function nodeAt(schema: TSchema, schemaPath: string, up: number): Node {
  const steps = schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean);
  let node: unknown = schema;
  for (const step of steps.slice(0, steps.length - up)) node = (node as Record<string, unknown> | undefined)?.[decode(step)];
  return (node as Node | undefined) ?? {};
}

function decode(step: string): string {
  return step.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `/plugins/2` -> `plugins[2]`, `/a/b` -> `a.b`. */
function keyOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map(decode)
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : join(acc, part)), '');
}

function join(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}

import type { TSchema } from '@sinclair/typebox';
import { ErrorCode, badRequest } from '../errors';

/**
 * Where a request names the clients it acts on, as its route declares it: a path of property
 * names into its body schema (`'clients'`, `'client'`, `'targets.ip'`; arrays are walked at
 * every step, so `'clients'` reads a string or a list of them), a query parameter (`'?client'`:
 * its values, each a comma-separated list), several of these, or a function of the body as it
 * arrived (before validation: it must cope with any JSON).
 */
export type ClientsAt = string | readonly string[] | ((body: unknown) => Iterable<unknown>);

/** The clients one request names, read the way its route declared. */
export type ClientsReader = (body: unknown, query: URLSearchParams) => string[];

const none: string[] = [];

/**
 * The reader of a declaration, checked against the route's body schema: a path must lead
 * through its properties to strings only (a client named by a number would go unchecked).
 * Throws an Error saying what is wrong, for the start's one line.
 */
export function clientsReader(at: ClientsAt, schema: TSchema | undefined): ClientsReader {
  if (typeof at === 'function') {
    return (body) => {
      const named = new Set<string>();
      try {
        for (const value of at(body)) if (typeof value === 'string') named.add(value);
      } catch {
        // A body the route cannot read its clients from is refused, never let through unchecked.
        throw badRequest(ErrorCode.invalidField, 'the request body does not name its clients where this route reads them');
      }
      return named.size === 0 ? none : [...named];
    };
  }
  const declared = typeof at === 'string' ? [at] : at;
  const parameters = declared.filter((path) => path.startsWith('?')).map((path) => path.slice(1));
  if (parameters.some((name) => name === '')) throw new Error(`'?' names no query parameter`);
  const paths = declared
    .filter((path) => !path.startsWith('?'))
    .map((path) => {
      const segments = path.split('.');
      if (path === '' || segments.some((s) => s === '')) throw new Error(`'${path}' is not a path of property names`);
      if (!schema) throw new Error(`it names '${path}' but the route has no body schema`);
      const problem = leafProblem(schema, segments);
      if (problem) throw new Error(`'${path}' ${problem}`);
      return segments;
    });
  if (declared.length === 0) throw new Error('it names no path');
  return (body, query) => {
    const named = new Set<string>();
    for (const segments of paths) collect(body, segments, 0, named);
    for (const name of parameters) for (const value of query.getAll(name)) for (const ip of value.split(',')) if (ip) named.add(ip);
    return named.size === 0 ? none : [...named];
  };
}

function collect(value: unknown, segments: readonly string[], at: number, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, segments, at, into);
    return;
  }
  if (at === segments.length) {
    if (typeof value === 'string') into.add(value);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const key = segments[at]!;
  if (Object.hasOwn(value, key)) collect((value as Record<string, unknown>)[key], segments, at + 1, into);
}

/** Why a path does not lead to strings in a schema, or undefined when it does. */
function leafProblem(schema: TSchema, segments: readonly string[]): string | undefined {
  const ends = reach([schema], segments);
  if (ends.length === 0) return 'is not in the body schema';
  const leaves = ends.flatMap(alternatives).map(unwrapArrays).flatMap(alternatives);
  if (leaves.some((leaf) => leaf.type !== 'string')) return 'must hold strings (client addresses) only';
  return undefined;
}

/** The schemas a path leads to: through arrays' items and the members of unions. */
function reach(from: TSchema[], segments: readonly string[]): TSchema[] {
  let here = from;
  for (const key of segments) {
    here = here
      .flatMap(alternatives)
      .map(unwrapArrays)
      .flatMap(alternatives)
      .flatMap((node) => {
        const property = (node.properties as Record<string, TSchema> | undefined)?.[key];
        return property ? [property] : [];
      });
  }
  return here;
}

function alternatives(node: TSchema): TSchema[] {
  const members = (node.anyOf ?? node.oneOf) as TSchema[] | undefined;
  return members ? members.flatMap(alternatives) : [node];
}

function unwrapArrays(node: TSchema): TSchema {
  let here = node;
  while (here.type === 'array' && here.items) here = here.items as TSchema;
  return here;
}

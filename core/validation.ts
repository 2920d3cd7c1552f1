import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { Static, TSchema } from '@sinclair/typebox';
import { isDecimalInt, isHostIpv4, isIpv4, isLineText, isMac, isMultilineText, isNetmask, isPrintableName, isUnicastMac } from './formats';

/**
 * The one validator of the service: request bodies and config sections are checked
 * against TypeBox schemas compiled by a single Ajv instance.
 */
const ajv = new Ajv({ allErrors: false, useDefaults: true, coerceTypes: false, strict: false });
ajv.addFormat('ipv4', { type: 'string', validate: isIpv4 });
ajv.addFormat('host address', { type: 'string', validate: isHostIpv4 });
ajv.addFormat('mac', { type: 'string', validate: isMac });
ajv.addFormat('netmask', { type: 'string', validate: isNetmask });
ajv.addFormat('decimal-int', { type: 'string', validate: isDecimalInt });
ajv.addFormat('unicast mac', { type: 'string', validate: isUnicastMac });
ajv.addFormat('printable name', { type: 'string', validate: isPrintableName });
ajv.addFormat('line of text', { type: 'string', validate: isLineText });
ajv.addFormat('multiline text', { type: 'string', validate: isMultilineText });

/** What a value of a format must be, where `a valid <format>` would not tell the user why it was refused. */
const formatRules: Record<string, string> = {
  'unicast mac': "a single card's MAC: not the broadcast ff:ff:ff:ff:ff:ff, a multicast MAC (first octet odd) or 00:00:00:00:00:00",
  'line of text': 'text without control characters (C0, DEL, C1)',
  'multiline text': 'text without control characters (C0, DEL, C1) but tab and line breaks',
};

export interface Violation {
  field: string;
  message: string;
  missing: boolean;
}

/** A refusal carries the first violation, and Ajv's errors for callers that describe it their own way (config). */
export type Checker<S extends TSchema> = (
  value: unknown,
) => { ok: true; value: Static<S> } | { ok: false; violation: Violation; errors: ErrorObject[] };

const compiled = new WeakMap<TSchema, ValidateFunction>();

export function compile<S extends TSchema>(schema: S): Checker<S> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const fn = validate;
  return (value: unknown) => {
    if (fn(value)) return { ok: true, value: value as Static<S> };
    const errors = fn.errors ?? [];
    return { ok: false, violation: describe(errors[0]), errors };
  };
}

/** `/clients/3` -> `clients[3]`, `/a/b` -> `a.b`: the name a user sees in the error. */
function fieldName(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describe(error: ErrorObject | undefined): Violation {
  if (!error) return { field: '', message: 'invalid value', missing: false };
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const field = fieldName(error.instancePath, String(params.missingProperty));
    return { field, message: `'${field}' is required`, missing: true };
  }
  if (error.keyword === 'additionalProperties') {
    const field = fieldName(error.instancePath, String(params.additionalProperty));
    return { field, message: `'${field}' is not a known key`, missing: false };
  }
  const field = fieldName(error.instancePath);
  const label = field === '' ? 'the body' : `'${field}'`;
  if (error.keyword === 'format') {
    const format = String(params.format);
    return { field, message: `${label} must be ${formatRules[format] ?? `a valid ${format}`}`, missing: false };
  }
  if (error.keyword === 'anyOf') return { field, message: `${label} has the wrong type or value`, missing: false };
  return { field, message: `${label} ${error.message ?? 'is invalid'}`, missing: false };
}

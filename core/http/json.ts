/**
 * JSON in and out of the REST interface: bodies are parsed strictly (prototype keys refused),
 * responses escape every non-ASCII character as the reference does, and 64-bit sizes
 * (BigInt) are written as plain JSON integers without losing precision.
 */
const forbiddenKey = /"(?:__proto__|constructor|prototype)"\s*:/;

export class JsonSyntaxError extends Error {}
export class ForbiddenKeyError extends Error {}

export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JsonSyntaxError((error as Error).message);
  }
  // Only walk the value when the text mentions a dangerous key at all: the common case costs one regex.
  if (forbiddenKey.test(text)) rejectPrototypeKeys(value);
  return value;
}

function rejectPrototypeKeys(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach(rejectPrototypeKeys);
    return;
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new ForbiddenKeyError(key);
    rejectPrototypeKeys((value as Record<string, unknown>)[key]);
  }
}

const bigintMarker = '\u0000bigint:';
const bigintPlaceholder = /"\\u0000bigint:(-?\d+)"/g;
const nonAscii = /[\u007f-\uffff]/g;

function escapeChar(c: string): string {
  return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
}

/**
 * A body serialised ahead of time (by `stringifyAscii`), for answers that are expensive
 * to build and cheap to reuse. The reply path writes it as it is.
 */
export class PreparedJson {
  constructor(readonly text: string) {}
}

/** Serialise for the wire: ASCII only, BigInt as a bare integer. */
export function stringifyAscii(value: unknown): string {
  if (value instanceof PreparedJson) return value.text;
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/.test(error.message)) throw error;
    text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? bigintMarker + v.toString() : v)).replace(bigintPlaceholder, '$1');
  }
  return text.replace(nonAscii, escapeChar);
}

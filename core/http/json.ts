/**
 * JSON in and out of the REST interface: bodies are parsed strictly (prototype keys dropped,
 * NUL characters and lone surrogates refused), responses escape every non-ASCII character as the reference
 * does, and 64-bit sizes (BigInt) are written as plain JSON integers without losing precision.
 */
const prototypeKey = /"(?:__proto__|constructor|prototype)"\s*:/;
const isPrototypeKey = (key: string) => key === '__proto__' || key === 'constructor' || key === 'prototype';

export class JsonSyntaxError extends Error {}

/** A string of the body holds U+0000, which SQLite and PostgreSQL cannot store; `field` is its path. */
export class NulCharacterError extends Error {
  constructor(readonly field: string) {
    super(`'${field}' must not contain a NUL character`);
  }
}

/**
 * A string of the body holds half a surrogate pair (`"\ud800"` escaped alone): no character,
 * it has no UTF-8 form, and a database would keep U+FFFD in its place. `field` is its path.
 */
export class LoneSurrogateError extends Error {
  constructor(readonly field: string) {
    super(`'${field}' holds half a surrogate pair (U+D800-U+DFFF alone), which is no character`);
  }
}

/** The body nests arrays and objects deeper than allowed. */
export class JsonDepthError extends Error {
  constructor(readonly maxDepth: number) {
    super(`the request body nests arrays and objects deeper than ${maxDepth} levels`);
  }
}

export function parseJson(text: string, maxDepth = 64): unknown {
  // Each level takes at least one character: a text no longer than the limit cannot pass it.
  if (text.length > maxDepth) checkDepth(text, maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JsonSyntaxError((error as Error).message);
  }
  // Walk the value only when the text could hold one of them: the common case costs three scans.
  const checks = {
    dropKeys: prototypeKey.test(text),
    refuseNul: text.includes('\\u0000'),
    // Raw bytes were UTF-8 (bodyText): only an escape can make a surrogate, paired or not.
    refuseLoneSurrogates: surrogateEscape.test(text),
  };
  if (checks.dropKeys || checks.refuseNul || checks.refuseLoneSurrogates) clean(value, '', checks);
  return value;
}

const surrogateEscape = /\\u[dD][89a-fA-F]/;
/** A high surrogate without the low one after it, or a low one without the high one before it. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

interface Checks {
  dropKeys: boolean;
  refuseNul: boolean;
  refuseLoneSurrogates: boolean;
}

/**
 * Refuse a text that nests deeper than `maxDepth` before anything walks it: every later
 * step (the key and NUL walk, schema validation, handlers) may recurse once per level.
 * Brackets inside strings do not count; the text need not be valid JSON (JSON.parse judges that).
 */
function checkDepth(text: string, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw new JsonDepthError(maxDepth);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/**
 * Unknown keys are ignored (the spec), and prototype keys are dropped before any code can
 * merge them into an object; a NUL or a lone surrogate in a key or a string is refused,
 * naming where it is.
 */
function clean(value: unknown, path: string, checks: Checks): void {
  if (typeof value === 'string') {
    refuseCharacters(value, path || 'body', checks);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) clean(item, `${path}[${i}]`, checks);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const at = path ? `${path}.${key}` : key;
    if (checks.dropKeys && isPrototypeKey(key)) {
      delete record[key];
      continue;
    }
    refuseCharacters(key, at, checks);
    clean(record[key], at, checks);
  }
}

/** Refuse `text` (a string, or a key of the path `field` ends with) if it holds a character no database keeps. */
function refuseCharacters(text: string, field: string, checks: Checks): void {
  // The path shows the character escaped when a key holds it.
  const shown = () => JSON.stringify(field).slice(1, -1);
  if (checks.refuseNul && text.includes('\u0000')) throw new NulCharacterError(shown());
  if (checks.refuseLoneSurrogates && loneSurrogate.test(text)) throw new LoneSurrogateError(shown());
}

const nonAscii = /[\u007f-\uffff]/g;
/** A string JSON.stringify would change: quotes, backslashes, controls, and what we escape after it. */
const needsEscaping = /[\u0000-\u001f"\\\u007f-\uffff]/;

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A body serialised ahead of time (by `stringifyAscii`), for answers that are expensive
 * to build and cheap to reuse. The reply path writes it as it is.
 */
export class PreparedJson {
  private encoded?: Buffer;

  constructor(readonly text: string) {}

  /** The text's bytes, encoded once however often the answer is sent (it is ASCII). */
  get bytes(): Buffer {
    this.encoded ??= Buffer.from(this.text, 'latin1');
    return this.encoded;
  }
}

/** Serialise for the wire: ASCII only, BigInt as a bare integer. */
export function stringifyAscii(value: unknown): string {
  if (value instanceof PreparedJson) return value.text;
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/.test(error.message)) throw error;
    // Native JSON has no 64-bit integers (Node 20 lacks JSON.rawJSON); a replacer costs a
    // call per value, so answers with sizes take this writer, with JSON.stringify's rules.
    text = writeJson(value) ?? 'null';
  }
  return text.replace(nonAscii, escapeChar);
}

function writeString(text: string): string {
  return needsEscaping.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** JSON.stringify's output, with a BigInt written as a bare integer; undefined where it would give undefined. */
function writeJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return writeString(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return writeJson((value as { toJSON(): unknown }).toJSON());
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return writeJson(value.valueOf());
      if (Array.isArray(value)) return `[${value.map((item) => writeJson(item) ?? 'null').join(',')}]`;
      return writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function writeObject(record: Record<string, unknown>): string {
  let out = '';
  for (const key of Object.keys(record)) {
    const item = writeJson(record[key]);
    if (item === undefined) continue;
    out += `${out ? ',' : ''}${writeString(key)}:${item}`;
  }
  return `{${out}}`;
}

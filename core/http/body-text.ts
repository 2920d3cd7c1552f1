import { isUtf8 } from 'node:buffer';

/**
 * A request body's bytes as text. Bytes that are not UTF-8 are refused, not read as U+FFFD:
 * a replacement character stored in place of what the client sent would be a silent change
 * of its data. A U+FFFD the client sent properly encoded (EF BF BD) is text like any other.
 */

/**
 * Bytes of the body that are not UTF-8. `inString`: they are inside a JSON string, a value
 * (`field` is its path) or a key (`field` is the path of its object, none at the top).
 */
export class InvalidUtf8Error extends Error {
  constructor(
    message: string,
    readonly inString: boolean,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The body as text, without the byte order mark a client may start it with. */
export function bodyText(bytes: Buffer): string {
  // The common case costs one native scan; only a refused body is looked at more closely.
  if (!isUtf8(bytes)) throw invalidUtf8(bytes);
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function invalidUtf8(bytes: Buffer): InvalidUtf8Error {
  const at = firstInvalidByte(bytes);
  const byte = `byte 0x${bytes[at]!.toString(16).padStart(2, '0')} at offset ${at}`;
  // Everything before `at` is UTF-8: where the JSON text stands there says which string holds it.
  const place = placeAt(bytes.subarray(0, at).toString('utf8'));
  if (place === undefined) return new InvalidUtf8Error(`the request body is not UTF-8 (${byte})`, false);
  if (place.key) {
    const owner = place.path ? `'${place.path}'` : 'the body';
    return new InvalidUtf8Error(`a key of ${owner} is not UTF-8 (${byte} of the body)`, true, place.path || undefined);
  }
  const field = place.path || 'body';
  return new InvalidUtf8Error(`'${field}' is not UTF-8 (${byte} of the body)`, true, field);
}

/**
 * The offset of the first byte that does not start a well-formed UTF-8 sequence (Unicode
 * table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), or of the lead
 * byte of a sequence cut short.
 */
function firstInvalidByte(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const trailing = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
    if (trailing === 0 || i + trailing >= bytes.length) return i;
    // The second byte's range narrows after these leads; the others are 0x80-0xbf.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    const second = bytes[i + 1]!;
    if (second < low || second > high) return i;
    for (let k = 2; k <= trailing; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += trailing + 1;
  }
  return i;
}

type Frame = { kind: 'object'; key: string; expectingKey: boolean } | { kind: 'array'; index: number };

/**
 * Where the end of `prefix`, the start of a JSON text, stands: inside a string, as the
 * path of the value it is (`clients[1]`, `a.b`) or of the object whose key it is; undefined
 * when it is outside every string. The prefix need not be valid JSON up to there: what
 * JSON.parse would refuse is refused either way, and only the place is asked for.
 */
function placeAt(prefix: string): { path: string; key: boolean } | undefined {
  const stack: Frame[] = [];
  let stringStart = -1;
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix[i];
    if (stringStart >= 0) {
      if (c === '\\') i++;
      else if (c === '"') {
        const top = stack.at(-1);
        if (top?.kind === 'object' && top.expectingKey) top.key = keyText(prefix.slice(stringStart, i + 1));
        stringStart = -1;
      }
      continue;
    }
    const top = stack.at(-1);
    if (c === '"') stringStart = i;
    else if (c === '{') stack.push({ kind: 'object', key: '', expectingKey: true });
    else if (c === '[') stack.push({ kind: 'array', index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ':' && top?.kind === 'object') top.expectingKey = false;
    else if (c === ',' && top?.kind === 'object') top.expectingKey = true;
    else if (c === ',' && top?.kind === 'array') top.index++;
  }
  if (stringStart < 0) return undefined;
  const top = stack.at(-1);
  const key = top?.kind === 'object' && top.expectingKey;
  return { path: pathOf(key ? stack.slice(0, -1) : stack), key };
}

/** A complete JSON string literal's text. */
function keyText(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal.slice(1, -1);
  }
}

/** `a.b[0].c`, as the NUL and schema refusals name fields. */
function pathOf(stack: Frame[]): string {
  let path = '';
  for (const frame of stack) {
    if (frame.kind === 'array') path += `[${frame.index}]`;
    else path += path ? `.${frame.key}` : frame.key;
  }
  return path;
}

import type { DestinationStream } from 'pino';

/**
 * `log.format: "pretty"`: each record as one line a person reads in a terminal,
 * `<time> <LEVEL> [<plugin>] <message> key=value ...`. Keys whose value the message already
 * says are left out; the JSON form keeps everything (and error stacks) for the journal and
 * log shippers. Our own few lines rather than pino-pretty: an appliance gains no dependency
 * tree and no worker thread for it.
 */
export function prettyStream(out: DestinationStream): DestinationStream {
  return { write: (record: string) => out.write(`${prettyLine(record)}\n`) };
}

/** Records carry these as the line's fixed parts. */
const fixed = new Set(['time', 'level', 'msg', 'plugin']);
/** The longest a value may print: a list of 5,000 addresses is not read in a terminal. */
const maxValueChars = 200;

export function prettyLine(record: string): string {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(record) as Record<string, unknown>;
  } catch {
    return record.trimEnd();
  }
  const message = typeof fields.msg === 'string' ? fields.msg : '';
  const parts = [
    String(fields.time ?? ''),
    String(fields.level ?? '')
      .toUpperCase()
      .padEnd(5),
  ];
  if (typeof fields.plugin === 'string') parts.push(`[${fields.plugin}]`);
  if (message) parts.push(message);
  for (const [key, value] of Object.entries(fields)) {
    if (fixed.has(key) || value === undefined || value === null || said(value, message)) continue;
    parts.push(`${key}=${key === 'err' ? errorText(value) : valueText(value)}`);
  }
  return parts.join(' ');
}

/** Whether the message already says `value` (as a whole word), or it says nothing: an empty list or section. */
function said(value: unknown, message: string): boolean {
  if (Array.isArray(value)) return value.every((item) => said(item, message));
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0;
  const text = String(value);
  if (text === '') return true;
  return new RegExp(`(?<![\\w.])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\w|\\.\\d)`).test(message);
}

/** An error as pino serialises it: `Type: message`. */
function errorText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return valueText(value);
  const { type, message } = value as { type?: unknown; message?: unknown };
  return valueText(`${typeof type === 'string' ? `${type}: ` : ''}${String(message ?? '')}`);
}

/** A bare word when it is one, else JSON (quoted, escaped), cut to a readable length. */
function valueText(value: unknown): string {
  const text = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return text.length > maxValueChars ? `${text.slice(0, maxValueChars)}...` : text;
}

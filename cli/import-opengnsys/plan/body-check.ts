import type { TSchema } from '@sinclair/typebox';
import { HttpError } from '../../../core/errors';
import { compile } from '../../../core/validation';

/**
 * Whether ogserve would take a row, judged by the schema of the REST request that adds
 * such a row: the reason it would not, or undefined. The reason names ogserve's field and
 * the legacy column it came from, with the value, so that the row can be found and fixed.
 */
export function refusalOf(
  schema: TSchema,
  body: Record<string, unknown>,
  columns: Record<string, string>,
  table: string,
): string | undefined {
  const result = compile(schema)(structuredClone(body));
  if (result.ok) return undefined;
  return withColumn(result.violation.message, result.violation.field, body, columns, table);
}

/** A refusal a check threw (an HttpError names its field), or rethrows anything else. */
export function refusalFromError(error: unknown, body: Record<string, unknown>, columns: Record<string, string>, table: string): string {
  if (!(error instanceof HttpError)) throw error;
  return withColumn(error.message, error.field ?? '', body, columns, table);
}

/** The reason with the legacy column behind `field` (`when.minutes`, else its root `when`) and its value. */
function withColumn(message: string, field: string, body: Record<string, unknown>, columns: Record<string, string>, table: string): string {
  const path = field.split('.').filter((part) => !part.includes('['));
  for (let depth = path.length; depth > 0; depth--) {
    const key = path.slice(0, depth).join('.');
    const column = columns[key];
    if (column) return `${message} (${table}.${column} = ${shown(valueAt(body, path.slice(0, depth)))})`;
  }
  return message;
}

function valueAt(body: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = body;
  for (const part of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** A value as the reason shows it: quoted, control characters visible, long ones cut. */
export function shown(value: unknown): string {
  if (value === undefined || value === null) return 'NULL';
  const text = JSON.stringify(value);
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}

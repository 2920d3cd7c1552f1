import type { TSchema } from '@sinclair/typebox';
import { ErrorCode, badRequest } from 'ogserve';
import { CsvError, parseCsv } from './csv';
import { ClientAdd } from './schemas';

/** A data row of an imported CSV: its line, and the fields its cells set, named as POST /client/add names them. */
export interface CsvClientRow {
  line: number;
  fields: Record<string, unknown>;
  /** Why the row cannot be read as a client at all (its cells do not match the header). */
  problem?: string;
}

// The columns are POST /client/add's fields, read from its schema so the two cannot part.
const columns: Record<string, TSchema> = ClientAdd.properties;
const required: readonly string[] = ClientAdd.required ?? [];

/**
 * The rows of a CSV file of clients. Refused whole (400 naming `csv`): a text that is not
 * CSV, a header naming a column POST /client/add does not take or lacking one it requires,
 * no rows, or more than `maxRows`.
 */
export function csvClientRows(csv: string, maxRows: number): CsvClientRow[] {
  const [header, ...records] = readCsv(csv);
  if (!header)
    throw badRequest(
      ErrorCode.missingField,
      `the file is empty: its first line names the columns (${Object.keys(columns).join(', ')})`,
      'csv',
    );
  const names = header.cells.map((cell) => cell.trim().toLowerCase());
  names.forEach((name, i) => {
    if (!Object.hasOwn(columns, name))
      throw badRequest(ErrorCode.invalidField, `unknown column '${name}'; the columns are ${Object.keys(columns).join(', ')}`, 'csv');
    if (names.indexOf(name) !== i) throw badRequest(ErrorCode.invalidField, `the column '${name}' is named twice`, 'csv');
  });
  for (const name of required)
    if (!names.includes(name)) throw badRequest(ErrorCode.missingField, `the file has no '${name}' column`, 'csv');
  if (records.length === 0) throw badRequest(ErrorCode.missingField, 'the file has no rows under its header', 'csv');
  if (records.length > maxRows)
    throw badRequest(
      ErrorCode.invalidField,
      `the file has ${records.length} rows; at most ${maxRows} are imported at once (inventory.import_max_rows)`,
      'csv',
    );
  return records.map(({ line, cells }) => {
    // An empty cell sets nothing: the client gets what POST /client/add gives a field not sent.
    const fields: Record<string, unknown> = {};
    names.forEach((name, i) => {
      const cell = cells[i];
      if (cell !== undefined && cell !== '') fields[name] = columns[name]!.type === 'boolean' ? booleanOf(cell) : cell;
    });
    if (cells.length === names.length) return { line, fields };
    return { line, fields, problem: `the line has ${cells.length} cells where the header names ${names.length}` };
  });
}

function readCsv(csv: string) {
  try {
    return parseCsv(csv);
  } catch (error) {
    if (error instanceof CsvError) throw badRequest(ErrorCode.invalidField, error.message, 'csv');
    throw error;
  }
}

/** true, false, 1 or 0 as the boolean; anything else as written, for the schema to refuse naming the field. */
function booleanOf(cell: string): boolean | string {
  const value = cell.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return cell;
}

/** One record of a CSV text: its cells, and the line it begins on (1 for the header). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/** A text that is not CSV (a quote left open): what is wrong, and on which line. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvError';
  }
}

/**
 * The records of a CSV text as spreadsheets save it (RFC 4180 and what Excel and
 * LibreOffice add): cells separated by commas, or by semicolons where the first line holds
 * more of them (a spreadsheet set to a language that writes decimals with a comma); a cell
 * in double quotes may hold the separator, line breaks and doubled quotes; lines end in LF,
 * CRLF or CR; a leading UTF-8 BOM is dropped. Lines whose cells are all blank are left out,
 * as a spreadsheet's empty rows.
 */
export function parseCsv(text: string): CsvRecord[] {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const delimiter = delimiterOf(source);
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let closed = false;
  let line = 1;
  let start = 1;
  const endRecord = () => {
    cells.push(cell);
    if (cells.some((c) => c.trim() !== '')) records.push({ line: start, cells });
    cells = [];
    cell = '';
    closed = false;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const crlf = c === '\r' && source[i + 1] === '\n';
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
        closed = true;
      } else {
        // A line break inside quotes is the cell's own; CRLF counts as one line.
        if (c === '\n' || (c === '\r' && !crlf)) line++;
        cell += c;
      }
    } else if (c === delimiter) {
      cells.push(cell);
      cell = '';
      closed = false;
    } else if (c === '\n' || c === '\r') {
      if (crlf) i++;
      endRecord();
      start = ++line;
    } else if (closed) {
      throw new CsvError(line, `'${c}' after the closing quote of a cell (a quote inside a quoted cell is written twice: "")`);
    } else if (c === '"' && cell === '') {
      quoted = true;
    } else {
      // A quote inside an unquoted cell is taken as written, as spreadsheets read it.
      cell += c;
    }
  }
  if (quoted) throw new CsvError(start, 'a quoted cell is not closed');
  endRecord();
  return records;
}

/** `;` when the first line with text holds more semicolons than commas outside quotes, `,` otherwise. */
function delimiterOf(source: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  let seen = false;
  for (const c of source) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) {
      if (seen) break;
      continue;
    } else if (!quoted && c === ',') commas++;
    else if (!quoted && c === ';') semicolons++;
    seen = true;
  }
  return semicolons > commas ? ';' : ',';
}

/**
 * What the planner decided, row by row: refusals (the row is skipped) and changes (the row
 * goes in, with a reference that led nowhere cleared or moved), one line each, plus the
 * counts per legacy table that the summary prints.
 */
export interface LedgerLine {
  kind: 'refused' | 'changed';
  table: string;
  /** The row as a person finds it in the legacy database: `ordenadores 57 (pc-57, 10.0.1.57)`. */
  row: string;
  reason: string;
}

export interface TableCount {
  read: number;
  imported: number;
  refused: number;
  /** Rows not imported without a fault of their own, by why (left with a refused parent, a kind ogserve does not keep). */
  leftOut: Map<string, number>;
}

export class Ledger {
  readonly lines: LedgerLine[] = [];
  readonly counts = new Map<string, TableCount>();

  constructor(private readonly onLine: (line: LedgerLine) => void = () => undefined) {}

  read(table: string, rows: number): void {
    this.count(table).read += rows;
  }

  imported(table: string): void {
    this.count(table).imported++;
  }

  refused(table: string, row: string, reason: string): void {
    this.count(table).refused++;
    this.add({ kind: 'refused', table, row, reason });
  }

  /** A row that goes in with a change; it is counted as imported by `imported`. */
  changed(table: string, row: string, reason: string): void {
    this.count(table);
    this.add({ kind: 'changed', table, row, reason });
  }

  leftOut(table: string, rows: number, why: string): void {
    if (rows === 0) return;
    const left = this.count(table).leftOut;
    left.set(why, (left.get(why) ?? 0) + rows);
  }

  private add(line: LedgerLine): void {
    this.lines.push(line);
    this.onLine(line);
  }

  private count(table: string): TableCount {
    let count = this.counts.get(table);
    if (!count) this.counts.set(table, (count = { read: 0, imported: 0, refused: 0, leftOut: new Map() }));
    return count;
  }
}

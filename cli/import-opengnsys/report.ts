import type { Ledger, LedgerLine } from './plan/ledger';

/** One refusal or change: `refused  ordenadores 4 (pc-a1-04, 0.0.0.0): 'ip' must be ...`. */
export function formatLine(line: LedgerLine): string {
  return `${line.kind.padEnd(8)} ${line.row}: ${line.reason}\n`;
}

/** The counts per legacy table, then why rows were left out, as the end of a run prints them. */
export function formatSummary(ledger: Ledger, imported: 'import' | 'imported'): string {
  const rows = [...ledger.counts].map(([table, c]) => [
    table,
    String(c.read),
    String(c.imported),
    String(c.refused),
    String([...c.leftOut.values()].reduce((a, b) => a + b, 0)),
  ]);
  const head = ['table', 'read', imported, 'refused', 'left out'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const lines = [format(head), ...rows.map(format)];
  for (const [table, count] of ledger.counts) {
    for (const [why, n] of count.leftOut) lines.push(`left out of ${table}: ${n} ${why}`);
  }
  const refused = ledger.lines.filter((l) => l.kind === 'refused').length;
  const changed = ledger.lines.length - refused;
  lines.push(`${refused} row${refused === 1 ? '' : 's'} refused, ${changed} kept with a change (listed above)`);
  return `${lines.join('\n')}\n`;
}

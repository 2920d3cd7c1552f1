// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { CsvError, parseCsv } from '../../../plugins/inventory/csv';

const cells = (text: string) => parseCsv(text).map((r) => r.cells);
const lines = (text: string) => parseCsv(text).map((r) => r.line);

test('commas by default; semicolons when the first line holds more of them', () => {
  assert.deepEqual(cells('a,b\n1,2'), [
    ['a', 'b'],
    ['1', '2'],
  ]);
  assert.deepEqual(cells('a;b\n1,5;2'), [
    ['a', 'b'],
    ['1,5', '2'],
  ]);
  assert.deepEqual(cells('"a;x",b\n1;2,3'), [
    ['a;x', 'b'],
    ['1;2', '3'],
  ]);
  assert.deepEqual(cells('\n\na;b\n1;2'), [
    ['a', 'b'],
    ['1', '2'],
  ]);
});

test('quoted cells hold the separator, doubled quotes and line breaks; a quote inside an unquoted cell is text', () => {
  assert.deepEqual(cells('"a,b","say ""hi""",""\n"two\nlines",x"y,z'), [
    ['a,b', 'say "hi"', ''],
    ['two\nlines', 'x"y', 'z'],
  ]);
});

test('LF, CRLF and CR end lines; a BOM is dropped; blank lines are skipped and the line numbers stay those of the file', () => {
  assert.deepEqual(cells('\uFEFFa,b\r\n1,2\r\n\r\n3,4\r5,6\n'), [
    ['a', 'b'],
    ['1', '2'],
    ['3', '4'],
    ['5', '6'],
  ]);
  assert.deepEqual(lines('a\r\n"x\r\ny"\n\n  \n,\nz'), [1, 2, 7]);
});

test('a quote left open, or text after a closing quote, is refused naming the line', () => {
  assert.throws(
    () => parseCsv('a,b\n1,2\n"open,3'),
    (e: unknown) => e instanceof CsvError && e.line === 3 && /not closed/.test(e.message),
  );
  assert.throws(
    () => parseCsv('a,b\n"x"y,2'),
    (e: unknown) => e instanceof CsvError && e.line === 2 && /after the closing quote/.test(e.message),
  );
});

test('empty text has no records', () => {
  assert.deepEqual(parseCsv(''), []);
  assert.deepEqual(parseCsv('\uFEFF\r\n'), []);
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { stringifyAscii } from '../../core/http/json';

/** What the wire must carry: JSON.stringify's text, 64-bit integers bare, everything past ASCII escaped. */
function expected(value: unknown, bigints: Record<string, string>): string {
  let text = JSON.stringify(value);
  for (const [marker, digits] of Object.entries(bigints)) text = text.replace(`"${marker}"`, digits);
  return text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const tricky = {
  text: 'quote " backslash \\ tab \t newline \n nul-free control \u0001 del \u007f ñandú ☃ lone \ud800 end',
  numbers: [0, -0, 1.5, -2e21, Number.NaN, Number.POSITIVE_INFINITY],
  flags: [true, false, null],
  skipped: { a: undefined, f: () => 1, s: Symbol('x'), kept: 1 },
  inArray: [undefined, () => 1, Symbol('y')],
  date: new Date(Date.UTC(2026, 10, 25, 8, 0, 0)),
  nested: { deeper: [{ 'key with "quotes"': 'v', clé: 'é' }] },
  boxed: [new Number(3), new String('s'), new Boolean(false)],
  map: new Map([[1, 2]]),
  '10': 'integer keys first',
};

test('an answer with 64-bit integers is written exactly as JSON.stringify would, the integers bare', () => {
  const big = 2n ** 63n - 1n;
  const value = { before: 1n, tricky, size: big, list: [0n, -12n, 9007199254740993n] };
  const shaped = { before: 'B1', tricky, size: 'B2', list: ['B3', 'B4', 'B5'] };
  const text = stringifyAscii(value);
  assert.equal(text, expected(shaped, { B1: '1', B2: '9223372036854775807', B3: '0', B4: '-12', B5: '9007199254740993' }));
  assert.match(text, /"size":9223372036854775807,/, 'no precision lost');
  assert.equal(stringifyAscii([1n, undefined]), '[1,null]');
  assert.equal(stringifyAscii({ toJSON: () => ({ n: 5n }) }), '{"n":5}');
});

test('an answer without 64-bit integers is JSON.stringify with what is past ASCII escaped', () => {
  assert.equal(stringifyAscii(tricky), expected(tricky, {}));
  assert.equal(stringifyAscii(undefined), 'null');
});

test.run();

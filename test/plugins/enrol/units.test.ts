import assert from 'node:assert/strict';
import { test } from 'uvu';
import { HttpError } from '../../../core/errors';
import { addressesFor } from '../../../plugins/enrol/addresses';
import { namesFrom } from '../../../plugins/enrol/names';
import { Rules } from '../../../plugins/enrol/rules';

const macs = ['525400000001', '525400000002', '525400000003'];

/** The field and message of the 400 `fn` throws. */
function refusal(fn: () => unknown): { field?: string; message: string } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof HttpError, String(error));
    assert.equal(error.status, 400);
    return { field: error.field, message: error.message };
  }
  assert.fail('not refused');
}

test('name patterns: the lowest free numbers from start, as wide as the placeholder, gaps filled, never a taken name', () => {
  assert.deepEqual(namesFrom('lab3-pc{nn}', macs, new Set()), ['lab3-pc01', 'lab3-pc02', 'lab3-pc03']);
  assert.deepEqual(namesFrom('lab3-pc{nn}', macs, new Set(['lab3-pc01', 'lab3-pc03'])), ['lab3-pc02', 'lab3-pc04', 'lab3-pc05']);
  assert.deepEqual(namesFrom('pc{n}', macs, new Set(), 9), ['pc9', 'pc10', 'pc11']);
  assert.deepEqual(namesFrom('pc{nnn}', macs.slice(0, 1), new Set(), 7), ['pc007']);
  assert.deepEqual(namesFrom('pc{nn}', macs.slice(0, 1), new Set(), 100), ['pc100'], 'a number wider than the placeholder grows');
  assert.deepEqual(namesFrom('new-{mac}', macs, new Set()), ['new-525400000001', 'new-525400000002', 'new-525400000003']);
  assert.deepEqual(namesFrom('{mac}-{n}', macs.slice(0, 2), new Set()), ['525400000001-1', '525400000002-2']);
  assert.deepEqual(namesFrom('reception', macs.slice(0, 1), new Set()), ['reception'], 'one PC may take a plain name');
});

test('name patterns that cannot name the PCs are refused, naming the field', () => {
  assert.match(refusal(() => namesFrom('reception', macs, new Set())).message, /gives 3 PCs the same name: add \{n\}/);
  assert.match(refusal(() => namesFrom('a{n}b{nn}', macs, new Set())).message, /more than one number/);
  assert.equal(refusal(() => namesFrom('pc{x}', macs, new Set())).field, 'names');
  assert.match(refusal(() => namesFrom(`${'x'.repeat(99)}{n}`, macs.slice(0, 1), new Set(), 10)).message, /longer than 100/);
});

const room = { netmask: '255.255.255.0', gateway: '10.1.3.1' };

test('addresses: the current ones, or free ones from the first up in its network, skipping the router, the ends and taken ones', () => {
  const pcs = [
    { mac: macs[0]!, ip: '10.1.3.200' },
    { mac: macs[1]!, ip: '10.1.3.201' },
  ];
  assert.deepEqual(addressesFor(pcs, 'current', room, new Map()), ['10.1.3.200', '10.1.3.201']);
  const taken = new Map([
    ['10.1.3.2', 'client pc02'],
    ['10.1.3.3', 'discovered PC'],
  ]);
  assert.deepEqual(addressesFor(pcs, '10.1.3.1', room, taken), ['10.1.3.4', '10.1.3.5']);
  assert.deepEqual(addressesFor(pcs, '10.1.3.0', room, new Map()), ['10.1.3.2', '10.1.3.3'], 'not the network address nor the router');
  assert.deepEqual(
    addressesFor(pcs, '10.1.4.250', { netmask: '', gateway: '' }, new Map()),
    ['10.1.4.250', '10.1.4.251'],
    'a /24 without a netmask',
  );
});

test('addresses that cannot be given are refused: one a client has, one two PCs share, a range too small', () => {
  const pcs = [
    { mac: macs[0]!, ip: '10.1.3.200' },
    { mac: macs[1]!, ip: '10.1.3.200' },
  ];
  const held = refusal(() => addressesFor(pcs.slice(0, 1), 'current', room, new Map([['10.1.3.200', 'client pc02']])));
  assert.equal(held.field, 'addresses');
  assert.match(held.message, /10\.1\.3\.200 is client pc02's address/);
  assert.match(refusal(() => addressesFor(pcs, 'current', room, new Map())).message, /two of these PCs were seen at 10\.1\.3\.200/);
  assert.match(
    refusal(() => addressesFor(pcs, '10.1.3.254', room, new Map())).message,
    /10\.1\.3\.0\/24 has 1 free addresses from 10\.1\.3\.254 up, not 2/,
  );
});

const hardware = (model: string, cpu = 'Intel Core i5') => [
  { type: 'mod', description: model },
  { type: 'cpu', description: cpu },
];

test('rules: the first whose every condition holds decides; network, model and hardware texts in any case', () => {
  const rules = new Rules([
    { network: '10.1.3.0/24', model: 'optiplex', room: 1 },
    { hardware: { cpu: 'RYZEN' }, room: 2 },
    { network: '10.1.0.0/16', room: 3, names: 'lab-{nn}' },
  ]);
  const match = (ip: string, hw: { type: string; description: string }[]) => rules.match({ ip, hardware: hw })?.number;
  assert.equal(match('10.1.3.20', hardware('Dell Inc. OptiPlex 7090')), 1);
  assert.equal(match('10.1.3.20', hardware('HP EliteDesk')), 3, 'the model fails rule 1; rule 3 holds the network');
  assert.equal(match('10.2.0.20', hardware('HP EliteDesk', 'AMD Ryzen 5 5600G')), 2);
  assert.equal(match('10.2.0.20', hardware('HP EliteDesk')), undefined);
  assert.equal(match('10.1.9.9', []), 3, 'no hardware needed by a network rule');
  assert.equal(new Rules([{ room: 4 }]).match({ ip: '192.0.2.1', hardware: [] })?.number, 1, 'a rule without conditions takes every PC');
  assert.throws(() => new Rules([{ network: '10.1.3.0/40', room: 1 }]), /enrol\.rules\[0\]\.network: '10\.1\.3\.0\/40' is not a network/);
});

test.run();

import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ProbeSweep } from '../../../plugins/agents/probe-sweep';

const fleet = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `127.0.${(from + i) >> 8}.${(from + i) & 255}`);

test('the periodic probe reaches every agent once per interval, in slices of a tenth', () => {
  let connected = fleet(1005);
  const batches: string[][] = [];
  const sweep = new ProbeSweep(
    30_000,
    () => connected,
    (ips) => batches.push(ips),
  );
  for (let i = 0; i < sweep.slices; i++) sweep.tick();
  assert.equal(batches.length, 10, 'one batch per tick');
  assert.ok(
    batches.every((b) => b.length <= 101),
    `no burst above a tenth (largest ${Math.max(...batches.map((b) => b.length))})`,
  );
  assert.deepEqual(batches.flat(), connected, 'every agent once, none twice');

  // Agents that connect during a round are probed from the next round on.
  batches.length = 0;
  sweep.tick();
  connected = [...connected, ...fleet(5, 2000)];
  for (let i = 1; i < sweep.slices; i++) sweep.tick();
  assert.equal(batches.flat().length, 1005, 'the round that had begun probes who was there');
  batches.length = 0;
  for (let i = 0; i < sweep.slices; i++) sweep.tick();
  assert.equal(batches.flat().length, 1010, 'the next round includes the newcomers');
});

test('a small fleet is probed in a few ticks and nothing is sent when no agent is connected', () => {
  const batches: string[][] = [];
  let connected = fleet(3);
  const sweep = new ProbeSweep(
    1000,
    () => connected,
    (ips) => batches.push(ips),
  );
  for (let i = 0; i < sweep.slices; i++) sweep.tick();
  assert.deepEqual(batches, [[connected[0]], [connected[1]], [connected[2]]], 'one agent per tick, then quiet ticks');
  batches.length = 0;
  connected = [];
  for (let i = 0; i < sweep.slices; i++) sweep.tick();
  assert.equal(batches.length, 0, 'no empty dispatches');
});

test.run();

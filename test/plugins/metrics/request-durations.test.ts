// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { test } from 'uvu';
import { RequestDurations } from '../../../plugins/metrics/request-durations';

const bounds = [0.001, 0.01, 0.1, 1];
// On a bound, past every bound, in between, and a series seen once.
const observations: [string, string, string, number][] = [
  ['GET', '/clients', '200', 0.0005],
  ['GET', '/clients', '200', 0.001],
  ['GET', '/clients', '200', 0.05],
  ['GET', '/clients', '200', 7],
  ['POST', '/mode', '400', 0.01],
  ['GET', '/clients', '401', 0.2],
];

test("the metrics text is prom-client's Histogram's for the same observations", async () => {
  const ours = new Registry();
  const durations = new RequestDurations('x_seconds', 'help text', bounds, ours);
  const theirs = new Registry();
  const histogram = new Histogram({
    name: 'x_seconds',
    help: 'help text',
    labelNames: ['method', 'route', 'status'],
    buckets: bounds,
    registers: [theirs],
  });
  for (const [method, route, status, seconds] of observations) {
    durations.observe(method, route, status, seconds);
    histogram.observe({ method, route, status }, seconds);
  }
  const text = await ours.metrics();
  assert.equal(text, await theirs.metrics());
  assert.match(text, /x_seconds_bucket\{le="0.001",method="GET",route="\/clients",status="200"\} 2/, 'a value on a bound counts in it');
  assert.match(text, /x_seconds_bucket\{le="\+Inf",method="GET",route="\/clients",status="200"\} 4/);
});

test('reset forgets every series', async () => {
  const registry = new Registry();
  const durations = new RequestDurations('x_seconds', 'help', bounds, registry);
  durations.observe('GET', '/a', '200', 0.5);
  durations.reset();
  assert.doesNotMatch(await registry.metrics(), /x_seconds_count/);
});

test.run();

import assert from 'node:assert/strict';
import { test } from 'uvu';
import { startServer, withServer } from '../../support/server';
import { testEngine } from '../../support/test-db';

test('alone, GET /cluster names this instance, the only one, holding every role', () =>
  withServer(
    async (s) => {
      const r = await s.get('/cluster');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.enabled, false);
      assert.deepEqual(r.body.instances, [r.body.instance]);
      assert.deepEqual([...r.body.roles].sort(), ['audit-prune', 'scheduler']);
    },
    { config: { plugins: ['inventory', 'agents', 'wol', 'groups', 'scheduler', 'audit', 'cluster'] } },
  ));

test('cluster.enabled while the cluster plugin is not enabled is refused, not ignored', async () => {
  await assert.rejects(startServer({ config: { plugins: ['inventory'], cluster: { enabled: true } } }), (error: Error) => {
    assert.match(
      error.message,
      /^config: cluster\.enabled: is true, but plugin 'cluster' is not in plugins: add it there \(\S+, line 1\)$/,
    );
    return true;
  });
});

test('bad cluster settings stop the start with one line naming the key', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ cluster: { enabled: true, instance: 'a b' } }, /config: cluster\.instance: /],
    [{ cluster: { enabled: true, heartbeat_s: 0 } }, /config: cluster\.heartbeat_s: /],
    [{ cluster: { enabled: 'yes' } }, /config: cluster\.enabled: /],
    [{ wol: { networks: ['10.0.0.0/33'] } }, /^wol\.networks\[0\]: '10\.0\.0\.0\/33' is not an IPv4 network like 10\.1\.0\.0\/16$/],
    [{ wol: { networks: ['10.0.0.0'] } }, /^wol\.networks\[0\]: /],
  ];
  if (testEngine === 'postgresql')
    cases.push([
      { cluster: { enabled: true, heartbeat_s: 5, expiry_s: 5 } },
      /^cluster\.expiry_s must be longer than cluster\.heartbeat_s, or live instances would be taken for gone$/,
    ]);
  else
    cases.push([
      { cluster: { enabled: true } },
      new RegExp(`^cluster\\.enabled needs database\\.type 'postgresql' \\(it is '${testEngine}'\\)$`),
    ]);
  for (const [config, message] of cases)
    await assert.rejects(startServer({ config }), (error: Error) => {
      assert.match(error.message, message, JSON.stringify(config));
      return true;
    });
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addRoom } from '../support/fixtures';
import { parsePrometheus } from '../support/prometheus';
import { withPluginFile } from '../support/plugin-file';
import { withServer } from '../support/server';

test('a message the other instances cannot be told is logged with its plugin and topic, and counted; the request still succeeds', async () => {
  // A cluster backend plugin whose link to the others is down: every message is refused.
  const linkDown = (core: string) =>
    `const { definePlugin } = require(${core});
       module.exports = definePlugin({
         name: 'link-down',
         register(ctx) {
           ctx.cluster.connect({
             self: 'here',
             members: () => ['here', 'there'],
             send: async () => { throw new Error('the link to the other instances is down'); },
             open: async () => undefined,
             compete: () => undefined,
             close: async () => undefined,
           });
         },
       });`;
  await withPluginFile('link-down', linkDown, (plugin) =>
    withServer(
      async (s) => {
        const center = await addCenter(s, 'C');
        await addRoom(s, center, 'Lab');
        const lines = s.logs.filter((l) => l.msg.startsWith('could not tell the other instances'));
        assert.ok(lines.length >= 2, `a line for each change told: ${JSON.stringify(lines)}`);
        for (const line of lines) {
          assert.equal(line.level, 'warn');
          assert.equal(line.plugin, 'inventory');
          assert.equal(line.topic, 'inventory.changed');
          assert.match(line.msg, /inventory\.changed: the link to the other instances is down$/);
        }
        const metrics = parsePrometheus((await s.get('/metrics')).text);
        assert.equal(metrics.value('ogserve_cluster_send_failures_total'), lines.length);
      },
      { config: { plugins: ['inventory', 'agents', 'metrics', plugin] } },
    ),
  );
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../support/fake-agent';
import { withPluginFile } from '../support/plugin-file';
import { withServer } from '../support/server';

test('electedEvery: the instance holding the role runs the work at once and then every period; a failed run is logged and the next comes all the same', async () => {
  const every = (core: string) =>
    `const { definePlugin, electedEvery } = require(${core});
       let runs = 0;
       module.exports = definePlugin({
         name: 'every',
         register(ctx) {
           ctx.router.get('/every-runs', { permission: 'read' }, () => ({ runs }));
           ctx.onStop(electedEvery(ctx.cluster, {
             role: 'every', everyMs: 20, log: ctx.log, failed: 'the work failed',
             async run() { runs++; if (runs === 1) throw new Error('the first run fails'); },
           }));
         },
       });`;
  await withPluginFile('every', every, (plugin) =>
    withServer(
      async (s) => {
        await eventually(async () => (await s.get('/every-runs')).body.runs >= 3, 'three runs');
        const failures = s.logs.filter((l) => l.msg === 'the work failed');
        assert.equal(failures.length, 1, 'the first run, logged');
        assert.equal(failures[0]!.level, 'error');
        assert.match(JSON.stringify(failures[0]!.err), /the first run fails/);
      },
      { config: { plugins: ['inventory', plugin] } },
    ),
  );
});

test.run();

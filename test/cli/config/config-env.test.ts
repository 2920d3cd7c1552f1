import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import { Config, packageRoot } from '../../../cli/config';
import agentsPlugin from '../../../plugins/agents';
import imagesPlugin from '../../../plugins/images';
import livePlugin from '../../../plugins/live';
import wolPlugin from '../../../plugins/wol';
import { send, TOKEN } from '../../support/server';
import { runNode } from '../../support/process';
import { freePort } from '../../support/child-server';
import { createApp } from '../../../cli/config';

/**
 * OGSERVE_<SECTION>__<KEY> variables override config keys, typed and validated as the
 * file's values are; container and systemd users configure the service this way.
 */

const mainJs = path.resolve(__dirname, '../../../cli/main.js');
const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

function withSiteFile<T>(values: Record<string, unknown>, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-env-'));
  try {
    const file = path.join(dir, 'site.json');
    writeFileSync(file, JSON.stringify(values));
    return fn(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startError(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-env-'));
  try {
    const file = path.join(dir, 'site.json');
    writeFileSync(file, JSON.stringify({ database: { path: path.join(dir, 'db.sqlite') } }));
    const app = await createApp({ configFile: file, env, logStream: quiet() });
    await app.close();
    return '';
  } catch (error) {
    return (error as Error).message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('variables override the file and the defaults, typed as the schema wants them', () =>
  withSiteFile({ rest: { port: 8000 }, wol: { limited_broadcast: false } }, (file) => {
    const config = new Config(
      file,
      {},
      {
        env: {
          OGSERVE_REST__PORT: '9000',
          OGSERVE_REST__API_TOKEN: '12345',
          OGSERVE_DATABASE__TYPE: 'postgresql',
          OGSERVE_LOG__LEVEL: 'warn',
          OGSERVE_PLUGINS: '["inventory", "stats"]',
        },
      },
    );
    assert.equal(config.core.rest.port, 9000, 'over the file: a number');
    assert.equal(config.core.rest.api_token, '12345', 'a string key stays a string, digits or not');
    assert.equal(config.core.database.type, 'postgresql', 'database.type');
    assert.equal(config.core.log.level, 'warn', 'log.level');
    assert.deepEqual(config.core.plugins, ['inventory', 'stats'], 'a JSON array');
    assert.deepEqual(
      config.envVariables,
      ['OGSERVE_DATABASE__TYPE', 'OGSERVE_LOG__LEVEL', 'OGSERVE_PLUGINS', 'OGSERVE_REST__API_TOKEN', 'OGSERVE_REST__PORT'],
      'the variables used, for the start log',
    );
  }));

test("plugin sections: a dash in the plugin's name is an underscore in the variable; numbers, booleans, lists", () =>
  withSiteFile({}, (file) => {
    const config = new Config(
      file,
      {},
      {
        env: {
          OGSERVE_PXE_MODES__BIOS_DIR: '/srv/tftp/menu.lst',
          OGSERVE_AGENTS__PROBE_INTERVAL_S: '30',
          OGSERVE_WOL__LIMITED_BROADCAST: 'true',
          OGSERVE_PLUGINS: 'inventory, agents, pxe-modes, wol',
          OGSERVE_LIVE__DIRECTORY: 'relative/tftp',
          OGSERVE_REPOSITORY__DIRECTORY: '/srv/images',
        },
      },
    );
    assert.equal((config.raw['pxe-modes'] as Record<string, unknown>).bios_dir, '/srv/tftp/menu.lst', 'the pxe-modes section');
    assert.deepEqual(config.core.plugins, ['inventory', 'agents', 'pxe-modes', 'wol'], 'a comma-separated list');
    assert.equal(config.section('agents', agentsPlugin.config!).probe_interval_s, 30, 'a number');
    assert.equal(config.section('wol', wolPlugin.config!).limited_broadcast, true, 'a boolean');
    assert.equal(
      config.section('live', livePlugin.config!).directory,
      path.resolve('relative/tftp'),
      'a relative path from the environment: the working directory',
    );
    assert.equal(imagesPlugin.section, 'repository', 'images reads the section the reference named');
    assert.equal(config.section('repository', imagesPlugin.config!).directory, '/srv/images', "the images plugin's section");
  }));

test("a third-party plugin's section, known only once the plugin is loaded", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-env-'));
  try {
    const file = path.join(dir, 'site.json');
    const hello = path.join(packageRoot, 'examples', 'hello-complete');
    writeFileSync(
      file,
      JSON.stringify({
        rest: { ip: '127.0.0.1', port: 0, api_token: TOKEN },
        database: { path: path.join(dir, 'db.sqlite') },
        plugins: ['inventory', 'agents', hello],
        agents: { ip: '127.0.0.1', port: 0 },
      }),
    );
    const app = await createApp({ configFile: file, env: { OGSERVE_HELLO__GREETING: 'Hola' }, logStream: quiet() });
    try {
      await app.listen();
      const port = app.restPort();
      await send(port, 'POST', '/center/add', { name: 'c' }, { Authorization: TOKEN });
      await send(port, 'POST', '/room/add', { center: 1, name: 'r', netmask: '255.255.255.0' }, { Authorization: TOKEN });
      await send(port, 'POST', '/client/add', { name: 'pc1', ip: '10.0.0.1', mac: '02:00:00:00:00:01', room: 1 }, { Authorization: TOKEN });
      const r = await send(port, 'GET', '/hello', { client: '10.0.0.1' }, { Authorization: TOKEN });
      assert.equal(r.status, 200, r.text);
      assert.match(JSON.parse(r.text).message, /^Hola, pc1/, 'the greeting came from the environment');
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad values from the environment get the one-line error, naming the variable', async () => {
  assert.equal(
    await startError({ OGSERVE_REST__PORT: 'abc' }),
    'config: rest.port: must be a port number from 0 to 65535 (set by OGSERVE_REST__PORT)',
  );
  assert.equal(
    await startError({ OGSERVE_AGENTS__PROBE_INTERVAL_S: 'often' }),
    'config: agents.probe_interval_s: must be a number (set by OGSERVE_AGENTS__PROBE_INTERVAL_S)',
  );
  assert.equal(await startError({ OGSERVE_PLUGINS: '["inventory", 3]' }), 'config: plugins[1]: must be a string (set by OGSERVE_PLUGINS)');
  assert.match(
    await startError({ OGSERVE_REST__PROT: '1' }),
    /^config: rest\.prot: not a known key \(known: ip, port, .*\) \(set by OGSERVE_REST__PROT\)$/,
  );
  assert.match(
    await startError({ OGSERVE_MYSTERY__X: '1' }),
    /^config: mystery: not a known section \(known: .*\) \(set by OGSERVE_MYSTERY__X\)$/,
  );
  assert.match(await startError({ OGSERVE_REST____PORT: '1' }), /^config: OGSERVE_REST____PORT: not a config key/);
});

test('other OGSERVE_ variables (state directory, test settings) are not config keys', async () => {
  assert.equal(await startError({ OGSERVE_TEST_DB: 'sqlite', OGSERVE_SOMETHING: 'x' }), '', 'started');
});

test('the program reads them: OGSERVE_REST__PORT moves the REST interface', async () => {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-env-'));
  const file = path.join(dir, 'site.json');
  writeFileSync(
    file,
    JSON.stringify({
      rest: { ip: '127.0.0.1', port: 1, api_token: TOKEN },
      agents: { ip: '127.0.0.1', port: 0 },
      database: { path: path.join(dir, 'db.sqlite') },
      plugins: ['inventory', 'agents'],
    }),
  );
  const run = runNode(mainJs, ['--config', file], { env: { ...process.env, OGSERVE_REST__PORT: String(port) } });
  try {
    await run.waitFor(/REST interface listening/);
    assert.equal(
      (await send(port, 'GET', '/scopes', undefined, { Authorization: TOKEN })).status,
      200,
      'answers on the port of the variable',
    );
    assert.ok(
      run.lines.some((l) => l.includes(`config ${file}, overridden by OGSERVE_REST__PORT`)),
      'the start log names the variable',
    );
  } finally {
    await run.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addClient, addRoom, macFor } from '../support/fixtures';
import { ogserve } from '../support/process';
import { send, startServer } from '../support/server';

const checkout = path.resolve(__dirname, '..', '..', '..');
const example = path.join(checkout, 'examples', 'notes-plugin');

/**
 * The environment of an author's shell: none of the npm settings of the run this test is in
 * (`npm test --ignore-scripts`, as CI runs it, would keep sqlite3 from building in the project).
 */
const authorsEnv: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/**
 * sqlite3's install fetches its prebuilt binary from GitHub, which this machine cannot reach:
 * it would compile SQLite instead, twice, most of this test's minutes. The checkout's own
 * binary (the same version, Node-API) is offered as that download, in the folder
 * prebuild-install looks in first (`npm_config_sqlite3_local_prebuilds`), under the name of
 * the release file it would fetch.
 */
async function offerSqlitePrebuild(work: string): Promise<void> {
  const sqlite = path.dirname(require.resolve('sqlite3/package.json'));
  const { version, binary } = JSON.parse(readFileSync(path.join(sqlite, 'package.json'), 'utf8')) as {
    version: string;
    binary: { napi_versions: number[] };
  };
  const napi = Math.max(...binary.napi_versions.filter((v) => v <= Number(process.versions.napi)));
  const folder = path.join(work, 'prebuilds');
  mkdirSync(folder);
  const name = `sqlite3-v${version}-napi-v${napi}-${process.platform}-${process.arch}.tar.gz`;
  const packed = await run(sqlite, 'tar', ['czf', path.join(folder, name), 'build/Release/node_sqlite3.node']);
  assert.equal(packed.code, 0, packed.output);
  authorsEnv.npm_config_sqlite3_local_prebuilds = folder;
}

/** A program run to its end in `cwd`; its output in the assertion's message when it fails. */
function run(cwd: string, command: string, args: string[]): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: authorsEnv, maxBuffer: 64 * 2 ** 20, timeout: 600_000 }, (error, stdout, stderr) => {
      // Killed at the timeout, npm says nothing of why: the output does.
      const killed = error?.killed ? `\n${command} ${args.join(' ')} was killed after 600 s (error.signal ${error.signal})` : '';
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, output: `${stdout}${stderr}${killed}` });
    });
  });
}

/** npm from the registry's packages this machine already fetched (the checkout's install), without audit or funding noise. */
const npm = (cwd: string, ...args: string[]) => run(cwd, 'npm', [...args, '--prefer-offline', '--no-audit', '--no-fund']);

/**
 * The path a plugin author takes, outside the checkout, with nothing but the docs: the
 * TypeScript plugin of docs/writing-a-plugin.md (examples/notes-plugin: an entity, a decorated
 * service, a scoped route naming its client as a string, a hook, an event, a permission, and a
 * test of its own on ogserve/testing), ogserve installed into its project from `npm pack` of
 * this build, compiled with tsc, its own test run; then packed itself and installed beside a
 * site's config, which loads it by package name.
 */
test('a TypeScript plugin made as the docs say works the first time: installed from npm pack, compiled, its own test passing, loaded by package name', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'ogserve-outside-plugin-'));
  try {
    await offerSqlitePrebuild(work);
    const packed = await npm(checkout, 'pack', '--ignore-scripts', '--pack-destination', work);
    assert.equal(packed.code, 0, packed.output);
    const tarball = path.join(work, packed.stdout.trim().split('\n').at(-1)!);
    const shipped = (await run(work, 'tar', ['tzf', tarball])).output;
    assert.doesNotMatch(shipped, /package\/dist\/(test|bench)\//, 'the package ships no tests or benches');

    const project = path.join(work, 'notes');
    cpSync(example, project, { recursive: true, filter: (source) => !/\/(node_modules|dist)$/.test(source) });
    const installed = await npm(project, 'install', '--save-dev', tarball);
    assert.equal(installed.code, 0, installed.output);
    const own = await run(project, 'npm', ['test']);
    assert.equal(own.code, 0, `the plugin's own test (tsc, then node --test):\n${own.output}`);
    assert.match(own.output, /# pass 1\n# fail 0/, own.output);

    // The types are real: a wrong one is caught.
    const source = readFileSync(path.join(project, 'src', 'index.ts'), 'utf8');
    writeFileSync(
      path.join(project, 'src', 'index.ts'),
      source.replace('{ client: body.client, text: body.text }', '{ client: 7, text: body.text }'),
    );
    const wrong = await run(project, process.execPath, [path.join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.']);
    assert.match(wrong.output, /src\/index\.ts\(\d+,\d+\): error TS2322/, `an event's payload is checked:\n${wrong.output}`);
    writeFileSync(path.join(project, 'src', 'index.ts'), source);
    assert.equal((await run(project, 'npm', ['run', 'build'])).code, 0);

    // A site installs the plugin's package beside its config and lists it by name.
    const site = path.join(work, 'site');
    const plugin = await npm(project, 'pack', '--pack-destination', work);
    assert.equal(plugin.code, 0, plugin.output);
    const siteInstall = await npm(work, 'install', '--prefix', site, path.join(work, plugin.stdout.trim().split('\n').at(-1)!));
    assert.equal(siteInstall.code, 0, siteInstall.output);
    const defaults = JSON.parse(readFileSync(path.join(checkout, 'config', 'default.json'), 'utf8')) as { plugins: string[] };
    const s = await startServer({ dir: site, config: { plugins: [...defaults.plugins, 'ogserve-plugin-notes'] } });
    try {
      const lab = await addRoom(s, await addCenter(s, 'School'), 'Lab', '255.0.0.0');
      const office = await addRoom(s, await addCenter(s, 'Office'), 'Desk', '255.0.0.0');
      await addClient(s, lab, '127.0.50.6', macFor(0x506));
      await addClient(s, office, '127.0.51.6', macFor(0x516));
      assert.equal((await s.post('/notes', { client: '127.0.50.6', text: 'new disk' })).status, 200);
      assert.deepEqual((await s.get('/notes', { client: '127.0.50.6' })).body.notes, [{ id: 1, text: 'new disk' }]);
      const desk = await s.post('/tokens', { name: 'desk', role: 'operator', rooms: [lab] });
      const as = { Authorization: desk.body.secret };
      assert.equal((await send(s.port, 'POST', '/notes', { client: '127.0.50.6', text: 'checked' }, as)).status, 200);
      const outside = await send(s.port, 'POST', '/notes', { client: '127.0.51.6', text: 'x' }, as);
      assert.equal(outside.status, 403, outside.text);
      const api = (await s.get('/openapi.json')).body;
      assert.equal(api.paths['/notes'].post['x-ogserve-permission'], 'notes', 'the permission a route needs is in its operation');

      const listed = await ogserve(['plugins', '--config', path.join(site, 'config.json')]);
      assert.equal(listed.code, 0, listed.stderr);
      const line = listed.stdout.split('\n').find((l) => l.startsWith('notes '));
      assert.match(
        line ?? '',
        /^notes +1\.0\.0 +\S+\/site\/node_modules\/ogserve-plugin-notes\/dist\/src\/index\.js +requires inventory$/,
        listed.stdout,
      );
    } finally {
      await s.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();

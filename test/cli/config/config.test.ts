// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { Writable } from 'node:stream';
import { Config, packageRoot } from '../../../cli/config';
import { AgentLink } from '../../../plugins/agents';
import images from '../../../plugins/images';
import pxeModes from '../../../plugins/pxe-modes';
import { freePort } from '../../support/child-server';
import { startServer } from '../../support/server';
import { createApp } from '../../../cli/config';

const mainJs = path.resolve(__dirname, '../../../cli/main.js');

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'ogserve-config-'));
}

/**
 * The message of the error a site file holding `values` (and `env`) gets, up to the plugins'
 * sections, with the file's path written FILE. The file has one key per line (JSON.stringify's
 * two-space layout), as a person writes it.
 */
async function configError(values: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const dir = tempDir();
  const file = path.join(dir, 'c.json');
  try {
    writeFileSync(file, JSON.stringify({ database: { path: path.join(dir, 'db.sqlite') }, ...values }, null, 2));
    const app = await createApp({ configFile: file, env, logStream: new Writable({ write: (_c, _e, done) => done() }) });
    await app.close();
    return '';
  } catch (error) {
    return (error as Error).message.split(file).join('FILE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `config: <key>: <problem> (FILE, line <n>)`, exactly, with the key not repeated in the problem. */
async function assertProblem(values: Record<string, unknown>, key: string, problem: string, line: number): Promise<void> {
  const message = await configError(values);
  assert.equal(message, `config: ${key}: ${problem} (FILE, line ${line})`, JSON.stringify(values));
  assert.ok(!problem.includes(key), `the problem does not repeat the key: ${problem}`);
}

test('unknown keys are an error naming them and the keys there are', async () => {
  await assertProblem(
    { rest: { prot: 1 } },
    'rest.prot',
    'not a known key (known: ip, port, api_token, api_token_file, max_response_bytes, max_request_bytes, max_json_depth, max_key_failures, shutdown_grace_s, tls, public_url, trusted_proxies)',
    6,
  );
  assert.match(await configError({ database: { hostname: 'x' } }), /^config: database\.hostname: not a known key \(known: type, path, /);
  assert.match(
    await configError({ agents: { prot: 1 } }),
    /^config: agents\.prot: not a known key \(known: ip, port, /,
    "a plugin's section",
  );
});

test('every bad value is one line, config: <key>: <problem>, listing the allowed values where there is a list', async () => {
  await assertProblem({ rest: { port: 'eighty' } }, 'rest.port', 'must be a port number from 0 to 65535', 6);
  await assertProblem({ rest: { port: 70000 } }, 'rest.port', 'must be a port number from 0 to 65535', 6);
  await assertProblem({ rest: { port: '99999' } }, 'rest.port', 'must be a port number from 0 to 65535', 6);
  await assertProblem({ database: { type: 'oracle' } }, 'database.type', 'must be one of sqlite, mariadb, mysql, postgresql', 3);
  await assertProblem({ log: { level: 'loud' } }, 'log.level', 'must be one of fatal, error, warn, info, debug, trace, silent', 6);
  await assertProblem({ rest: { max_response_bytes: 'big' } }, 'rest.max_response_bytes', 'must be an integer', 6);
  await assertProblem({ rest: { max_response_bytes: 10 } }, 'rest.max_response_bytes', 'must be at least 1024', 6);
  await assertProblem({ rest: { api_token: '' } }, 'rest.api_token', 'must not be empty', 6);
  await assertProblem({ rest: 'x' }, 'rest', 'must be a section (a JSON object)', 5);
  await assertProblem({ plugins: ['inventory', ''] }, 'plugins[1]', 'must not be empty', 7);
  await assertProblem({ inventory: { setup_size_unit: 'MB' } }, 'inventory.setup_size_unit', 'must be one of bytes, KiB', 6);
  await assertProblem({ stats: { start: 'boot' } }, 'stats.start', 'must be one of epoch, uptime', 6);
  await assertProblem({ agents: { port: 'x' } }, 'agents.port', 'must be a port number from 0 to 65535', 6);
  await assertProblem({ agents: { ip: 'here' } }, 'agents.ip', 'must be an IPv4 address', 6);
  await assertProblem({ agents: { probe_timeout_s: 0 } }, 'agents.probe_timeout_s', 'must be greater than 0', 6);
  await assertProblem({ wol: { limited_broadcast: 'yes' } }, 'wol.limited_broadcast', 'must be true or false', 6);
  await assertProblem(
    { 'pxe-modes': { server_ip: 'x' } },
    'pxe-modes.server_ip',
    'must be an IPv4 address, or empty for the automatic choice',
    6,
  );
  // A value that misses its key's pattern is told what the key expects, not the pattern.
  await assertProblem({ rest: { public_url: 'http://ogserve.example.edu' } }, 'rest.public_url', 'must be an https:// URL, or empty', 6);
  await assertProblem(
    { boot: { unknown_client: 'no such mode!' } },
    'boot.unknown_client',
    'must be a mode name such as local, ogLive or discover, or networks to mode names ({"10.1.3.0/24": "discover", "*": "local"})',
    6,
  );
});

test('agents.port takes digits in a string, as rest.port does', async () => {
  const port = await freePort();
  const s = await startServer({ config: { agents: { port: String(port) } } });
  try {
    assert.equal(s.app.container.resolve(AgentLink).port(), port, 'the agent interface listens on that port');
  } finally {
    await s.close();
  }
});

test('relative paths resolve against the directory of the file that set them', () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'site.json');
    writeFileSync(file, JSON.stringify({ database: { path: 'data/og.sqlite' }, repository: { directory: '/srv/images' } }));
    const config = new Config(file, {}, { env: {} });
    assert.equal(config.core.database.path, path.join(dir, 'data/og.sqlite'), 'relative to the site file');
    assert.equal(config.section('repository', images.config!).directory, '/srv/images', 'absolute kept');
    assert.equal(
      config.core.rest.api_token_file,
      path.join(packageRoot, 'var', 'api-token'),
      "defaults go to the checkout's state directory, var/",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the state directory: --state-dir, else OGSERVE_STATE_DIR, else systemd STATE_DIRECTORY, else var/ of the checkout', () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'site.json');
    writeFileSync(file, JSON.stringify({ 'pxe-modes': { lang: 'es' } }));
    const env = { OGSERVE_STATE_DIR: '/srv/og', STATE_DIRECTORY: '/var/lib/ogserve:/var/lib/other' };
    assert.deepEqual(new Config(file, {}, { env, stateDir: 'state' }).stateDir, { dir: path.resolve('state'), how: '--state-dir' });
    assert.deepEqual(new Config(file, {}, { env }).stateDir, { dir: '/srv/og', how: 'OGSERVE_STATE_DIR' });
    assert.deepEqual(new Config(file, {}, { env: { STATE_DIRECTORY: env.STATE_DIRECTORY } }).stateDir, {
      dir: '/var/lib/ogserve',
      how: 'systemd StateDirectory',
    });
    assert.deepEqual(new Config(file, {}, { env: {} }).stateDir.dir, path.join(packageRoot, 'var'), 'a checkout');

    const installed = new Config(file, {}, { env: { STATE_DIRECTORY: '/var/lib/ogserve' } });
    assert.equal(installed.core.database.path, '/var/lib/ogserve/ogserve.sqlite', 'the default database');
    assert.equal(installed.core.rest.api_token_file, '/var/lib/ogserve/api-token', 'the default key file');
    assert.equal(installed.section('repository', images.config!).directory, '/var/lib/ogserve/images', 'the default image folder');
    const pxe = installed.section('pxe-modes', pxeModes.config!);
    assert.equal(pxe.bios_dir, '/var/lib/ogserve/tftpboot/menu.lst', "a plugin's data path, in a section the site file set");
    assert.equal(
      pxe.templates_dir,
      path.join(packageRoot, 'templates', 'pxe'),
      'shipped templates: from the install, not the config folder',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a reference ogserver.json (string ports, database keys) is accepted', () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'ogserver.json');
    writeFileSync(
      file,
      JSON.stringify({
        rest: { ip: '127.0.0.1', port: '18888', api_token: 'reference-key' },
        database: { ip: 'localhost', port: '3306', name: 'ogAdmBD', user: 'usuog', pass: 'passusuog' },
        repository: { directory: '/opt/opengnsys/images' },
      }),
    );
    const config = new Config(file, {}, { env: {} });
    assert.equal(config.core.rest.port, 18888, 'string port read as a number');
    assert.equal(config.core.database.port, 3306, 'database port');
    assert.equal(config.core.rest.api_token, 'reference-key', 'api token');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unknown top-level section is refused at startup, listing the known ones once each', async () => {
  // The scheduler off, so that a disabled bundled plugin is among the known.
  const message = await configError({ mystery: {}, plugins: ['-scheduler'] });
  assert.match(
    message,
    /^config: mystery: not a known section \(known: rest, database, log, plugins, site, repository, inventory, agents, .*\) \(FILE, line 5\)$/,
  );
  const known = /\(known: ([^)]*)\)/.exec(message)![1]!.split(', ');
  assert.deepEqual(
    known.filter((name, i) => known.indexOf(name) !== i),
    [],
    'no name twice (an enabled bundled plugin is also a bundled one)',
  );
  assert.ok(known.includes('scheduler'), 'a disabled bundled plugin is known');
});

test("a section config/default.json ships is known while the plugin reading it is off (images reads 'repository')", async () => {
  assert.equal(await configError({ plugins: ['inventory'], repository: { directory: '/srv/images' } }), '', 'images off');
  assert.match(await configError({ repository: { directory: 7 } }), /^config: repository\.directory: /, 'images on: its schema checks it');
});

/** The message of a site file holding exactly `text`, with its path written FILE. */
function fileError(text: string): string {
  const dir = tempDir();
  const file = path.join(dir, 'site.json');
  try {
    writeFileSync(file, text);
    new Config(file, {}, { env: {} });
    return '';
  } catch (error) {
    return (error as Error).message.split(file).join('FILE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a site file that is not JSON: the line and column of the mistake, and what is wrong there', () => {
  const cases: [string, string][] = [
    ['{\n  "rest": {\n    "port": 8000,\n  }\n}\n', "line 3, column 17: a comma before '}' (JSON allows none after the last key)"],
    ['{\n  "rest": { "port": 8000 }\n  "agents": {}\n}\n', "line 3, column 3: expected ',' or '}' after a value"],
    ['{\n  "plugins": ["inventory", "agents",]\n}\n', "line 2, column 36: a comma before ']' (JSON allows none after the last item)"],
    ["{\n  'rest': {}\n}\n", 'line 2, column 3: expected a key in double quotes'],
    ['{\n  "wol": { "interface": \'eth0\' }\n}\n', 'line 2, column 25: strings take double quotes'],
    [
      '{\n  "shell": { "scripts_dir": "C:\\scripts" }\n}\n',
      "line 2, column 32: '\\s' is not an escape JSON knows (a backslash is written \\\\)",
    ],
    ['{\n  "rest": {\n    "port": 8000\n', "line 4, column 1: the text ends inside a section: '}' is missing"],
    ['{\n  "log": { "level": "info }\n}\n', 'line 2, column 21: a string is not closed'],
    ['{\n  "rest": { "port": 8000 }\n}\n}\n', 'line 4, column 1: more after the end of the JSON value'],
  ];
  for (const [text, where] of cases) assert.equal(fileError(text), `config: FILE is not valid JSON: ${where}`, text);
});

test('a site file nesting lists 100,000 deep is refused where it passes 64 levels, not with a stack overflow', () => {
  const deep = (levels: number) => `{\n  "rest": ${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}\n}\n`;
  assert.equal(
    fileError(deep(100_000)),
    'config: FILE is not valid JSON: line 2, column 74: sections and lists nest more than 64 deep here',
  );
  assert.equal(fileError(deep(64)), 'config: rest: must be a section (a JSON object) (FILE, line 2)', '64 deep is read, then judged');
});

test('a byte order mark before the JSON (some editors write one) is not a mistake', () => {
  assert.equal(fileError('\uFEFF{ "rest": { "port": 9000 } }'), '');
});

test('a bad value set in a site file is named with the file and its line', async () => {
  const message = fileError('{\n  "rest": {\n    "ip": "127.0.0.1",\n    "port": "eighty"\n  }\n}\n');
  assert.equal(message, 'config: rest.port: must be a port number from 0 to 65535 (FILE, line 4)');
  assert.equal(
    await configError({ rest: { ip: '127.0.0.1' }, cluster: { enabled: true }, plugins: ['inventory'] }),
    "config: cluster.enabled: is true, but plugin 'cluster' is not in plugins: add it there (FILE, line 9)",
    "a plugin's section",
  );
  assert.match(await configError({}, { OGSERVE_REST__PORT: 'x' }), /\(set by OGSERVE_REST__PORT\)$/, 'a variable is named, not a line');
});

/** The enabled plugins of a site file (`undefined`: none) with `env`. */
function pluginsOf(plugins: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'site.json');
    writeFileSync(file, JSON.stringify(plugins === undefined ? {} : { plugins }, null, 2));
    return new Config(file, {}, { env }).core.plugins;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('plugins: +name and -name change the default list, plain names replace it', () => {
  const defaults = pluginsOf(undefined);
  assert.ok(defaults.includes('console') && defaults.includes('scheduler'), 'the defaults: console and scheduler on');
  const withoutScheduler = defaults.filter((p) => p !== 'scheduler');
  assert.deepEqual(
    pluginsOf(['-scheduler', '-console']),
    withoutScheduler.filter((p) => p !== 'console'),
  );
  assert.deepEqual(pluginsOf(['-scheduler', '+scheduler']), [...withoutScheduler, 'scheduler'], 'added again: at the end');
  assert.deepEqual(pluginsOf(['+inventory']), defaults, 'adding one already on changes nothing');
  assert.deepEqual(pluginsOf(['inventory', 'wol']), ['inventory', 'wol'], 'a full list, as before');
  assert.deepEqual(pluginsOf(undefined, { OGSERVE_PLUGINS: '-scheduler' }), withoutScheduler, 'a variable changes the defaults');
  assert.deepEqual(
    pluginsOf(['inventory', 'wol'], { OGSERVE_PLUGINS: '-wol,+agents' }),
    ['inventory', 'agents'],
    "a variable's changes apply to the site file's list",
  );
  assert.deepEqual(pluginsOf(['inventory'], { OGSERVE_PLUGINS: '["+wol"]' }), ['inventory', 'wol'], 'as a JSON list too');
});

test('plugins: a change that cannot be made names its place in the list', () => {
  const error = (plugins: unknown, env: NodeJS.ProcessEnv = {}) => {
    try {
      pluginsOf(plugins, env);
      return '';
    } catch (e) {
      return (e as Error).message.replace(/ \(\/\S+site\.json, line \d+\)$/, ' (FILE)');
    }
  };
  assert.match(
    error(['-scheduler', '-consle']),
    /^config: plugins\[1\]: removes 'consle', which is not enabled \(enabled: inventory, (?!.*scheduler)[a-z, -]*\) \(FILE\)$/,
  );
  assert.equal(
    error(['+scheduler', 'inventory']),
    "config: plugins[1]: is a plugin name in a list of changes: write '+inventory' to add it, or list every plugin without + and - (FILE)",
  );
  assert.equal(error(['-']), "config: plugins[0]: names no plugin after '-' (FILE)");
  assert.equal(error(['+wol', 3]), 'config: plugins[1]: must be a string (FILE)');
  assert.equal(
    error(['inventory'], { OGSERVE_PLUGINS: '-wol' }),
    "config: plugins[0]: removes 'wol', which is not enabled (enabled: inventory) (set by OGSERVE_PLUGINS)",
  );
});

test('npm start with a bad config exits non-zero with one clear line', () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ rest: { port: 'x' } }));
    const run = spawnSync(process.execPath, [mainJs, '--config', file], { encoding: 'utf8', timeout: 20000 });
    assert.equal(run.status, 1, 'exit code');
    assert.match(run.stderr, /^ogserve: config: rest\.port/m, run.stderr);
    const missing = spawnSync(process.execPath, [mainJs, '--config', path.join(dir, 'nope.json')], { encoding: 'utf8', timeout: 20000 });
    assert.equal(missing.status, 1, 'missing file exit code');
    assert.match(missing.stderr, /cannot read/, missing.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Start the service and stop it again, closing whatever it opened even when the start fails. */
async function startAndClose(configFile: string, logStream: { write(line: string): void }): Promise<void> {
  const app = await createApp({ configFile, logStream });
  try {
    await app.listen();
  } finally {
    await app.close();
  }
}

test('without rest.api_token a key is generated once, kept with mode 0600 and reused', async () => {
  const dir = tempDir();
  try {
    const tokenFile = path.join(dir, 'var', 'api-token');
    mkdirSync(path.join(dir, 'var'));
    const file = path.join(dir, 'c.json');
    // Loopback and ephemeral ports for every listener, and the boot folders in the temp dir.
    writeFileSync(
      file,
      JSON.stringify({
        rest: { ip: '127.0.0.1', port: 0, api_token_file: 'var/api-token' },
        agents: { ip: '127.0.0.1', port: 0 },
        database: { path: 'var/db.sqlite' },
        'pxe-modes': { bios_dir: 'var/menu.lst', uefi_dir: 'var/grub' },
        live: { directory: 'var/tftpboot' },
      }),
    );
    const lines: string[] = [];
    const logStream = { write: (line: string) => lines.push(line) };
    await startAndClose(file, logStream);
    const token = readFileSync(tokenFile, 'utf8').trim();
    assert.match(token, /^[0-9a-f]{48}$/, 'random hex key');
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600, 'file mode 0600');
    assert.ok(
      lines.some((l) => l.includes(tokenFile)),
      'the log says where the key is',
    );
    await startAndClose(file, logStream);
    assert.equal(readFileSync(tokenFile, 'utf8').trim(), token, 'the same key on the next start');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

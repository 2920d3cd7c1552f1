import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { App } from '../../core/app';
import { Config } from '../../core/config';

const mainJs = path.resolve(__dirname, '../../cli/main.js');

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'ogserve-config-'));
}

function configError(values: Record<string, unknown>): string {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'c.json');
    writeFileSync(file, JSON.stringify(values));
    try {
      new Config(file);
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('unknown keys are an error naming them', () => {
  assert.match(configError({ rest: { prot: 1 } }), /rest\.prot.*not a known key/);
  assert.match(configError({ database: { hostname: 'x' } }), /database\.hostname/);
});

test('bad values are an error naming the key', () => {
  assert.match(configError({ rest: { port: 'eighty' } }), /rest\.port/);
  assert.match(configError({ database: { type: 'oracle' } }), /database\.type/);
  assert.match(configError({ rest: { max_response_bytes: 'big' } }), /rest\.max_response_bytes/);
});

test('relative paths resolve against the directory of the file that set them', () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'site.json');
    writeFileSync(file, JSON.stringify({ database: { path: 'data/og.sqlite' }, repository: { directory: '/srv/images' } }));
    const config = new Config(file);
    assert.equal(config.core.database.path, path.join(dir, 'data/og.sqlite'), 'relative to the site file');
    assert.equal(config.core.repository.directory, '/srv/images', 'absolute kept');
    assert.ok(path.isAbsolute(config.core.rest.api_token_file), 'defaults resolve against the package root');
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
        rest: { ip: '127.0.0.1', port: '8888', api_token: 'reference-key' },
        database: { ip: 'localhost', port: '3306', name: 'ogAdmBD', user: 'usuog', pass: 'passusuog' },
        repository: { directory: '/opt/opengnsys/images' },
      }),
    );
    const config = new Config(file);
    assert.equal(config.core.rest.port, 8888, 'string port read as a number');
    assert.equal(config.core.database.port, 3306, 'database port');
    assert.equal(config.core.rest.api_token, 'reference-key', 'api token');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unknown top-level section is refused at startup', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ database: { path: path.join(dir, 'db.sqlite') }, mystery: {} }));
    await assert.rejects(App.create({ configFile: file }), /unknown key 'mystery'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  const app = await App.create({ configFile, logStream });
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

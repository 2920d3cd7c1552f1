// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';

/**
 * The systemd unit's writable paths follow the configured folders: packaging/unit-paths.mjs
 * turns the config the service reads into the ReadWritePaths= drop-in for the folders it
 * writes outside its state directory (ProtectSystem=strict makes the rest read-only).
 */

const checkout = path.resolve(__dirname, '../../..');
const script = path.join(checkout, 'packaging', 'unit-paths.mjs');

function unitPaths(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env }, timeout: 30_000 });
}

function site(): { root: string; state: string; file: (values: Record<string, unknown>) => string } {
  const root = mkdtempSync(path.join(tmpdir(), 'ogserve-unit-'));
  const state = path.join(root, 'var/lib/ogserve');
  mkdirSync(state, { recursive: true });
  return {
    root,
    state,
    file(values) {
      const file = path.join(root, 'ogserve.json');
      writeFileSync(file, JSON.stringify(values));
      return file;
    },
  };
}

test('folders moved out of the state directory are made writable; those inside it, and shipped templates, are not', () => {
  const { root, state, file } = site();
  try {
    const tftp = path.join(root, 'srv/tftp');
    mkdirSync(path.join(tftp, 'menu.lst'), { recursive: true });
    mkdirSync(path.join(tftp, 'grub'), { recursive: true });
    const images = path.join(root, 'opt/opengnsys/images');
    const config = file({
      'pxe-modes': { bios_dir: path.join(tftp, 'menu.lst'), uefi_dir: path.join(tftp, 'grub') },
      live: { directory: tftp },
      repository: { directory: images },
      database: { path: path.join(root, 'data/og.sqlite') },
    });
    const run = unitPaths(['--config', config, '--state-dir', state]);
    assert.equal(run.status, 0, run.stderr);
    const allowed = run.stdout.split('\n').find((l) => l.startsWith('ReadWritePaths='));
    // The boot folders are inside live.directory, listed once; the image folder does not
    // exist yet (systemd skips it while missing); the SQLite file's folder, not the file.
    assert.equal(allowed, `ReadWritePaths=-${path.join(root, 'data')} -${images} ${tftp}`);
    assert.match(
      run.stdout,
      new RegExp(`^# {3}${images}: repository\\.directory \\(does not exist yet: make it, owned by ogserve\\)$`, 'm'),
    );
    assert.match(run.stdout, /^\[Service\]$/m);
    assert.ok(!run.stdout.includes(state), 'nothing inside the state directory');
    assert.ok(!run.stdout.includes('templates'), 'the shipped templates are only read');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the defaults keep everything in the state directory: no ReadWritePaths line; --write writes the drop-in', () => {
  const { root, state, file } = site();
  try {
    const dropIn = path.join(root, 'etc/systemd/system/ogserve.service.d/paths.conf');
    const run = unitPaths(['--config', file({}), '--state-dir', state, '--write', dropIn]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `${dropIn}: no folder outside the state directory\n`);
    const text = readFileSync(dropIn, 'utf8');
    assert.match(text, /^\[Service\]$/m);
    assert.ok(!text.includes('ReadWritePaths='), text);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('as the service: environment variables apply, a server database has no file, a bad config is one line', () => {
  const { root, state, file } = site();
  try {
    const scripts = path.join(root, 'srv/scripts');
    const config = file({ database: { type: 'postgresql', path: path.join(root, 'nowhere/og.sqlite') } });
    const run = unitPaths(['--config', config, '--state-dir', state], { OGSERVE_SHELL__SCRIPTS_DIR: scripts });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^ReadWritePaths=-${scripts}$`, 'm'));
    assert.ok(!run.stdout.includes('nowhere'), 'database.path means nothing on a server');
    const bad = unitPaths(['--config', file({ rest: { port: 'x' } }), '--state-dir', state]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^unit-paths: config: rest\.port: must be a port number from 0 to 65535 \(\S+, line 1\)\n$/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the unit names the state and log directories writable and points to the drop-in', () => {
  const unit = readFileSync(path.join(checkout, 'packaging', 'ogserve.service'), 'utf8');
  assert.match(unit, /^ProtectSystem=strict$/m);
  assert.match(unit, /^ReadWritePaths=\/var\/lib\/ogserve \/var\/log\/ogserve$/m);
  assert.match(unit, /packaging\/unit-paths\.mjs/);
});

test.run();

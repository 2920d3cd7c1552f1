// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import { send } from '../support/server';
import { runNode } from '../support/process';

/**
 * The appliance layout of docs/operations.md, "Installing on an appliance", in a temporary root:
 * the program in /opt/ogserve, packaging/ogserve.json as /etc/ogserve/ogserve.json, and the
 * service started as packaging/ogserve.service starts it (its ExecStart, WorkingDirectory,
 * and the STATE_DIRECTORY systemd sets for StateDirectory=). Data must land under
 * /var/lib/ogserve, templates come from the install, nothing is written beside the config.
 */

const checkout = path.resolve(__dirname, '../../..');

function unitValue(unit: string, key: string): string {
  const line = unit.split('\n').find((l) => l.startsWith(`${key}=`));
  assert.ok(line, `the unit sets ${key}`);
  return line.slice(key.length + 1).trim();
}

test('installed as docs/operations.md says, the service keeps its data in the state directory and finds its templates', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'ogserve-appliance-'));
  const at = (absolute: string) => path.join(root, absolute);
  try {
    // sudo cp -r . /opt/ogserve && npm ci && npm run build (the compiled tree, and the packages installed).
    for (const part of ['dist', 'config', 'templates', 'package.json'])
      cpSync(path.join(checkout, part), at(`/opt/ogserve/${part}`), { recursive: true });
    symlinkSync(path.join(checkout, 'node_modules'), at('/opt/ogserve/node_modules'));
    // sudo cp packaging/ogserve.json /etc/ogserve/ogserve.json
    mkdirSync(at('/etc/ogserve'), { recursive: true });
    cpSync(path.join(checkout, 'packaging', 'ogserve.json'), at('/etc/ogserve/ogserve.json'));

    const unit = readFileSync(path.join(checkout, 'packaging', 'ogserve.service'), 'utf8');
    const [node, main, ...args] = unitValue(unit, 'ExecStart').split(/\s+/);
    assert.equal(node, '/usr/bin/node', 'the unit runs node');
    const stateDir = at(`/var/lib/${unitValue(unit, 'StateDirectory')}`);
    const workDir = at(unitValue(unit, 'WorkingDirectory'));
    mkdirSync(stateDir, { recursive: true }); // systemd creates it, owned by the service user
    const run = runNode(
      at(main!),
      args.map((a) => (a.startsWith('/') ? at(a) : a)),
      {
        cwd: workDir,
        env: {
          PATH: process.env.PATH,
          STATE_DIRECTORY: stateDir,
          // Only this test's addresses: loopback and free ports, never 8888/8889.
          OGSERVE_REST__IP: '127.0.0.1',
          OGSERVE_REST__PORT: '0',
          OGSERVE_AGENTS__IP: '127.0.0.1',
          OGSERVE_AGENTS__PORT: '0',
        },
      },
    );
    try {
      const port = Number((await run.waitFor(/REST interface listening on 127\.0\.0\.1:(\d+)/))[1]);
      // ExecStartPost: the unit counts as started once the service answers GET /readyz.
      const [postNode, postMain, ...postArgs] = unitValue(unit, 'ExecStartPost').split(/\s+/);
      assert.equal(postNode, '/usr/bin/node');
      const ready = spawnSync(process.execPath, [at(postMain!), ...postArgs.map((a) => (a.startsWith('/') ? at(a) : a))], {
        cwd: workDir,
        env: { PATH: process.env.PATH, OGSERVE_REST__IP: '127.0.0.1', OGSERVE_REST__PORT: String(port) },
        encoding: 'utf8',
      });
      assert.equal(ready.status, 0, `wait-ready: ${ready.stderr}`);
      assert.ok(
        run.lines.some((l) => l.includes(`state directory ${stateDir} (systemd StateDirectory)`)),
        'the start log names the state directory',
      );
      const tokenFile = path.join(stateDir, 'api-token');
      assert.equal(statSync(tokenFile).mode & 0o777, 0o600, 'the generated API key is in the state directory, mode 0600');
      const key = readFileSync(tokenFile, 'utf8').trim();
      const call = (method: string, urlPath: string, body?: unknown) => send(port, method, urlPath, body, { Authorization: key });

      const modes = await call('GET', '/mode');
      assert.equal(modes.status, 200, modes.text);
      assert.equal(modes.body.modes.length, 8, `the bundled templates of the install: ${modes.text}`);
      assert.equal((await call('POST', '/center/add', { name: 'school' })).status, 200, 'center');
      assert.equal((await call('POST', '/room/add', { center: 1, name: 'lab', netmask: '255.255.255.0' })).status, 200, 'room');
      const client = await call('POST', '/client/add', { name: 'pc1', ip: '10.0.0.11', mac: '02:00:00:00:00:01', room: 1 });
      assert.equal(client.status, 200, client.text);
      assert.ok(
        existsSync(path.join(stateDir, 'tftpboot', 'menu.lst', '01-02-00-00-00-00-01')),
        'the BIOS boot file under the state directory',
      );
      assert.ok(
        existsSync(path.join(stateDir, 'tftpboot', 'grub', '01-02:00:00:00:00:01')),
        'the UEFI boot file under the state directory',
      );
      assert.ok(existsSync(path.join(stateDir, 'ogserve.sqlite')), 'the database in the state directory');
    } finally {
      await run.kill();
    }
    assert.deepEqual(readdirSync(at('/etc/ogserve')), ['ogserve.json'], 'nothing written beside the config');
    assert.equal(existsSync(at('/opt/ogserve/var')), false, 'nothing written into the install');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();

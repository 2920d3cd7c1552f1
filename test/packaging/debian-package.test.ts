// Engine-independent: runs once, on SQLite.
// The package's whole life as an admin lives it: built, checked by lintian, installed with
// apt-get on a machine without systemd (as a container is), started as the install says and
// by its unit's ExecStart line, upgraded, removed and purged. It installs on this machine, so
// it runs only where asked to (OGSERVE_TEST_PACKAGE=required, as CI sets), as root, where no
// ogserve is installed, and puts the machine's packages back as it found them
// (system-needs.ts).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import {
  apt,
  buildPackage,
  checkout,
  isOnMachine,
  leaveNothing,
  packageField,
  packagesOnMachine,
  putBackPackages,
  run,
  startCommand,
  startUnit,
  unitFile,
} from '../support/debian-package';
import { everyFileRequired, systemNeeds } from '../support/system-needs';

const version = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')).version as string;
/** lintian warnings the README explains ("Installing the Debian package"); any other fails. */
const explainedWarnings = new Set(['embedded-javascript-library', 'privacy-breach-generic']);

const mode = (file: string) => statSync(file).mode & 0o777;
const owner = async (file: string) => (await run('stat', ['-c', '%U:%G', file])).stdout.trim();

async function api(port: number, method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  const token = readFileSync('/var/lib/ogserve/api-token', 'utf8').trim();
  const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
    method,
    headers: { Authorization: token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

test('the .deb: lintian-clean, installed with apt-get, its unit serving, upgraded keeping data and an edited config, removed, purged', async () => {
  // The suite runner skips this file where it may not run; run some other way, it checks again.
  const why = systemNeeds['deb-tools']!.missing(process.env) ?? systemNeeds['package-install']!.missing(process.env);
  if (why) {
    assert.ok(!everyFileRequired(), `the package test cannot run here: ${why}`);
    process.stdout.write(`\n  (the Debian package test did not run: ${why})\n`);
    return;
  }
  const out = mkdtempSync(path.join(os.tmpdir(), 'ogserve-deb-test-'));
  const before = await packagesOnMachine();
  try {
    const first = await buildPackage(version, out);
    assert.equal(path.basename(first), `ogserve_${version}_amd64.deb`);

    const lint = await run('lintian', ['--fail-on', 'error', first]);
    assert.equal(lint.code, 0, `lintian finds errors:\n${lint.stdout}${lint.stderr}`);
    const tags = new Set([...lint.stdout.matchAll(/^[EW]: ogserve: (\S+)/gm)].map((m) => m[1]!));
    assert.deepEqual(
      [...tags].filter((t) => !explainedWarnings.has(t)),
      [],
      `lintian tags the README does not explain:\n${lint.stdout}`,
    );

    const installed = await apt('install', first);
    assert.equal(installed.code, 0, `apt-get install: ${installed.stderr}`);
    // No systemd runs here, as in a container: the install says what to run, and the key is there.
    assert.match(
      installed.stdout,
      /^ogserve: systemd is not running here \(a container\?\): the service was not started\. Start it with 'ogserve serve'$/m,
      installed.stdout,
    );
    assert.match(installed.stdout, /^ {2}API key: \/var\/lib\/ogserve\/api-token\. Configuration: \/etc\/ogserve\/ogserve\.json\./m);
    const key = readFileSync('/var/lib/ogserve/api-token', 'utf8');
    assert.match(key, /^[0-9a-f]{48}\n$/, 'a key as the service makes one');
    assert.equal(await owner('/var/lib/ogserve/api-token'), 'ogserve:ogserve');
    assert.equal(mode('/var/lib/ogserve/api-token'), 0o600);
    assert.equal((await run('/usr/bin/ogserve', ['--version'])).stdout, `ogserve ${version}\n`);
    assert.match(
      (await run('getent', ['passwd', 'ogserve'])).stdout,
      /^ogserve:x:\d+:\d+:[^:]*:\/var\/lib\/ogserve:\/usr\/sbin\/nologin$/m,
    );
    assert.match(await packageField('Conffiles'), /\/etc\/ogserve\/ogserve\.json [0-9a-f]{32}/);
    assert.equal(await owner('/etc/ogserve/ogserve.json'), 'root:ogserve');
    assert.equal(mode('/etc/ogserve/ogserve.json'), 0o640, 'the config may hold a password: not world-readable');
    for (const dir of ['/var/lib/ogserve', '/var/log/ogserve']) {
      assert.equal(await owner(dir), 'ogserve:ogserve', dir);
      assert.equal(mode(dir), 0o750, dir);
    }
    assert.equal(await owner('/usr/lib/ogserve/dist/cli/main.js'), 'root:root');
    const writable = await run('find', ['/usr/lib/ogserve', '-perm', '/022', '-not', '-type', 'l']);
    assert.equal(writable.stdout, '', 'nothing of the program writable but by root');
    assert.ok(
      !existsSync('/usr/lib/ogserve/dist/test') && !existsSync('/usr/lib/ogserve/node_modules/uvu'),
      'no tests, no dev dependencies',
    );

    // The admin edits the configuration: loopback addresses (the test's), any free port.
    const edited = `${JSON.stringify({ rest: { ip: '127.0.0.1', port: 0 }, agents: { ip: '127.0.0.1', port: 0 }, database: { type: 'sqlite' } }, null, 2)}\n`;
    writeFileSync('/etc/ogserve/ogserve.json', edited);

    // What the install said to run, as root in any folder: it serves as the ogserve user, with the key the install made.
    let service = await startCommand('ogserve', ['serve'], '/');
    assert.equal((await fetch(`http://127.0.0.1:${service.port}/readyz`)).status, 200, '/readyz of ogserve serve');
    const uid = (await run('id', ['-u', 'ogserve'])).stdout.trim();
    assert.match(readFileSync(`/proc/${service.pid}/status`, 'utf8'), new RegExp(`^Uid:\\t${uid}\\t`, 'm'), 'runs as ogserve');
    assert.equal((await api(service.port, 'GET', '/scopes')).status, 200, 'the key the install made opens the API');
    assert.doesNotMatch(service.log(), /generated an API key/);
    assert.equal(await service.stop(), 0, `a clean stop:\n${service.log()}`);

    service = await startUnit();
    assert.equal((await fetch(`http://127.0.0.1:${service.port}/readyz`)).status, 200, '/readyz');
    assert.match(service.log(), /starting: config \/etc\/ogserve\/ogserve\.json/);
    assert.match(service.log(), /database: sqlite \/var\/lib\/ogserve\/ogserve\.sqlite/);
    assert.match(service.log(), /boot templates \/usr\/lib\/ogserve\/templates\/pxe/);
    // What the build made beside the code is in the package: the console's page, the API's.
    for (const [page, marker] of [
      ['/console/', '<!doctype html>'],
      ['/docs/', 'swagger-ui'],
    ]) {
      const answer = await fetch(`http://127.0.0.1:${service.port}${page}`);
      assert.equal(answer.status, 200, page);
      assert.ok((await answer.text()).toLowerCase().includes(marker.toLowerCase()), `${page} is the page`);
    }
    assert.equal((await api(service.port, 'POST', '/center/add', { name: 'Kept across the upgrade' })).status, 200);
    assert.equal(await owner('/var/lib/ogserve/ogserve.sqlite'), 'ogserve:ogserve');
    assert.equal(mode('/var/lib/ogserve/ogserve.sqlite'), 0o640, "the unit's UMask");
    assert.equal(mode('/var/lib/ogserve/api-token'), 0o600);
    assert.equal(await service.stop(), 0, `a clean stop:\n${service.log()}`);

    // The wrapper runs a root's command as the service's user: the backup is ogserve's.
    const backup = await run('/usr/bin/ogserve', ['backup', '--to-dir', '/var/backups/ogserve', '--keep', '3']);
    assert.equal(backup.code, 0, backup.stderr);
    const [backupFile] = readdirSync('/var/backups/ogserve');
    assert.ok(backupFile, 'a backup in /var/backups/ogserve');
    assert.equal(await owner(`/var/backups/ogserve/${backupFile}`), 'ogserve:ogserve');

    const newer = await buildPackage(`${version}+upgrade1`, path.join(out, 'newer'));
    const upgraded = await apt('install', newer);
    assert.equal(upgraded.code, 0, `apt-get install (upgrade): ${upgraded.stderr}`);
    assert.match(
      upgraded.stdout,
      /^ogserve: systemd is not running here \(a container\?\): the service was not restarted\./m,
      upgraded.stdout,
    );
    assert.equal(readFileSync('/var/lib/ogserve/api-token', 'utf8'), key, 'the key kept');
    assert.equal(await packageField('Version'), `${version}+upgrade1`);
    assert.equal(readFileSync('/etc/ogserve/ogserve.json', 'utf8'), edited, 'the edited config kept');
    service = await startUnit();
    const scopes = await api(service.port, 'GET', '/scopes');
    assert.equal(scopes.status, 200);
    assert.deepEqual(
      scopes.body.scope.map((s: any) => s.name),
      ['Kept across the upgrade'],
      'the data kept',
    );
    assert.equal(await service.stop(), 0);

    const removed = await apt('remove', 'ogserve');
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok(!existsSync('/usr/lib/ogserve') && !existsSync('/usr/bin/ogserve') && !existsSync(unitFile), 'the program gone');
    assert.ok(existsSync('/var/lib/ogserve/ogserve.sqlite'), 'the state kept on remove');
    assert.equal(readFileSync('/etc/ogserve/ogserve.json', 'utf8'), edited, 'the config kept on remove');

    writeFileSync('/etc/ogserve/site-notes.txt', 'made by the admin\n');
    const purged = await apt('purge', 'ogserve');
    assert.equal(purged.code, 0, purged.stderr);
    for (const gone of [
      '/var/lib/ogserve',
      '/var/log/ogserve',
      '/etc/ogserve/ogserve.json',
      '/etc/systemd/system/multi-user.target.wants/ogserve.service',
    ])
      assert.ok(!existsSync(gone), `${gone} purged`);
    assert.ok(existsSync('/etc/ogserve/site-notes.txt'), "the admin's file in /etc/ogserve stays");
    assert.ok(existsSync(`/var/backups/ogserve/${backupFile}`), 'the backups stay');
    assert.equal(isOnMachine(await packageField('Status')), false, 'dpkg knows nothing of it');
    // What apt-get brought with it (ipxe, libarchive-tools where they were missing) goes too.
    await putBackPackages(before);
    assert.deepEqual(await packagesOnMachine(), before, "the machine's packages as the test found them");
  } finally {
    await leaveNothing();
    await putBackPackages(before);
    rmSync(out, { recursive: true, force: true });
  }
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addRoom } from '../../support/fixtures';
import { withServer } from '../../support/server';

test('a client saved while its boot files cannot be written keeps its record, and the answer says what failed', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    // A file where the BIOS boot folder should be: no boot file can be written there.
    const bios = path.join(s.dir, 'tftpboot', 'menu.lst');
    rmSync(bios, { recursive: true, force: true });
    mkdirSync(path.dirname(bios), { recursive: true });
    writeFileSync(bios, 'not a folder');

    const added = await s.post('/client/add', { name: 'pc', ip: '10.0.0.5', mac: '001122334455', room });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.warnings.length, 1, added.text);
    assert.match(added.body.warnings[0], /^could not write the boot files for 10\.0\.0\.5: .+/);
    const info = await s.get('/client/info', { client: ['10.0.0.5'] });
    assert.equal(info.body.name, 'pc', 'the record stands');
    const logged = s.logs.filter((l) => l.level === 'error' && String(l.msg).startsWith('pxe-modes: could not write the boot files'));
    assert.equal(logged.length, 1, 'the failure is logged once');
    assert.equal(logged[0]!.request, 'POST /client/add', 'with the request that caused it');
    const metrics = await s.get('/metrics');
    assert.match(metrics.text, /^ogserve_event_listener_failures_total 1$/m, 'and counted');

    const updated = await s.post('/client/update', { id: added.body.id, name: 'pc2' });
    assert.equal(updated.status, 200);
    assert.match(updated.body.warnings[0], /^could not write the boot files for 10\.0\.0\.5: /);

    rmSync(bios);
    const fixed = await s.post('/client/update', { id: added.body.id, name: 'pc3' });
    assert.deepEqual(fixed.body, {}, 'no warnings once the files are written');
    const more = await s.post('/client/add', { name: 'pc4', ip: '10.0.0.6', mac: '001122334466', room });
    assert.deepEqual(Object.keys(more.body), ['id']);
  }));

test.run();

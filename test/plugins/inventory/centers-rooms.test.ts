import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addRoom } from '../../support/fixtures';
import { withServer } from '../../support/server';

test('center add, info, update and delete', () =>
  withServer(async (s) => {
    const id = await addCenter(s, 'Main');
    const info = await s.get('/center/info', { id });
    assert.deepEqual(info.body, { id, name: 'Main', comment: '' }, 'info after add');
    assert.equal(
      (await s.post('/center/update', { id: String(id), name: 'Main', comment: 'kept its own name' })).status,
      200,
      'keeping its own name is allowed',
    );
    assert.equal((await s.post('/center/update', { id, name: 'Renamed' })).status, 200, 'rename');
    assert.deepEqual(
      (await s.get('/center/info', { id })).body,
      { id, name: 'Renamed', comment: 'kept its own name' },
      'info after update',
    );
    assert.equal((await s.post('/center/delete', { id: String(id) })).status, 200, 'delete');
    const gone = await s.get('/center/info', { id });
    assert.equal(gone.status, 400, 'info of a deleted center');
    assert.equal(gone.body.error, 'unknown_id', 'error code');
  }));

test("center names are unique; update to another center's name is refused", () =>
  withServer(async (s) => {
    const a = await addCenter(s, 'A');
    await addCenter(s, 'B');
    const dup = await s.post('/center/add', { name: 'A' });
    assert.equal(dup.status, 400, 'duplicate add');
    assert.equal(dup.body.error, 'duplicate', 'error code');
    assert.equal(dup.body.field, 'name', 'field named');
    const clash = await s.post('/center/update', { id: a, name: 'B' });
    assert.equal(clash.status, 400, 'update to a taken name');
    assert.equal(clash.body.field, 'name', 'field named');
  }));

test('deleting an unknown center or room answers 200', () =>
  withServer(async (s) => {
    assert.equal((await s.post('/center/delete', { id: '999' })).status, 200, 'unknown center');
    assert.equal((await s.post('/room/delete', { id: '999' })).status, 200, 'unknown room');
  }));

test('updating an unknown center or room is refused naming id', () =>
  withServer(async (s) => {
    const center = await s.post('/center/update', { id: 42, name: 'x' });
    assert.equal(center.status, 400, 'center');
    assert.equal(center.body.field, 'id', 'field');
    const room = await s.post('/room/update', { id: 42, name: 'x' });
    assert.equal(room.status, 400, 'room');
    assert.equal(room.body.field, 'id', 'field');
  }));

test('room add with every optional field, info and update', () =>
  withServer(async (s) => {
    const center = await addCenter(s);
    const id = await addRoom(s, center, 'Lab 1', '255.255.0.0', {
      gateway: '10.0.0.1',
      location: 'Floor 2',
      ntp: 'ntp.lan',
      dns: '10.0.0.53',
      remote: true,
    });
    const info = await s.get('/room/info', { id });
    assert.deepEqual(
      info.body,
      {
        id,
        name: 'Lab 1',
        center,
        netmask: '255.255.0.0',
        gateway: '10.0.0.1',
        location: 'Floor 2',
        ntp: 'ntp.lan',
        dns: '10.0.0.53',
        remote: true,
        folder_id: 0,
      },
      'info',
    );
    assert.equal(
      (await s.post('/room/update', { id, name: 'Lab 1', gateway: '10.0.0.254', netmask: '255.255.255.0' })).status,
      200,
      'update keeping its name',
    );
    const after = await s.get('/room/info', { id: String(id) });
    assert.equal(after.body.gateway, '10.0.0.254', 'gateway updated');
    assert.equal(after.body.netmask, '255.255.255.0', 'netmask updated');
    assert.equal(after.body.location, 'Floor 2', 'untouched field kept');
  }));

test('room names are unique within a center, not across centers', () =>
  withServer(async (s) => {
    const a = await addCenter(s, 'A');
    const b = await addCenter(s, 'B');
    const first = await addRoom(s, a, 'Lab');
    await addRoom(s, b, 'Lab');
    const dup = await s.post('/room/add', { center: a, name: 'Lab', netmask: '255.255.255.0' });
    assert.equal(dup.status, 400, 'duplicate in the same center');
    assert.equal(dup.body.field, 'name', 'field');
    const other = await addRoom(s, a, 'Other');
    const clash = await s.post('/room/update', { id: other, name: 'Lab' });
    assert.equal(clash.status, 400, 'rename onto a sibling');
    assert.equal((await s.post('/room/update', { id: first, name: 'Lab' })).status, 200, 'keeping its own name');
  }));

test('room add refuses an unknown center, a non-contiguous netmask and the /0 netmask', () =>
  withServer(async (s) => {
    const unknown = await s.post('/room/add', { center: 77, name: 'x', netmask: '255.255.255.0' });
    assert.equal(unknown.status, 400, 'unknown center');
    assert.equal(unknown.body.field, 'center', 'field');
    const center = await addCenter(s);
    // 0.0.0.0 makes the room's directed broadcast 255.255.255.255, which Wake-on-LAN must not reach.
    for (const netmask of ['255.0.255.0', '255.255.255.1', '0.255.255.255', '255.255.256.0', '255.255.255', 'abc', '0.0.0.0']) {
      const r = await s.post('/room/add', { center, name: 'x', netmask });
      assert.equal(r.status, 400, `netmask ${netmask}`);
      assert.equal(r.body.field, 'netmask', `field for ${netmask}`);
    }
    for (const netmask of ['255.255.255.255', '128.0.0.0', '255.128.0.0', '255.255.255.252']) {
      const r = await s.post('/room/add', { center, name: `ok-${netmask}`, netmask });
      assert.equal(r.status, 200, `valid netmask ${netmask}`);
    }
  }));

test('names with quotes and SQL are stored verbatim', () =>
  withServer(async (s) => {
    const name = `Robert'); DROP TABLE centers;-- "quoted" \\ back`;
    const id = await addCenter(s, name);
    assert.equal((await s.get('/center/info', { id })).body.name, name, 'center name verbatim');
    const room = await addRoom(s, id, `O'Brien "lab"`);
    assert.equal((await s.get('/room/info', { id: room })).body.name, `O'Brien "lab"`, 'room name verbatim');
    assert.equal((await s.get('/scopes')).body.scope.length, 1, 'table still there');
  }));

test('names with a visible character are kept as sent, joiners and other scripts included', () =>
  withServer(async (s) => {
    for (const name of ['Aula\u00a01', 'Sala \u0645\u200c\u0627', 'Lab \u{1F469}\u200d\u{1F4BB}', 'x\u200b', 'Ni\u00f1os']) {
      const r = await s.post('/center/add', { name });
      assert.equal(r.status, 200, `${JSON.stringify(name)}: ${r.text}`);
      const info = await s.get('/center/info', { id: r.body.id });
      assert.equal(info.body.name, name, `${JSON.stringify(name)} stored as sent`);
    }
  }));

test('a name of invisible characters is refused with a message naming the field', () =>
  withServer(async (s) => {
    const r = await s.post('/center/add', { name: '\u200b\u200b' });
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.body, { error: 'invalid_field', message: "'name' must be a valid printable name", field: 'name' });
  }));

test.run();

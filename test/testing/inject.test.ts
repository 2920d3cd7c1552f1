// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'uvu';
import { startTestApp } from '../../testing';

const hello = path.resolve(__dirname, '../../../examples/hello-complete');

test('ogserve/testing: an app in the test process answers injected requests through the whole REST path, without a port', async () => {
  const t = await startTestApp({
    plugins: ['inventory', 'agents', 'tokens', 'auth', 'audit', hello],
    config: { hello: { greeting: 'Hola' } },
  });
  try {
    assert.equal(t.app.restPort(), 0, 'no REST port was opened');
    const center = await t.inject({ method: 'POST', url: '/center/add', body: { name: 'A' } });
    assert.equal(center.status, 200, center.text);
    const room = await t.inject({
      method: 'POST',
      url: '/room/add',
      body: { center: center.body.id, name: 'A1', netmask: '255.255.255.0' },
    });
    const other = await t.inject({
      method: 'POST',
      url: '/room/add',
      body: { center: center.body.id, name: 'A2', netmask: '255.255.255.0' },
    });
    for (const [ip, mac, r] of [
      ['10.0.0.6', '00:11:22:33:44:06', room.body.id],
      ['10.0.1.7', '00:11:22:33:44:07', other.body.id],
    ])
      assert.equal((await t.inject({ method: 'POST', url: '/client/add', body: { ip, mac, room: r, name: `pc-${ip}` } })).status, 200);

    const greeted = await t.inject({ method: 'GET', url: '/hello', body: { client: '10.0.0.6' } });
    assert.deepEqual([greeted.status, greeted.body.message], [200, 'Hola, pc-10.0.0.6 in room A1'], greeted.text);
    assert.equal(
      (await t.inject({ method: 'GET', url: '/hello', body: { client: 7 } })).body.field,
      'client',
      'the schema answers, naming the field',
    );
    assert.equal((await t.inject({ method: 'GET', url: '/hello', key: 'wrong' })).status, 401);

    // A token limited to room A1, made for the request: the scope check holds for a string client.
    const desk = { role: 'operator', rooms: [room.body.id] };
    assert.equal((await t.inject({ method: 'GET', url: '/hello', body: { client: '10.0.0.6' }, token: desk })).status, 200);
    const outside = await t.inject({ method: 'GET', url: '/hello', body: { client: '10.0.1.7' }, token: desk });
    assert.equal(outside.status, 403, outside.text);

    // A person signed in: the session cookie and its CSRF value are sent for them.
    const person = { username: 'ana', role: 'admin' };
    const me = await t.inject({ method: 'GET', url: '/auth/me', user: person });
    assert.equal(me.body.name, 'ana@local', me.text);
    assert.equal((await t.inject({ method: 'POST', url: '/center/add', body: { name: 'B' }, user: person })).status, 200);
    assert.equal(
      (await t.inject({ method: 'POST', url: '/center/add', body: { name: 'C' }, user: person, headers: { 'X-CSRF-Token': 'x' } })).status,
      403,
    );
  } finally {
    await t.close();
  }
});

test('ogserve/testing: a plugin that cannot start is the error startTestApp rejects with', async () => {
  const failed = await startTestApp({ plugins: ['agents'] }).catch((error: Error) => error.message);
  assert.equal(failed, "config: plugins: dependency 'inventory' of plugin 'agents' is not enabled");
});

test.run();

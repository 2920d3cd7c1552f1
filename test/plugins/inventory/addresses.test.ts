import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { withServer } from '../../support/server';

test('GET /client/addresses lists every client with its MAC, follows updates and deletes, and refuses a body', () =>
  withServer(async (s) => {
    assert.deepEqual((await s.get('/client/addresses')).body, { clients: [] }, 'empty inventory');
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.1', '00:11:22:33:44:01');
    const second = await addClient(s, room, '10.0.0.2', '001122334402');
    await addClient(s, room, '10.0.0.3', '00-11-22-33-44-03');
    assert.deepEqual(
      (await s.get('/client/addresses')).body.clients,
      [
        { ip: '10.0.0.1', mac: '001122334401' },
        { ip: '10.0.0.2', mac: '001122334402' },
        { ip: '10.0.0.3', mac: '001122334403' },
      ],
      'stored form, in id order',
    );
    assert.equal((await s.post('/client/update', { id: second, mac: 'aa:bb:cc:dd:ee:ff' })).status, 200, 'update');
    assert.equal((await s.post('/client/delete', { clients: ['10.0.0.1'] })).status, 200, 'delete');
    assert.deepEqual(
      (await s.get('/client/addresses')).body.clients,
      [
        { ip: '10.0.0.2', mac: 'aabbccddeeff' },
        { ip: '10.0.0.3', mac: '001122334403' },
      ],
      'changes shown',
    );
    const withBody = await s.get('/client/addresses', { clients: [] });
    assert.equal(withBody.status, 400, 'a body is refused');
    assert.equal(withBody.body.error, 'body_not_allowed', 'with its code');
    assert.ok(!s.logs.some((l) => String(l.msg).includes('GET /client/addresses clients=')), 'polled read kept out of the request log');
  }));

test.run();

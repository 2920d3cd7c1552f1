import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { startServer } from '../../support/server';

test('with pxe-modes and live disabled the service starts, their paths are unknown and no boot file is written', async () => {
  const s = await startServer({ config: { plugins: ['inventory'] } });
  try {
    for (const [method, p] of [
      ['GET', '/mode'],
      ['POST', '/mode'],
      ['GET', '/efi'],
      ['GET', '/live/list'],
      ['GET', '/oglive/list'],
    ] as const) {
      const r = await s.request(method, p, method === 'POST' ? { clients: [], mode: 'pxe' } : undefined);
      assert.equal(r.status, 404, `${method} ${p}: ${r.text}`);
    }
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    assert.ok(!existsSync(path.join(s.dir, 'tftpboot')), 'no boot directory created');
  } finally {
    await s.close();
  }
});

test('with pxe-modes disabled client/add and client/update store any boot mode', async () => {
  const s = await startServer({ config: { plugins: ['inventory'] } });
  try {
    const room = await addRoom(s, await addCenter(s));
    const id = await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01', { boot: 'bogus' });
    assert.equal((await s.get('/client/info', { client: ['192.168.1.10'] })).body.boot, 'bogus', 'stored on add');
    const r = await s.post('/client/update', { id, boot: 'bogus2' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await s.get('/client/info', { client: ['192.168.1.10'] })).body.boot, 'bogus2', 'stored on update');
  } finally {
    await s.close();
  }
});

test.run();

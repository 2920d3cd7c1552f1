import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { startServer } from '../../support/server';
import { allFiles, withoutDatabase } from './support';

const tricks = [
  '../../etc/passwd',
  '/etc/passwd',
  'ogLive\u0000',
  '../bios/ogLive',
  'ogLive.ejs',
  '.',
  '..',
  'ogLive/../pxe',
  '',
  'OGLIVE',
];

test('a mode outside the list is refused naming `mode`, whatever path trick it holds; nothing is written', async () => {
  const s = await startServer();
  try {
    const center = await addCenter(s);
    const room = await addRoom(s, center);
    await addClient(s, room, '192.168.1.10', 'aa:bb:cc:dd:ee:01');
    const before = withoutDatabase(allFiles(s.dir));
    for (const mode of tricks) {
      const r = await s.post('/mode', { clients: ['192.168.1.10'], mode });
      assert.equal(r.status, 400, `mode ${JSON.stringify(mode)}: ${r.text}`);
      assert.equal(r.body.field, 'mode', `mode ${JSON.stringify(mode)}: the error names the field`);
    }
    assert.deepEqual(withoutDatabase(allFiles(s.dir)), before, 'no file added or removed anywhere under the temp dir');
    const info = await s.get('/client/info', { client: ['192.168.1.10'] });
    assert.equal(info.body.boot, 'ogLive', 'the boot field is unchanged');
  } finally {
    await s.close();
  }
});

test('POST /mode refuses wrong types and malformed addresses', async () => {
  const s = await startServer();
  try {
    for (const [body, field] of [
      [{ clients: ['192.168.1.10'], mode: 5 }, 'mode'],
      [{ clients: ['192.168.1.10'] }, 'mode'],
      [{ clients: '192.168.1.10', mode: 'pxe' }, 'clients'],
      [{ clients: ['192.168.1.300'], mode: 'pxe' }, 'clients[0]'],
      [{ mode: 'pxe' }, 'clients'],
    ] as const) {
      const r = await s.post('/mode', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.field, field, `${JSON.stringify(body)}: names ${field}`);
    }
  } finally {
    await s.close();
  }
});

test.run();

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { startTestApp } from 'ogserve/testing';

const plugin = path.resolve(__dirname, '..', 'src');

test('a note is kept for a known client, listed, and refused to a token outside its room', async () => {
  const t = await startTestApp({ plugins: ['inventory', 'tokens', plugin], config: { notes: { max_per_client: 2 } } });
  try {
    const center = await t.inject({ method: 'POST', url: '/center/add', body: { name: 'School' } });
    const lab = await t.inject({
      method: 'POST',
      url: '/room/add',
      body: { center: center.body.id, name: 'Lab', netmask: '255.255.255.0' },
    });
    const office = await t.inject({
      method: 'POST',
      url: '/room/add',
      body: { center: center.body.id, name: 'Office', netmask: '255.255.255.0' },
    });
    await t.inject({ method: 'POST', url: '/client/add', body: { ip: '10.0.0.6', mac: '52:54:00:00:00:06', room: lab.body.id } });
    await t.inject({ method: 'POST', url: '/client/add', body: { ip: '10.0.1.6', mac: '52:54:00:00:01:06', room: office.body.id } });

    assert.equal((await t.inject({ method: 'POST', url: '/notes', body: { client: '10.0.0.6', text: 'new disk' } })).status, 200);
    const listed = await t.inject({ method: 'GET', url: '/notes', body: { client: '10.0.0.6' } });
    assert.deepEqual(
      listed.body.notes.map((n: { text: string }) => n.text),
      ['new disk'],
    );
    assert.equal((await t.inject({ method: 'POST', url: '/notes', body: { client: '10.0.0.9', text: 'x' } })).body.field, 'client');

    const desk = { role: 'operator', rooms: [lab.body.id] };
    assert.equal(
      (await t.inject({ method: 'POST', url: '/notes', body: { client: '10.0.0.6', text: 'checked' }, token: desk })).status,
      200,
    );
    assert.equal((await t.inject({ method: 'POST', url: '/notes', body: { client: '10.0.1.6', text: 'x' }, token: desk })).status, 403);
    assert.equal((await t.inject({ method: 'POST', url: '/notes', body: { client: '10.0.0.6', text: 'third' } })).status, 400);
  } finally {
    await t.close();
  }
});

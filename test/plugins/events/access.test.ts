import assert from 'node:assert/strict';
import { test } from 'uvu';
import { TokenStore } from '../../../plugins/tokens';
import { EventStreamClient, type StreamedEvent } from '../../support/event-stream';
import { eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { send, startServer, type TestServer } from '../../support/server';
import { UdpReceiver } from '../../support/udp-receiver';

const as = (secret: string) => ({ Authorization: secret });
const inA1 = '127.0.30.1';
const inB1 = '127.0.31.1';

/**
 * Room A1 (127.0.30.1) of center A and room B1 (127.0.31.1) of center B; tokens: `reader`
 * (role reader, the whole fleet) and `lab` (admin with shell, limited to room A1).
 */
async function site(): Promise<{ s: TestServer; udp: UdpReceiver; reader: string; lab: string }> {
  const udp = await UdpReceiver.bind('127.0.0.1');
  const s = await startServer({ config: { audit: { flush_ms: 20 }, wol: { port: udp.port } } });
  const roomA1 = await addRoom(s, await addCenter(s, 'A'), 'A1', '255.0.0.0');
  const roomB1 = await addRoom(s, await addCenter(s, 'B'), 'B1', '255.0.0.0');
  await addClient(s, roomA1, inA1, macFor(0x301));
  await addClient(s, roomB1, inB1, macFor(0x311));
  const reader = await s.post('/tokens', { name: 'reader', role: 'reader' });
  const lab = await s.post('/tokens', { name: 'lab', role: 'admin', shell: true, rooms: [roomA1] });
  assert.equal(lab.status, 200, lab.text);
  return { s, udp, reader: reader.body.secret, lab: lab.body.secret };
}

const wolsIn = (stream: EventStreamClient): StreamedEvent[] => stream.events.filter((e) => e.type === 'wol.sent');

test("each event is checked against the reader's rights and scope: audit entries only for who may GET /audit, a limited token's clients only", async () => {
  const x = await site();
  const full = await EventStreamClient.open(x.s.port);
  const reader = await EventStreamClient.open(x.s.port, '', as(x.reader));
  const lab = await EventStreamClient.open(x.s.port, '', as(x.lab));
  try {
    assert.equal((await x.s.post('/wol', { clients: [inA1, inB1], type: 'unicast' })).status, 200);
    assert.equal((await x.s.post('/center/add', { name: 'C' })).status, 200);
    await full.waitFor((e) => e.type === 'audit.recorded' && e.data.path === '/center/add', 'the audit entry of the second request');
    // Every stream is in order: once this last wake reached a reader, everything before it had.
    assert.equal((await x.s.post('/wol', { clients: [inA1], type: 'unicast' })).status, 200);
    for (const stream of [reader, lab]) await eventually(() => wolsIn(stream).length === 2, 'both wakes on each stream');

    assert.ok(
      full.events.some((e) => e.type === 'audit.recorded' && e.data.path === '/wol'),
      'the full key gets audit entries',
    );
    assert.deepEqual(
      reader.events.filter((e) => e.type === 'audit.recorded'),
      [],
      'a reader role, which GET /audit refuses, gets none',
    );
    assert.deepEqual(
      lab.events.filter((e) => e.type === 'audit.recorded'),
      [],
      'nor a limited admin token, which GET /audit refuses too',
    );
    assert.deepEqual(
      wolsIn(reader).map((e) => e.data.clients),
      [[inA1, inB1], [inA1]],
      'the whole fleet for an unlimited reader',
    );
    assert.deepEqual(
      wolsIn(lab).map((e) => e.data.clients),
      [[inA1], [inA1]],
      'the limited token: the list cut to its clients',
    );
    assert.ok(!lab.events.some((e) => e.type === 'inventory.created'), 'nor anything naming no client of its own');
    assert.ok(!JSON.stringify(lab.events).includes(inB1), 'no trace of a client outside');
  } finally {
    for (const stream of [full, reader, lab]) stream.close();
    await x.s.close();
    await x.udp.close();
  }
});

test('a stream ends when its token is revoked (by header or by ticket), revoked through the database alone, or expires', async () => {
  const x = await site();
  try {
    const make = async (name: string) => (await x.s.post('/tokens', { name, role: 'reader' })).body.secret as string;
    const revoked = await make('revoked');
    const byHeader = await EventStreamClient.open(x.s.port, '', as(revoked));
    const ticket = (await send(x.s.port, 'POST', '/events/ticket', undefined, as(revoked))).body.ticket;
    const byTicket = await EventStreamClient.open(x.s.port, `ticket=${ticket}`, {});
    // Deleted from the table as another instance or `ogserve token revoke` would, with no word to this one.
    const elsewhere = await EventStreamClient.open(x.s.port, '', as(await make('elsewhere')));
    const store = x.s.app.container.resolve(TokenStore);
    const expiring = await store.create({ name: 'expiring', role: 'reader', shell: false, expiresAt: Date.now() + 1500 });
    const expires = await EventStreamClient.open(x.s.port, '', as(expiring.secret));
    const kept = await EventStreamClient.open(x.s.port, '', as(x.reader));
    for (const stream of [byHeader, byTicket, elsewhere, expires, kept]) assert.equal(stream.status, 200);

    assert.equal((await x.s.request('DELETE', '/tokens', { name: 'revoked' })).status, 200);
    await x.s.app.database.query("delete from api_tokens where name = 'elsewhere'");
    await eventually(() => byHeader.ended && byTicket.ended, 'the streams of the revoked token to end');
    await eventually(() => elsewhere.ended, 'the stream of the token deleted in the database to end');
    await eventually(() => expires.ended, 'the stream of the expired token to end');
    assert.equal((await x.s.post('/center/add', { name: 'After' })).status, 200);
    await kept.waitFor((e) => e.type === 'inventory.created', 'the event on a stream whose token holds');
    for (const stream of [byHeader, byTicket, elsewhere, expires])
      assert.ok(!stream.events.some((e) => e.type === 'inventory.created'), 'nothing after its end');
    kept.close();
  } finally {
    await x.s.close();
    await x.udp.close();
  }
});

test.run();

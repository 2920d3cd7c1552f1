import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import { bulkInsert, ipFor } from '../support/bulk';
import { prepareSite, spawnServer, type ChildServer } from '../support/child-server';
import { eventually, within } from '../support/fake-agent';
import { macFor } from '../support/fixtures';
import { TOKEN, makeTestDir, removeTestStore } from '../support/server';
import { connectSide } from '../support/test-db';

/**
 * SIGTERM stops the real service process gracefully: requests in flight are answered
 * (up to rest.shutdown_grace_s), then plugins stop and the database closes.
 */

const root = path.resolve(__dirname, '..', '..', '..');
const clients = 2000;

/** A center of `clients` clients with partitions, and a second center that stays. */
async function bigCenter(dir: string): Promise<void> {
  await prepareSite(dir, async (s) => {
    const db = s.app.database;
    await bulkInsert(
      db,
      'centers',
      ['id', 'name'],
      [
        [1, 'Big'],
        [2, 'Other'],
      ],
    );
    await bulkInsert(
      db,
      'rooms',
      ['id', 'name', 'center_id', 'netmask'],
      [
        [1, 'R1', 1, '255.0.0.0'],
        [2, 'R2', 2, '255.0.0.0'],
      ],
    );
    await bulkInsert(
      db,
      'clients',
      ['id', 'name', 'ip', 'mac', 'room_id'],
      Array.from({ length: clients }, (_, i) => [i + 1, `pc${i}`, ipFor(i + 1), macFor(i + 1), i === 0 ? 2 : 1]),
    );
    const partitions: unknown[][] = [];
    for (let c = 1; c <= clients; c++) for (let p = 0; p < 4; p++) partitions.push([c, 1, p, 1000]);
    await bulkInsert(db, 'partitions', ['client_id', 'disk', 'part_number', 'size'], partitions);
  });
}

/**
 * A request whose headers the service has read (it answered `100 Continue`) and whose body
 * is held back until `finish()`: a request in flight for as long as the test wants.
 */
async function heldRequest(port: number, urlPath: string, body: string): Promise<{ finish(): void; answer: Promise<string> }> {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')));
  });
  socket.write(
    `POST ${urlPath} HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\nConnection: close\r\nExpect: 100-continue\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  await eventually(() => received.startsWith('HTTP/1.1 100 Continue'), 'the service to read the request headers');
  return { finish: () => socket.write(body), answer };
}

function logged(server: ChildServer, pattern: RegExp): boolean {
  return server.logs.some((l) => pattern.test(l.msg));
}

test('SIGTERM lets a request in flight finish: a long cascade that commits after the signal is answered', async () => {
  const dir = makeTestDir();
  try {
    await bigCenter(dir);
    const server = await spawnServer({ dir, config: { log: { level: 'info' }, rest: { shutdown_grace_s: 60 } } });
    let code: number | null;
    try {
      const held = await heldRequest(server.restPort, '/center/delete', '{"id": 1}');
      process.kill(server.pid, 'SIGTERM');
      await eventually(() => logged(server, /SIGTERM received/), 'the service to hear the signal');
      // Longer than the 2 s after which the service used to cut every connection.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      held.finish();
      const answer = await within(held.answer, 60_000, 'the answer to the delete');
      assert.match(answer, /^HTTP\/1\.1 200 /, `the cascade is answered: ${answer.slice(0, 200)}`);
      assert.match(answer, /\r\nConnection: close\r\n/i, 'the answer closes its connection');
    } finally {
      code = await server.stop();
    }
    assert.equal(code, 0, `the service exits cleanly; log: ${JSON.stringify(server.logs.slice(-5))}`);
    assert.ok(!logged(server, /still running after rest\.shutdown_grace_s/), 'nothing was cut off');
    const side = await connectSide(dir);
    try {
      const rows = await side.query<{ n: number }>('select count(*) as n from clients');
      assert.equal(Number(rows[0]!.n), 1, 'the center and its clients are gone, the other center kept');
    } finally {
      await side.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('a request still running after rest.shutdown_grace_s is cut off and the service still exits', async () => {
  const dir = makeTestDir();
  try {
    await prepareSite(dir, async () => undefined);
    const server = await spawnServer({ dir, config: { log: { level: 'info' }, rest: { shutdown_grace_s: 0.5 } } });
    let code: number | null;
    let answer: string;
    try {
      const held = await heldRequest(server.restPort, '/center/add', '{"name": "never sent"}');
      process.kill(server.pid, 'SIGTERM');
      answer = await within(held.answer, 30_000, 'the connection to be closed');
    } finally {
      code = await server.stop();
    }
    assert.equal(answer, '', 'no answer: the body never came');
    assert.equal(code, 0, 'the service exits');
    assert.ok(logged(server, /1 request\(s\) still running after rest\.shutdown_grace_s/), 'the cut-off is logged');
  } finally {
    await removeTestStore(dir);
  }
});

test('new connections are refused once SIGTERM is received, while a request in flight is still answered', async () => {
  const dir = makeTestDir();
  try {
    await prepareSite(dir, async () => undefined);
    const server = await spawnServer({ dir, config: { log: { level: 'info' }, rest: { shutdown_grace_s: 60 } } });
    try {
      const held = await heldRequest(server.restPort, '/center/add', '{"name": "last"}');
      process.kill(server.pid, 'SIGTERM');
      await eventually(() => logged(server, /SIGTERM received/), 'the service to hear the signal');
      const refused = await server.get('/scopes').then(
        (r) => `answered ${r.status}`,
        (error: NodeJS.ErrnoException) => error.code,
      );
      assert.equal(refused, 'ECONNREFUSED', 'the listener is closed');
      held.finish();
      assert.match(await within(held.answer, 30_000, 'the answer'), /^HTTP\/1\.1 200 /, 'the request in flight is answered');
    } finally {
      assert.equal(await server.stop(), 0, 'the service exits');
    }
  } finally {
    await removeTestStore(dir);
  }
});

test('requests answered outside the router (CONNECT, unknown methods) do not hold up the stop', async () => {
  const dir = makeTestDir();
  try {
    await prepareSite(dir, async () => undefined);
    const server = await spawnServer({ dir, config: { log: { level: 'info' }, rest: { shutdown_grace_s: 60 } } });
    let code: number | null;
    try {
      for (const method of ['CONNECT', 'FOO']) {
        const socket = net.connect(server.restPort, '127.0.0.1');
        socket.write(`${method} /scopes HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\n\r\n`);
        let received = '';
        socket.on('data', (d: Buffer) => (received += d.toString()));
        await within(new Promise((resolve) => socket.once('close', resolve)), 10_000, `${method} answered`);
        assert.match(received, /^HTTP\/1\.1 405 /, `${method}: ${received.slice(0, 60)}`);
      }
      process.kill(server.pid, 'SIGTERM');
      code = await within(server.stop(), 10_000, 'the service to stop without waiting for the grace');
    } finally {
      await server.stop();
    }
    assert.equal(code, 0, 'the service exits');
    assert.ok(!logged(server, /waiting up to/), 'no request was counted as still in flight');
  } finally {
    await removeTestStore(dir);
  }
});

test('the systemd unit waits longer than the default grace before it kills the service', () => {
  const unit = readFileSync(path.join(root, 'packaging', 'ogserve.service'), 'utf8');
  const stopTimeout = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
  const defaults = JSON.parse(readFileSync(path.join(root, 'config', 'default.json'), 'utf8'));
  const grace = defaults.rest.shutdown_grace_s;
  assert.ok(Number.isFinite(stopTimeout) && typeof grace === 'number', 'both values found');
  // After the grace the plugins stop and the database closes: a few seconds more.
  assert.ok(stopTimeout >= grace + 5, `TimeoutStopSec=${stopTimeout} leaves 5 s after rest.shutdown_grace_s=${grace}`);
});

test.run();

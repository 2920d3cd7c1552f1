// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'uvu';
import { TOKEN, withServer } from '../support/server';

/**
 * How a request body is read off the socket: in as many pieces as the client sends, cut
 * short, or with a byte order mark. Bodies over the limit are in http.test.ts.
 */

/** Send `pieces` in turn on one connection, a pause between them; resolve with everything the server wrote back. */
function exchange(port: number, pieces: (string | Buffer)[], options: { endAfter?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (d) => received.push(d));
    socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    void (async () => {
      for (const piece of pieces) {
        socket.write(piece);
        await new Promise((r) => setTimeout(r, 30));
      }
      if (options.endAfter) socket.end();
    })();
  });
}

const head = (path: string, headers: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\nConnection: close\r\nContent-Type: application/json\r\n${headers}\r\n`;

async function centerNames(s: { get(path: string): Promise<{ body: { scope: { name: string }[] } }> }): Promise<string[]> {
  return (await s.get('/scopes')).body.scope.map((c) => c.name);
}

test('a body sent in pieces, one character split between two of them, is read whole', () =>
  withServer(async (s) => {
    const body = Buffer.from(JSON.stringify({ name: 'Aula Cañón ñú' }), 'utf8');
    const cut = body.indexOf(Buffer.from('ñ')) + 1; // between the two bytes of ñ
    const answer = await exchange(s.port, [
      head('/center/add', `Content-Length: ${body.length}\r\n`),
      body.subarray(0, cut),
      body.subarray(cut),
    ]);
    assert.match(answer, /^HTTP\/1\.1 200/, answer);
    assert.deepEqual(await centerNames(s), ['Aula Cañón ñú'], 'stored exactly as sent');
  }));

test('a chunked body (no Content-Length) in several chunks is read whole', () =>
  withServer(async (s) => {
    const chunks = ['{"name":', '"chunked', ' center"}'];
    const answer = await exchange(s.port, [
      head('/center/add', 'Transfer-Encoding: chunked\r\n'),
      ...chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`),
      '0\r\n\r\n',
    ]);
    assert.match(answer, /^HTTP\/1\.1 200/, answer);
    assert.deepEqual(await centerNames(s), ['chunked center']);
  }));

test('a body cut short (the client stops sending before its Content-Length) is not parsed, and the server goes on', () =>
  withServer(async (s) => {
    // Whole JSON, but fewer bytes than announced: only the announced length makes a body.
    const body = JSON.stringify({ name: 'half' });
    const answer = await exchange(s.port, [head('/center/add', `Content-Length: ${body.length + 40}\r\n`), body], { endAfter: true });
    assert.doesNotMatch(answer, /^HTTP\/1\.1 200/, `no success for half a body: ${answer}`);
    assert.deepEqual(await centerNames(s), [], 'nothing stored');
    const later = await s.post('/center/add', { name: 'whole' });
    assert.equal(later.status, 200, 'the next request is served');
    assert.deepEqual(await centerNames(s), ['whole']);
  }));

test('a body that starts with a UTF-8 byte order mark is read as the JSON after it', () =>
  withServer(async (s) => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ name: 'with bom' }))]);
    const answer = await exchange(s.port, [head('/center/add', `Content-Length: ${body.length}\r\n`), body]);
    assert.match(answer, /^HTTP\/1\.1 200/, answer);
    assert.deepEqual(await centerNames(s), ['with bom']);
  }));

test('invalid UTF-8 in a body is read as replacement characters, not as other text', () =>
  withServer(async (s) => {
    const body = Buffer.concat([Buffer.from('{"name":"bad '), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const answer = await exchange(s.port, [head('/center/add', `Content-Length: ${body.length}\r\n`), body]);
    assert.match(answer, /^HTTP\/1\.1 200/, answer);
    assert.deepEqual(await centerNames(s), ['bad \ufffd(']);
  }));

test.run();

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

/** POST the bytes of `parts` (text as UTF-8, numbers as raw bytes) to /center/add; the answer's status and body. */
async function postBytes(port: number, parts: (string | number[])[]): Promise<{ status: number; body: Record<string, string> }> {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  const answer = await exchange(port, [head('/center/add', `Content-Length: ${body.length}\r\n`), body]);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) };
}

test('bytes that are not UTF-8 are a 400 naming the string that holds them, never stored as U+FFFD', () =>
  withServer(async (s) => {
    const cases: [parts: (string | number[])[], field: string, why: string][] = [
      [['{"name":"bad ', [0xc3, 0x28], '"}'], 'name', 'a lead byte without its continuation'],
      [['{"name":"ok","comment":"', [0xff], '"}'], 'comment', 'a byte UTF-8 never uses'],
      [['{"name":"ok","x":[1,{"deep":["a","', [0xc0, 0xaf], '"]}]}'], 'x[1].deep[1]', 'an overlong form, nested'],
      [['{"name":"', [0xed, 0xa0, 0x80], '"}'], 'name', 'a surrogate, which UTF-8 does not encode'],
      [['{"name":"', [0xf4, 0x90, 0x80, 0x80], '"}'], 'name', 'past U+10FFFF'],
      [['{"name":"', [0xe2, 0x82], '"}'], 'name', 'a sequence cut short by the closing quote'],
      [['{"name":"x\\"', [0x80], '"}'], 'name', 'after an escaped quote, still in the string'],
    ];
    for (const [parts, field, why] of cases) {
      const r = await postBytes(s.port, parts);
      assert.equal(r.status, 400, `${why}: ${JSON.stringify(r.body)}`);
      assert.deepEqual([r.body.error, r.body.field], ['invalid_field', field], `${why}: ${JSON.stringify(r.body)}`);
      assert.match(
        r.body.message!,
        new RegExp(`^'${field.replace(/[[\]]/g, '\\$&')}' is not UTF-8 \\(byte 0x[0-9a-f]{2} at offset \\d+ of the body\\)$`),
        why,
      );
    }
    const key = await postBytes(s.port, ['{"name":"ok","a":{"k', [0xfe], '":1}}']);
    assert.deepEqual([key.status, key.body.error, key.body.field], [400, 'invalid_field', 'a'], 'a key names its object');
    assert.match(key.body.message!, /^a key of 'a' is not UTF-8/);
    const outside = await postBytes(s.port, ['{"name":"ok"}', [0xff]]);
    assert.deepEqual([outside.status, outside.body.error, outside.body.field], [400, 'invalid_json', undefined], 'outside every string');
    assert.deepEqual(await centerNames(s), [], 'nothing stored');
  }));

test('U+FFFD sent as UTF-8 (EF BF BD) or escaped is text like any other; a lone surrogate escape is refused', () =>
  withServer(async (s) => {
    const sent = await postBytes(s.port, ['{"name":"a', [0xef, 0xbf, 0xbd], 'b \\ufffd 😀"}']);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(await centerNames(s), ['a\ufffdb \ufffd 😀'], 'stored as sent');
    for (const [name, why] of [
      ['\\ud800', 'a high surrogate alone'],
      ['x\\udfffy', 'a low surrogate alone'],
      ['\\ude00\\ud83d', 'a pair in the wrong order'],
    ]) {
      const r = await postBytes(s.port, [`{"name":"${name}"}`]);
      assert.deepEqual([r.status, r.body.error, r.body.field], [400, 'invalid_field', 'name'], `${why}: ${JSON.stringify(r.body)}`);
    }
    const pair = await postBytes(s.port, ['{"name":"\\ud83d\\ude00 pair"}']);
    assert.equal(pair.status, 200, 'an escaped pair is one character');
    assert.deepEqual(await centerNames(s), ['a\ufffdb \ufffd 😀', '😀 pair']);
  }));

test.run();

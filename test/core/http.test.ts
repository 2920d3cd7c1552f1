import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'uvu';
import { addCenter } from '../support/fixtures';
import { TOKEN, send, withServer } from '../support/server';

test('a request without the API key is refused with 401 and WWW-Authenticate', () =>
  withServer(async (s) => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: 'wrong' },
      { Authorization: `${TOKEN}x` },
      { Authorization: `Bearer ${TOKEN}` },
    ];
    for (const headers of attempts) {
      const r = await send(s.port, 'GET', '/scopes', undefined, headers);
      assert.equal(r.status, 401, `status for ${JSON.stringify(headers)}`);
      assert.ok(r.headers['www-authenticate'], 'WWW-Authenticate header present');
      assert.equal(r.body.error, 'unauthorized', 'error code');
    }
  }));

test('authorization is checked before routing: unknown paths also answer 401 without the key', () =>
  withServer(async (s) => {
    const r = await send(s.port, 'GET', '/no/such/path');
    assert.equal(r.status, 401, 'unauthenticated unknown path');
  }));

test('an unknown path answers 404 with a JSON error', () =>
  withServer(async (s) => {
    const r = await s.get('/no/such/path');
    assert.equal(r.status, 404, 'status');
    assert.deepEqual(Object.keys(r.body).sort(), ['error', 'message'], 'error body keys');
    assert.equal(r.body.error, 'not_found', 'error code');
  }));

test('a known path with an unsupported method answers 405 and lists the allowed ones', () =>
  withServer(async (s) => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const r = await s.request(method, '/scopes');
      assert.equal(r.status, 405, `${method} /scopes`);
      assert.equal(r.headers.allow, 'GET', 'Allow header');
      assert.equal(r.body.error, 'method_not_allowed', 'error code');
    }
    const r = await s.post('/center/info', { id: 1 });
    assert.equal(r.status, 405, 'POST on a GET-only path');
  }));

test('a body over the request limit answers 413', () =>
  withServer(async (s) => {
    const big = JSON.stringify({ name: 'x'.repeat(200_000) });
    const r = await s.post('/center/add', big);
    assert.equal(r.status, 413, 'status');
    assert.equal(r.body.error, 'payload_too_large', 'error code');
    const after = await s.get('/scopes');
    assert.equal(after.status, 200, 'server still answers');
  }));

test('a chunked body over the limit (no Content-Length) also answers 413', () =>
  withServer(async (s) => {
    const status = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(s.port, '127.0.0.1', () => {
        socket.write(`POST /center/add HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n`);
        const chunk = 'a'.repeat(65536);
        for (let i = 0; i < 3; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        socket.write('0\r\n\r\n');
      });
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('close', () => resolve(data.split('\r\n')[0] ?? ''));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 5000);
    });
    assert.match(status, /^HTTP\/1\.1 413/, `status line: ${status}`);
  }));

test('unparseable JSON answers 400 invalid_json', () =>
  withServer(async (s) => {
    for (const body of ['{', '{"name":', 'nul', "{'name':'x'}", '{"a":1}}']) {
      const r = await s.post('/center/add', body);
      assert.equal(r.status, 400, `status for ${body}`);
      assert.equal(r.body.error, 'invalid_json', `error code for ${body}`);
    }
  }));

test('JSON that is not an object answers 400 naming the body', () =>
  withServer(async (s) => {
    for (const body of ['[]', '42', '"name"', 'null', 'true', '[{"name":"x"}]']) {
      const r = await s.post('/center/add', body);
      assert.equal(r.status, 400, `status for ${body}`);
      assert.equal(r.body.error, 'invalid_field', `error code for ${body}`);
    }
  }));

test('prototype keys in a body are ignored like any unknown key, and pollute nothing', () =>
  withServer(async (s) => {
    const bodies = [
      '{"__proto__":{"admin":true},"name":"a"}',
      '{"name":"b","constructor":{"prototype":{"admin":true}}}',
      '{"name":"c","comment":"x","prototype":1}',
    ];
    for (const body of bodies) {
      const r = await s.post('/center/add', body);
      assert.equal(r.status, 200, `status for ${body}: ${r.text}`);
    }
    const scopes = await s.get('/scopes');
    assert.deepEqual(
      scopes.body.scope.map((c: { name: string }) => c.name),
      ['a', 'b', 'c'],
      'created from the known keys',
    );
    assert.equal(({} as { admin?: unknown }).admin, undefined, 'Object.prototype untouched');
    const nested = await s.post('/client/delete', '{"clients":["10.9.9.9"],"x":[{"__proto__":{"polluted":1}}]}');
    assert.equal(nested.status, 200, nested.text);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined, 'nested ones too');
  }));

test('a NUL character anywhere in a body answers 400 naming where, and writes nothing', () =>
  withServer(async (s) => {
    const cases: [string, string][] = [
      ['{"name":"a\\u0000b"}', 'name'],
      ['{"name":"ok","comment":"\\u0000"}', 'comment'],
      ['{"name":"ok","list":[1,{"deep":["x","y\\u0000"]}]}', 'list[1].deep[1]'],
      ['{"name":"ok","k\\u0000":1}', 'k\\u0000'],
    ];
    for (const [body, field] of cases) {
      const r = await s.post('/center/add', body);
      assert.equal(r.status, 400, `status for ${body}: ${r.text}`);
      assert.deepEqual([r.body.error, r.body.field], ['invalid_field', field], `error for ${body}: ${r.text}`);
    }
    assert.deepEqual((await s.get('/scopes')).body, { scope: [] }, 'nothing was created');
    assert.equal((await s.post('/center/add', '{"name":"a\\\\u0000b"}')).status, 200, 'an escaped backslash before u0000 is no NUL');
  }));

test('responses escape every non-ASCII character', () =>
  withServer(async (s) => {
    await addCenter(s, 'Aula Ñandú 日本 😀');
    const r = await s.get('/scopes');
    assert.ok(/^[\x00-\x7f]*$/.test(r.text), 'response is pure ASCII');
    assert.ok(r.text.includes('\\u00d1and\\u00fa \\u65e5\\u672c \\ud83d\\ude00'), `escaped form present: ${r.text}`);
    assert.equal(r.body.scope[0].name, 'Aula Ñandú 日本 😀', 'round-trips through a JSON parser');
    assert.equal(r.headers['content-type'], 'application/json', 'content type');
  }));

test('a response over rest.max_response_bytes becomes a 500 with no partial body', () =>
  withServer(
    async (s) => {
      for (let i = 0; i < 40; i++) await addCenter(s, `center-${i}-${'x'.repeat(40)}`);
      const r = await s.get('/scopes');
      assert.equal(r.status, 500, 'status');
      assert.equal(r.body.error, 'response_too_large', 'error code');
      assert.ok(!r.text.includes('center-'), 'no part of the success body');
    },
    { config: { rest: { max_response_bytes: 2048 } } },
  ));

test('X-Sequence is echoed on success and on errors', () =>
  withServer(async (s) => {
    const ok = await s.request('GET', '/scopes', undefined, { 'X-Sequence': 'abc-17' });
    assert.equal(ok.headers['x-sequence'], 'abc-17', 'on 200');
    const bad = await s.request('POST', '/center/add', '{', { 'X-Sequence': '18' });
    assert.equal(bad.headers['x-sequence'], '18', 'on 400');
    const unauth = await send(s.port, 'GET', '/scopes', undefined, { 'X-Sequence': '19' });
    assert.equal(unauth.headers['x-sequence'], '19', 'on 401');
  }));

test('requests are logged as "<ip>:<port> <METHOD> /<path> clients=..." except the polled ones', () =>
  withServer(async (s) => {
    await s.post('/client/delete', { clients: ['10.1.1.1', '10.1.1.2'] });
    await s.get('/scopes');
    const lines = s.logs.map((l) => l.msg);
    assert.ok(
      lines.some((m) => /^127\.0\.0\.1:\d+ POST \/client\/delete clients=10\.1\.1\.1,10\.1\.1\.2$/.test(m)),
      `log line present: ${JSON.stringify(lines)}`,
    );
    assert.ok(!lines.some((m) => m.includes('/scopes')), 'GET /scopes is not logged');
  }));

test('refused requests are logged too, once each: 401, 404, 405, bad JSON, schema errors', () =>
  withServer(async (s) => {
    await send(s.port, 'POST', '/center/add', '{"name":"x"}');
    await s.get('/no/such/path');
    await s.request('PUT', '/clients');
    await s.post('/client/delete', '{"clients":');
    await s.post('/client/delete', { clients: ['10.1.1.1', 7] });
    await send(s.port, 'GET', '/scopes');
    const lines = s.logs.map((l) => l.msg).filter((m) => /^127\.0\.0\.1:\d+ /.test(m));
    const expected = [
      /^127\.0\.0\.1:\d+ POST \/center\/add clients=$/,
      /^127\.0\.0\.1:\d+ GET \/no\/such\/path clients=$/,
      /^127\.0\.0\.1:\d+ PUT \/clients clients=$/,
      /^127\.0\.0\.1:\d+ POST \/client\/delete clients=$/,
      /^127\.0\.0\.1:\d+ POST \/client\/delete clients=10\.1\.1\.1$/,
    ];
    assert.equal(lines.length, expected.length, `one line each, none for GET /scopes: ${JSON.stringify(lines)}`);
    for (const [i, line] of lines.entries()) assert.match(line, expected[i]!, `line ${i}`);
  }));

test('GET /scopes with a body is refused', () =>
  withServer(async (s) => {
    const r = await s.get('/scopes', { any: 1 });
    assert.equal(r.status, 400, 'status');
    assert.equal(r.body.error, 'body_not_allowed', 'error code');
  }));

test('an endpoint that needs a body refuses a request without one', () =>
  withServer(async (s) => {
    const r = await s.post('/center/add');
    assert.equal(r.status, 400, 'status');
    assert.equal(r.body.error, 'body_required', 'error code');
  }));

test.run();

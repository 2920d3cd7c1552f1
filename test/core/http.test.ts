// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'uvu';
import { addCenter, addClient, addRoom } from '../support/fixtures';
import { eventually } from '../support/fake-agent';
import { TOKEN, send, withServer } from '../support/server';

test('a request without the API key is refused with 401 and WWW-Authenticate', () =>
  withServer(async (s) => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: 'wrong' },
      { Authorization: `${TOKEN}x` },
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `bearer ${TOKEN}` },
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

test('requests are logged as "<ip>:<port> <METHOD> /<path> clients=... status=<code> ms=<duration>" except the polled ones', () =>
  withServer(async (s) => {
    await s.post('/client/delete', { clients: ['10.1.1.1', '10.1.1.2'] });
    await s.get('/scopes');
    const lines = s.logs.map((l) => l.msg);
    assert.ok(
      lines.some((m) => /^127\.0\.0\.1:\d+ POST \/client\/delete clients=10\.1\.1\.1,10\.1\.1\.2 status=200 ms=\d+(\.\d)?$/.test(m)),
      `log line present: ${JSON.stringify(lines)}`,
    );
    const line = s.logs.find((l) => l.msg.includes('POST /client/delete'))!;
    assert.equal(line.status, 200, 'the status as a field too');
    assert.equal(typeof line.ms, 'number', 'the duration as a field too');
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
      /^127\.0\.0\.1:\d+ POST \/center\/add clients= status=401 ms=[\d.]+$/,
      /^127\.0\.0\.1:\d+ GET \/no\/such\/path clients= status=404 ms=[\d.]+$/,
      /^127\.0\.0\.1:\d+ PUT \/clients clients= status=405 ms=[\d.]+$/,
      /^127\.0\.0\.1:\d+ POST \/client\/delete clients= status=400 ms=[\d.]+$/,
      /^127\.0\.0\.1:\d+ POST \/client\/delete clients=10\.1\.1\.1 status=400 ms=[\d.]+$/,
    ];
    assert.equal(lines.length, expected.length, `one line each, none for GET /scopes: ${JSON.stringify(lines)}`);
    for (const [i, line] of lines.entries()) assert.match(line, expected[i]!, `line ${i}`);
  }));

test('the request line is written once the answer is sent, after what its handler logged', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s));
    await addClient(s, room, '10.0.0.1', '00:11:22:33:44:55', { name: 'owner' });
    const r = await s.post('/client/add', { ip: '10.0.0.2', mac: '001122334455', room });
    assert.equal(r.status, 400, 'duplicate MAC refused');
    const owner = s.logs.findIndex((l) => l.msg.includes('name=owner'));
    const requests = s.logs.flatMap((l, i) => (/POST \/client\/add clients=10\.0\.0\.2 status=400 /.test(l.msg) ? [i] : []));
    assert.ok(owner >= 0, 'the handler logged the owner of the MAC');
    assert.equal(requests.length, 1, 'one request line');
    assert.ok(requests[0]! > owner, `the request line (${requests[0]}) comes after the handler's (${owner})`);
  }));

test('log lines name their level ("info", "warn"), not a number', () =>
  withServer(async (s) => {
    await s.post('/client/delete', { clients: [] });
    const line = s.logs.find((l) => l.msg.includes('POST /client/delete'));
    assert.equal(line?.level, 'info', JSON.stringify(line));
    assert.ok(
      s.logs.every((l) => typeof l.level === 'string' && ['debug', 'info', 'warn', 'error', 'fatal'].includes(l.level)),
      JSON.stringify(s.logs.map((l) => l.level)),
    );
  }));

test('a body nested deeper than rest.max_json_depth (64) answers 400 naming the problem, never 500', () =>
  withServer(async (s) => {
    const deepArray = `${'['.repeat(2000)}${']'.repeat(2000)}`;
    const deepObject = `{"__proto__": 1, "name": "x", "a": ${'{"a": '.repeat(2000)}1${'}'.repeat(2001)}`;
    for (const [label, body] of [
      ['2,000 nested arrays', deepArray],
      ['2,000 nested objects with a prototype key', deepObject],
    ]) {
      const r = await s.post('/center/add', body);
      assert.equal(r.status, 400, `${label}: ${r.text}`);
      assert.equal(r.body.error, 'invalid_json', `${label}: code`);
      assert.match(r.body.message, /deeper than 64 levels/, `${label}: message names the problem`);
    }
    const nested = (levels: number) => `{"name": "n${levels}", "extra": ${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    assert.equal((await s.post('/center/add', nested(64))).status, 200, '64 levels (the body object counts) are accepted');
    assert.equal((await s.post('/center/add', nested(65))).status, 400, '65 levels are refused');
    const brackets = await s.post('/center/add', { name: '['.repeat(90), comment: '{'.repeat(900) });
    assert.equal(brackets.status, 200, `brackets inside strings do not count: ${brackets.text}`);
    assert.ok(!s.logs.some((l) => l.level === 'error'), 'no internal error logged');
  }));

test('rest.max_json_depth sets the bound', () =>
  withServer(
    async (s) => {
      assert.equal((await s.post('/center/add', { name: 'flat', x: [[1]] })).status, 200, '3 levels');
      const r = await s.post('/center/add', { name: 'deep', x: [[[1]]] });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, /deeper than 3 levels/, 'the configured bound');
    },
    { config: { rest: { max_json_depth: 3 } } },
  ));

test('CONNECT and methods HTTP does not know are answered like any other method, over a raw socket', () =>
  withServer(async (s) => {
    // PROPFIND is a method Node's parser knows (it reaches the router); the others it does not.
    for (const method of ['CONNECT', 'FOO', 'BREW', 'PROPFIND']) {
      const target = '/scopes';
      const unauth = await raw(s.port, `${method} ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.match(unauth, /^HTTP\/1\.1 401 /, `${method} without the key: ${unauth.slice(0, 80)}`);
      assert.match(unauth, /\r\nWWW-Authenticate: /i, `${method}: WWW-Authenticate`);
      assert.match(unauth, /"error":"unauthorized"/, `${method}: JSON error`);
      const wrong = await raw(s.port, `${method} ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: nope\r\n\r\n`);
      assert.match(wrong, /^HTTP\/1\.1 401 /, `${method} with a wrong key`);
      const known = await raw(s.port, `${method} /scopes HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\nX-Sequence: q7\r\n\r\n`);
      assert.match(known, /^HTTP\/1\.1 405 /, `${method} on a known path: ${known.slice(0, 80)}`);
      assert.match(known, /\r\nAllow: GET\r\n/i, `${method}: Allow lists the path's methods`);
      assert.match(known, /\r\nX-Sequence: q7\r\n/i, `${method}: X-Sequence echoed`);
      assert.match(known, /"error":"method_not_allowed"/, `${method}: JSON error`);
    }
    const proxy = await raw(s.port, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAuthorization: ${TOKEN}\r\n\r\n`);
    assert.match(proxy, /^HTTP\/1\.1 404 /, `CONNECT to a host is no endpoint of the service: ${proxy.slice(0, 80)}`);
    await eventually(
      () => s.logs.filter((l) => /^127\.0\.0\.1:\d+ (CONNECT|FOO) \/scopes clients= status=(401|405) /.test(l.msg)).length === 6,
      'each refused request logged once',
    );
    assert.equal((await s.get('/scopes')).status, 200, 'the service goes on');
  }));

test('bytes that are no request right behind one on its connection (a GET body without a length): that one is answered, then the connection closes', () =>
  withServer(async (s) => {
    for (const garbage of ['{"broken": ', 'FOO / HTTP/1.1\r\n\r\n']) {
      const socket = net.connect(s.port, '127.0.0.1');
      socket.write(`GET /scopes HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\n\r\n${garbage}`);
      const answer = await readAll(socket);
      assert.match(answer, /^HTTP\/1\.1 200 /, `the request is answered: ${JSON.stringify(answer.slice(0, 80))}`);
      assert.equal(answer.match(/HTTP\/1\.1 /g)?.length, 1, 'nothing else is answered on that connection');
    }
    assert.equal((await s.get('/scopes')).status, 200, 'the service goes on');
  }));

test('a client that half-closes once its request is sent (nc -N, some HTTP/1.0 clients) gets the whole answer, then the connection closes', () =>
  withServer(async (s) => {
    /** The request written on a fresh connection whose sending side is then closed; the answer read until the server closes. */
    const halfClosed = async (request: string): Promise<{ head: string; body: string }> => {
      const socket = net.connect(s.port, '127.0.0.1');
      socket.end(request);
      const answer = await readAll(socket);
      const split = answer.indexOf('\r\n\r\n');
      const head = answer.slice(0, split);
      const body = answer.slice(split + 4);
      assert.equal(body.length, Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]), `the whole body: ${JSON.stringify(answer)}`);
      return { head, body };
    };
    const ready = await halfClosed('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.deepEqual(
      [ready.head.split('\r\n')[0], ready.body],
      ['HTTP/1.1 200 OK', '{"status":"ready"}'],
      'an answer that waits on the database',
    );
    const added = await halfClosed(
      `POST /center/add HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\nContent-Length: 17\r\n\r\n{"name":"halves"}`,
    );
    assert.match(added.head, /^HTTP\/1\.1 200 /, `a write, with the key: ${added.head}`);
    const scopes = await halfClosed(`GET /scopes HTTP/1.0\r\nAuthorization: ${TOKEN}\r\n\r\n`);
    assert.match(scopes.head, /^HTTP\/1\.1 200 /, 'HTTP/1.0');
    assert.deepEqual(
      JSON.parse(scopes.body).scope.map((c: { name: string }) => c.name),
      ['halves'],
      'the center the half-closed POST added',
    );
  }));

/** Write one request (asking for the connection to close) on a fresh connection and read until it closes. */
function raw(port: number, text: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(text.replace('\r\n', '\r\nConnection: close\r\n'));
  return readAll(socket);
}

function readAll(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 5 s; got ${JSON.stringify(out.slice(0, 200))}`));
    }, 5000);
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

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

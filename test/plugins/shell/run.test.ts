import assert from 'node:assert/strict';
import { test } from 'uvu';
import { lastBytes } from '../../../plugins/shell/results';
import { answerBytes, eventually } from '../../support/fake-agent';
import { shellSite } from './helpers';

const now = () => Math.floor(Date.now() / 1000);

test('run a command and read its result back with GET and POST /shell/output', async () => {
  const x = await shellSite(1);
  try {
    const ip = x.ips[0]!;
    x.agents[0]!.on('shell/run', (request) => ({ body: { cmd: request.body.run, out: 'Linux pc 6.1\n', retcode: 0 } }));
    const before = now();
    const r = await x.s.post('/shell/run', { clients: [ip], run: 'uname -a' });
    assert.equal(r.status, 200, `status: ${r.text}`);
    assert.deepEqual(r.body, { clients: [{ addr: ip, outcome: 'sent' }] }, 'relay outcome');
    const seen = await x.agents[0]!.waitFor('shell/run');
    assert.equal(
      seen.raw,
      `POST /shell/run HTTP/1.1\r\nContent-Length: 30\r\nContent-Type: application/json\r\n\r\n{"run":"uname -a","echo":true}`,
      'bytes sent to the agent',
    );
    const [result] = await x.outputOnce([ip]);
    assert.deepEqual(Object.keys(result!), ['addr', 'retcode', 'cmd', 'timestamp', 'output'], 'field names and order');
    assert.deepEqual(
      { ...result, timestamp: 0 },
      { addr: ip, retcode: 0, cmd: 'uname -a', timestamp: 0, output: 'Linux pc 6.1\n' },
      'result',
    );
    assert.ok(
      Number.isInteger(result!.timestamp) && result!.timestamp >= before && result!.timestamp <= now(),
      `timestamp is the answer time in epoch seconds: ${result!.timestamp}`,
    );
    const viaGet = await x.s.get('/shell/output', { clients: [ip] });
    assert.equal(viaGet.status, 200, `GET: ${viaGet.text}`);
    assert.deepEqual(viaGet.body.clients, [result], 'GET answers the same');
    assert.equal((await x.entry(ip))?.last_cmd.result, 'success', 'last_cmd success');
  } finally {
    await x.close();
  }
});

test('cmd is the command as sent, whatever the agent reports', async () => {
  const x = await shellSite(1);
  try {
    x.agents[0]!.on('shell/run', { body: { cmd: '/bin/bash -c something-else', out: 'ok', retcode: 0 } });
    await x.s.post('/shell/run', { clients: x.ips, run: 'ls /tmp' });
    const [result] = await x.outputOnce(x.ips);
    assert.equal(result!.cmd, 'ls /tmp', 'command as originally sent');
  } finally {
    await x.close();
  }
});

test('a client whose command is still running is left out, then shown when it finishes', async () => {
  const x = await shellSite(2);
  try {
    const [fast, slow] = x.ips as [string, string];
    x.agents[0]!.on('shell/run', { body: { cmd: 'sleep', out: 'fast', retcode: 0 } });
    x.agents[1]!.on('shell/run', { none: true });
    const r = await x.s.post('/shell/run', { clients: x.ips, run: 'sleep 10' });
    assert.deepEqual(
      r.body.clients.map((c: { outcome: string }) => c.outcome),
      ['sent', 'sent'],
      'sent to both',
    );
    await x.agents[1]!.waitFor('shell/run');
    const partial = await x.outputOnce([slow, fast], 1);
    assert.deepEqual(
      partial.map((c) => c.addr),
      [fast],
      'the running client is left out',
    );
    assert.equal((await x.entry(slow))?.state, 'BSY', 'the running client shows busy');
    x.agents[1]!.write(answerBytes(200, { cmd: 'sleep 10', out: 'slow', retcode: 0 }));
    const all = await x.outputOnce([slow, fast]);
    assert.deepEqual(
      all.map((c) => [c.addr, c.output]),
      [
        [slow, 'slow'],
        [fast, 'fast'],
      ],
      'both, in the order asked',
    );
  } finally {
    await x.close();
  }
});

test('a command that fails keeps its return code and error text', async () => {
  const x = await shellSite(1);
  try {
    x.agents[0]!.on('shell/run', { body: { cmd: 'false', out: 'ls: cannot access /nope: No such file or directory\n', retcode: 2 } });
    await x.s.post('/shell/run', { clients: x.ips, run: 'ls /nope' });
    const [result] = await x.outputOnce(x.ips);
    assert.equal(result!.retcode, 2, 'non-zero return code');
    assert.equal(result!.output, 'ls: cannot access /nope: No such file or directory\n', 'error text');
  } finally {
    await x.close();
  }
});

test('an agent that cannot run the command (500) leaves the client out and drops the older result', async () => {
  const x = await shellSite(1);
  try {
    const ip = x.ips[0]!;
    x.agents[0]!.on('shell/run', { body: { cmd: 'true', out: 'first', retcode: 0 } });
    await x.s.post('/shell/run', { clients: [ip], run: 'true' });
    await x.outputOnce([ip]);
    x.agents[0]!.on('shell/run', { status: 500 });
    await x.s.post('/shell/run', { clients: [ip], run: 'broken' });
    await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'failure', 'failure recorded');
    assert.deepEqual(await x.output([ip]), [], 'no result: the newest command replaced the older one and failed');
  } finally {
    await x.close();
  }
});

test('an answer without an out string is a failure and stores nothing', async () => {
  const x = await shellSite(1);
  try {
    const ip = x.ips[0]!;
    x.agents[0]!.on('shell/run', { body: { out: null } });
    await x.s.post('/shell/run', { clients: [ip], run: 'echo' });
    await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'failure', 'failure recorded');
    assert.deepEqual(await x.output([ip]), [], 'nothing stored');
    x.agents[0]!.on('shell/run', { body: { out: 'x', retcode: 'zero' } });
    await x.s.post('/shell/run', { clients: [ip], run: 'echo' });
    await eventually(async () => (await x.agents[0]!.waitFor('shell/run', 1)) && (await x.entry(ip))?.state !== 'BSY', 'second answered');
    assert.equal((await x.entry(ip))?.last_cmd.result, 'failure', 'a retcode that is not an integer fails too');
    assert.deepEqual(await x.output([ip]), [], 'nothing stored');
  } finally {
    await x.close();
  }
});

test("the reference agent's answer (out only) is stored with retcode null", async () => {
  const x = await shellSite(1);
  try {
    x.agents[0]!.on('shell/run', { body: { out: 'hello\n' } });
    await x.s.post('/shell/run', { clients: x.ips, run: 'echo hello' });
    const [result] = await x.outputOnce(x.ips);
    assert.equal(result!.retcode, null, 'no return code reported');
    assert.equal(result!.output, 'hello\n', 'output');
  } finally {
    await x.close();
  }
});

test('echo false and extra keys are relayed; an answer without a body leaves nothing to show', async () => {
  const x = await shellSite(1);
  try {
    const ip = x.ips[0]!;
    const r = await x.s.post('/shell/run', { clients: [ip], run: 'reboot-later', echo: false, inline: true });
    assert.equal(r.status, 200, r.text);
    const seen = await x.agents[0]!.waitFor('shell/run');
    assert.deepEqual(seen.body, { run: 'reboot-later', echo: false, inline: true }, 'caller keys in order, clients removed');
    await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'success' && (await x.entry(ip))?.state !== 'BSY', 'answered');
    assert.deepEqual(await x.output([ip]), [], 'no output to show');
  } finally {
    await x.close();
  }
});

test('non-ASCII output is escaped in the response and reads back unchanged', async () => {
  const x = await shellSite(1);
  try {
    const text = 'héllo ✓ 日本 😀\n';
    x.agents[0]!.on('shell/run', { body: { cmd: 'echo', out: text, retcode: 0 } });
    await x.s.post('/shell/run', { clients: x.ips, run: 'echo "héllo"' });
    await x.outputOnce(x.ips);
    const r = await x.s.post('/shell/output', { clients: x.ips });
    assert.ok(/^[\x00-\x7f]*$/.test(r.text), `response is ASCII only: ${r.text}`);
    for (const escaped of ['\\u00e9', '\\u2713', '\\u65e5\\u672c', '\\ud83d\\ude00'])
      assert.ok(r.text.includes(escaped), `contains ${escaped}: ${r.text}`);
    assert.equal(r.body.clients[0].output, text, 'decodes to the original text');
    assert.equal(r.body.clients[0].cmd, 'echo "héllo"', 'the command too');
  } finally {
    await x.close();
  }
});

test('a very large output keeps its last max_output_bytes; several of them hit the 256 KiB response cap', async () => {
  const x = await shellSite(3, { max_output_bytes: 100_000 });
  try {
    const big = `${'x'.repeat(150_000)}THE END`;
    for (const agent of x.agents) agent.on('shell/run', { body: { cmd: 'cat', out: big, retcode: 0 } });
    await x.s.post('/shell/run', { clients: x.ips, run: 'cat big.log' });
    for (const ip of x.ips) await x.outputOnce([ip]);
    const [one] = await x.output([x.ips[0]!]);
    assert.equal(one!.output.length, 100_000, 'bounded to max_output_bytes');
    assert.ok(one!.output.endsWith('THE END'), 'the end of the output is kept');
    const all = await x.s.post('/shell/output', { clients: x.ips });
    assert.equal(all.status, 500, `three 100 kB outputs exceed the 256 KiB cap: ${all.text.slice(0, 200)}`);
    assert.equal(all.body.error, 'response_too_large', 'error code');
  } finally {
    await x.close();
  }
});

test('lastBytes cuts UTF-8 on a character boundary', () => {
  assert.equal(lastBytes('abc', 10), 'abc', 'short text unchanged');
  assert.equal(lastBytes('aé✓', 5), 'é✓', 'exactly fits: 2 + 3 bytes');
  assert.equal(lastBytes('aé✓', 4), '✓', 'a cut inside é drops the whole character');
  assert.equal(lastBytes('😀😀', 5), '😀', 'never half a 4-byte character');
  assert.ok(Buffer.byteLength(lastBytes('é'.repeat(1000), 1001)) <= 1001, 'within the bound');
});

test('clients not connected or busy are reported and not sent the command', async () => {
  const x = await shellSite(2, {}, 1);
  try {
    const [on, off] = x.ips as [string, string];
    x.agents[0]!.on('shell/run', { none: true });
    const first = await x.s.post('/shell/run', { clients: [on, off, '127.0.9.9'], run: 'sleep 100' });
    assert.deepEqual(
      first.body.clients,
      [
        { addr: on, outcome: 'sent' },
        { addr: off, outcome: 'not_connected' },
        { addr: '127.0.9.9', outcome: 'not_connected' },
      ],
      'outcomes',
    );
    await x.agents[0]!.waitFor('shell/run');
    const second = await x.s.post('/shell/run', { clients: [on], run: 'date' });
    assert.deepEqual(second.body.clients, [{ addr: on, outcome: 'busy' }], 'a busy client is not sent a second command');
    assert.deepEqual(await x.output([on, off, '127.0.9.9']), [], 'nobody has a result');
  } finally {
    await x.close();
  }
});

test('a removed client loses its stored result', async () => {
  const x = await shellSite(1);
  try {
    x.agents[0]!.on('shell/run', { body: { cmd: 'id', out: 'uid=0', retcode: 0 } });
    await x.s.post('/shell/run', { clients: x.ips, run: 'id' });
    await x.outputOnce(x.ips);
    const r = await x.s.post('/client/delete', { clients: x.ips });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await x.output(x.ips), [], 'forgotten');
  } finally {
    await x.close();
  }
});

test('bad requests are refused naming the field', async () => {
  const x = await shellSite(1);
  try {
    const cases: [string, unknown, string][] = [
      ['/shell/run', { clients: x.ips }, 'run'],
      ['/shell/run', { clients: x.ips, run: '' }, 'run'],
      ['/shell/run', { clients: x.ips, run: 42 }, 'run'],
      ['/shell/run', { clients: x.ips, run: 'ls', echo: 'yes' }, 'echo'],
      ['/shell/run', { run: 'ls' }, 'clients'],
      ['/shell/run', { clients: ['127.0.3.300'], run: 'ls' }, 'clients'],
      ['/shell/output', {}, 'clients'],
      ['/shell/output', { clients: ['nope'] }, 'clients'],
      ['/shell/output', { clients: '127.0.3.1' }, 'clients'],
    ];
    for (const [path, body, field] of cases) {
      const r = await x.s.post(path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
      assert.ok(String(r.body.field).startsWith(field), `${path} ${JSON.stringify(body)} names ${field}: ${r.text}`);
    }
    for (const method of ['GET', 'POST']) {
      const r = await x.s.request(method, '/shell/output');
      assert.equal(r.status, 400, `${method} /shell/output without a body: ${r.text}`);
    }
    assert.equal(x.agents[0]!.requests.filter((q) => q.path === 'shell/run').length, 0, 'no refused request reached the agent');
  } finally {
    await x.close();
  }
});

test.run();

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'uvu';
import { FakeAgent, answerBytes, eventually, within } from '../../support/fake-agent';
import { site } from './helpers';

test('answers split into tiny writes and answers coalesced with events are all read', async () => {
  const x = await site(2);
  try {
    const [a, b] = x.ips as [string, string];
    const split = await FakeAgent.connect({ port: x.link.port(), localAddress: a });
    x.agents.push(split);
    split.on('refresh', { splitEvery: 3, body: { status: 'LINUX' } });
    await eventually(async () => (await x.entry(a))?.state === 'LNX', 'refresh answered 3 bytes at a time');

    const joined = await FakeAgent.connect({ port: x.link.port(), localAddress: b, mode: 'linux' });
    x.agents.push(joined);
    // The answer, then two events, in one write: the reference would lose the events.
    joined.on('refresh', {
      raw:
        answerBytes(200, { status: 'LINUX' }) +
        answerBytes(103, { event: 'session', action: 'start', user: 'u' }) +
        answerBytes(103, { event: 'session', action: 'stop', user: 'u' }) +
        answerBytes(103, { event: 'session', action: 'start', user: 'u' }),
    });
    await eventually(async () => (await x.entry(b))?.state === 'LNXS', 'answer and events from one write');
  } finally {
    await x.close();
  }
});

test('garbage, oversized and non-JSON answers drop only that connection, with a log line', async () => {
  const x = await site(4, { max_answer_bytes: 4096 });
  try {
    const [g, o, j, bystander] = x.ips as [string, string, string, string];
    const ok = await x.connect(bystander);
    const cases: [string, string, RegExp][] = [
      [g, 'SSH-2.0-OpenSSH_9.0\r\n\r\n', /not an HTTP\/1.0 status line/],
      [o, `HTTP/1.0 200 OK\r\nContent-Length: 5000\r\n\r\n${'x'.repeat(5000)}`, /exceeds agents.max_answer_bytes/],
      [j, 'HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n{oops', /not JSON/],
    ];
    for (const [ip, raw, why] of cases) {
      const agent = await FakeAgent.connect({ port: x.link.port(), localAddress: ip });
      x.agents.push(agent);
      agent.on('refresh', { raw });
      await within(agent.closed, 5000, `${ip} dropped`);
      assert.ok(
        x.s.logs.some((l) => l.ip === ip && why.test(l.msg)),
        `${ip}: reason logged (${why})`,
      );
    }
    assert.ok(ok.isConnected, 'the well-behaved agent stays connected');
    await x.s.post('/hardware', { clients: [bystander] });
    await eventually(async () => (await x.s.get('/hardware', { client: [bystander] })).body.hardware.length === 3, 'and still works');
  } finally {
    await x.close();
  }
});

test('an unsolicited answer is logged and ignored', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.write(answerBytes(200, { status: 'OPG' }));
    await eventually(() => x.s.logs.some((l) => /no outstanding request/.test(l.msg)), 'logged');
    assert.ok(agent.isConnected, 'kept');
  } finally {
    await x.close();
  }
});

test('fuzz: random bytes from many agents never crash the server or touch a well-behaved client', async () => {
  const x = await site(9, { max_answer_bytes: 2048 });
  try {
    const bystander = x.ips[8]!;
    const ok = await x.connect(bystander);
    const samples = fc.sample(fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 6 }), 8);
    await Promise.all(
      samples.map(async (chunks, i) => {
        const agent = await FakeAgent.connect({ port: x.link.port(), localAddress: x.ips[i]! });
        x.agents.push(agent);
        await agent.waitFor('refresh');
        for (const chunk of chunks) agent.write(Buffer.from(chunk));
        agent.write(answerBytes(200, { status: 'LINUX' }));
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(ok.isConnected, 'bystander still connected');
    const r = await x.s.post('/refresh', { clients: [bystander] });
    assert.deepEqual(r.body.clients, [{ addr: bystander, outcome: 'sent' }], 'bystander still served');
    await ok.waitFor('refresh', 1);
    await eventually(async () => (await x.entry(bystander))?.state === 'OPG', 'bystander answer stored');
  } finally {
    await x.close();
  }
});

test.run();

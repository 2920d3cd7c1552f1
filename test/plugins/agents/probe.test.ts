import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually, within } from '../../support/fake-agent';
import { site } from './helpers';

test('POST /clients probes each connected client: POST /probe with no body; answers set OPG/VDI and speed', async () => {
  const x = await site(3);
  try {
    const live = await x.connect(x.ips[0]!, { speed: 100 });
    const virtual = await x.connect(x.ips[1]!, { mode: 'virtual' });
    const r = await x.s.post('/clients', { clients: [x.ips[0], x.ips[1], x.ips[2], x.ips[0]] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.clients,
      [
        { addr: x.ips[0], outcome: 'sent' },
        { addr: x.ips[1], outcome: 'sent' },
        { addr: x.ips[2], outcome: 'not_connected' },
      ],
      'per-client outcome, duplicates once',
    );
    const probe = await live.waitFor('probe');
    assert.equal(
      probe.raw,
      'POST /probe HTTP/1.1\r\nContent-Length: 0\r\nContent-Type: application/json\r\n\r\n',
      'probe bytes as the reference',
    );
    await virtual.waitFor('probe');
    await eventually(async () => (await x.entry(x.ips[1]!))?.state === 'VDI', 'virtual agent shows VDI');
    assert.equal((await x.entry(x.ips[0]!))?.speed, 100, 'speed from the probe answer');
    assert.equal((await x.entry(x.ips[0]!))?.state, 'OPG', 'live agent OPG');
    assert.ok(!x.s.logs.some((l) => /POST \/clients/.test(l.msg)), 'POST /clients is not logged');
  } finally {
    await x.close();
  }
});

test('a busy agent answers the probe 202 with a BSY body: shown BSY, skipped for commands, cleared by an idle probe', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.busy = true;
    await x.s.post('/clients', { clients: [ip] });
    await agent.waitFor('probe');
    await eventually(async () => (await x.entry(ip))?.state === 'BSY', 'BSY after a 202 probe answer');
    const refresh = await x.s.post('/refresh', { clients: [ip] });
    assert.deepEqual(refresh.body.clients, [{ addr: ip, outcome: 'busy' }], 'busy client skipped and reported');
    const reboot = await x.s.post('/reboot', { clients: [ip] });
    assert.deepEqual(reboot.body.clients, [{ addr: ip, outcome: 'sent' }], 'reboot is sent even when busy');
    await agent.waitFor('reboot');
  } finally {
    await x.close();
  }
});

test('an idle probe answer clears the busy flag', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.busy = true;
    await x.s.post('/clients', { clients: [ip] });
    await eventually(async () => (await x.entry(ip))?.state === 'BSY', 'BSY');
    agent.busy = false;
    await x.s.post('/clients', { clients: [ip] });
    await agent.waitFor('probe', 1);
    await eventually(async () => (await x.entry(ip))?.state === 'OPG', 'OPG again');
  } finally {
    await x.close();
  }
});

test('an outstanding probe never shows BSY and never blocks a command', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('probe', { delayMs: 300, body: { status: 'OPG', speed: 10 } });
    await x.s.post('/clients', { clients: [ip] });
    await agent.waitFor('probe');
    assert.equal((await x.entry(ip))?.state, 'OPG', 'not BSY while the probe is outstanding');
    const r = await x.s.post('/hardware', { clients: [ip] });
    assert.deepEqual(r.body.clients, [{ addr: ip, outcome: 'sent' }], 'command accepted during the probe');
    const hardware = await agent.waitFor('hardware');
    assert.ok(hardware, 'command delivered after the probe answer');
    assert.equal(agent.discardedBytes, 0, 'never two requests in one write: the real agent would drop the second');
    await eventually(async () => (await x.s.get('/hardware', { client: [ip] })).body.hardware.length === 3, 'hardware stored');
    assert.equal((await x.entry(ip))?.speed, 10, 'probe answer applied');
  } finally {
    await x.close();
  }
});

test('a probe while a command runs is skipped (busy)', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('hardware', { delayMs: 300, body: { hardware: 'cpu=x' } });
    await x.s.post('/hardware', { clients: [ip] });
    const r = await x.s.post('/clients', { clients: [ip] });
    assert.deepEqual(r.body.clients, [{ addr: ip, outcome: 'busy' }], 'probe skipped');
    assert.equal((await x.entry(ip))?.state, 'BSY', 'a running command shows BSY');
    await eventually(async () => (await x.entry(ip))?.state === 'OPG', 'idle after the answer');
    assert.equal(agent.requests.filter((q) => q.path === 'probe').length, 0, 'no probe written');
  } finally {
    await x.close();
  }
});

test('agents.probe_interval_s probes periodically; a probe left unanswered drops the half-open connection', async () => {
  const x = await site(2, { probe_interval_s: 0.2, probe_timeout_s: 1 });
  try {
    const good = await x.connect(x.ips[0]!);
    const silent = await x.connect(x.ips[1]!);
    silent.on('probe', { none: true }, true);
    await good.waitFor('probe', 1);
    await within(silent.closed, 5000, 'silent agent reaped');
    assert.ok(good.isConnected, 'the answering agent stays');
    assert.ok(
      x.s.logs.some((l) => /no answer to a probe/.test(String(l.reason))),
      'reason logged',
    );
  } finally {
    await x.close();
  }
});

test('POST /clients refuses malformed addresses and a missing list', async () => {
  const x = await site(1);
  try {
    const bad = await x.s.post('/clients', { clients: ['10.0.0.300'] });
    assert.equal(bad.status, 400, 'malformed address');
    assert.equal(bad.body.field, 'clients[0]', `field named: ${bad.text}`);
    const missing = await x.s.post('/clients', {});
    assert.equal(missing.status, 400, 'missing clients');
    const wrongType = await x.s.post('/clients', { clients: '127.0.1.1' });
    assert.equal(wrongType.status, 400, 'a string instead of a list');
    const put = await x.s.request('PUT', '/clients');
    assert.equal(put.status, 405, 'unsupported method');
  } finally {
    await x.close();
  }
});

test.run();

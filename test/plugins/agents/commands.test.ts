import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AgentLinkError } from '../../../plugins/agents';
import { eventually, within } from '../../support/fake-agent';
import { site } from './helpers';

const head = (method: string, path: string, body = '') =>
  `${method} /${path} HTTP/1.1\r\nContent-Length: ${body.length}\r\nContent-Type: application/json\r\n\r\n${body}`;

test('poweroff, reboot, stop, refresh and hardware are relayed with the reference bytes; 200 with outcomes', async () => {
  const x = await site(5);
  try {
    const cases: [string, string, string][] = [
      ['/poweroff', 'POST', 'poweroff'],
      ['/reboot', 'POST', 'reboot'],
      ['/stop', 'POST', 'stop'],
      ['/refresh', 'GET', 'refresh'],
      ['/hardware', 'GET', 'hardware'],
    ];
    for (const [i, [route, method, path]] of cases.entries()) {
      const ip = x.ips[i]!;
      const agent = await x.connect(ip);
      const r = await x.s.post(route, { clients: [ip, '127.0.1.99'] });
      assert.equal(r.status, 200, `${route}: ${r.text}`);
      // The jobs plugin (on by default) adds the id of the command's job.
      const { job, ...outcomes } = r.body;
      assert.ok(Number.isInteger(job), `${route}: the job`);
      assert.deepEqual(
        outcomes,
        {
          clients: [
            { addr: ip, outcome: 'sent' },
            { addr: '127.0.1.99', outcome: 'not_connected' },
          ],
        },
        `${route} outcomes`,
      );
      const seen = await agent.waitFor(path, path === 'refresh' ? 1 : 0);
      assert.equal(seen.raw, head(method, path), `${route} request bytes`);
      const line = new RegExp(`^127\\.0\\.0\\.1:\\d+ POST ${route} clients=${ip},127\\.0\\.1\\.99 status=200 ms=[\\d.]+$`);
      assert.ok(
        x.s.logs.some((l) => line.test(l.msg)),
        `${route} request logged with its clients`,
      );
    }
    // poweroff and reboot answer 202 and close; stop closes without answering.
    for (const i of [0, 1, 2]) await within(x.agents[i]!.closed, 5000, `agent ${i} disconnected after its power command`);
    // last_cmd.result is already 'success' from the connect refresh: wait for the rows themselves.
    await eventually(async () => (await x.s.get('/hardware', { client: [x.ips[4]] })).body.hardware.length > 0, 'hardware answer stored');
    const hw = await x.s.get('/hardware', { client: [x.ips[4]] });
    assert.deepEqual(
      hw.body.hardware,
      [
        { description: 'Intel Core i5 3.2GHz', type: 'Microprocesadores' },
        { description: 'QEMU 8192MiB', type: 'Memorias' },
        { description: 'Intel 82540EM Gigabit', type: 'Tarjetas de Red' },
      ],
      "hardware stored by type code, read back with the reference's type descriptions",
    );
  } finally {
    await x.close();
  }
});

test('hardware types read as the reference describes them by default, or in English with agents.hardware_type_names', async () => {
  const text = 'vga=Cirrus\ncdr=QEMU DVD-ROM\nboo=UEFI\nboa=Intel 440FX\n';
  for (const [names, expected] of [
    ['reference', ['Tarjetas gr\u00e1ficas', 'Modelo de grabadora o  grabadora de CD/DVD', 'Tipo de proceso de arranque', 'Placas']],
    ['english', ['Graphics card', 'Optical drive', 'Boot type', 'Board']],
  ] as const) {
    const x = await site(1, names === 'reference' ? {} : { hardware_type_names: names });
    try {
      const ip = x.ips[0]!;
      const agent = await x.connect(ip);
      agent.on('hardware', { body: { hardware: text } });
      await x.s.post('/hardware', { clients: [ip] });
      await eventually(async () => (await x.s.get('/hardware', { client: [ip] })).body.hardware.length === 4, `${names}: stored`);
      const r = await x.s.get('/hardware', { client: [ip] });
      assert.deepEqual(
        r.body.hardware.map((h: { type: string }) => h.type),
        expected,
        `${names}: type names`,
      );
      if (names === 'reference') assert.ok(r.text.includes('Tarjetas gr\\u00e1ficas'), 'non-ASCII escaped on the wire');
    } finally {
      await x.close();
    }
  }
});

test('a hardware answer with an unknown type code fails as a whole and keeps the old inventory', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    await x.s.post('/hardware', { clients: [ip] });
    await eventually(async () => (await x.s.get('/hardware', { client: [ip] })).body.hardware.length === 3, 'first inventory');
    // The rows are visible to other database connections a moment before the agent is idle again.
    await eventually(async () => (await x.entry(ip))?.state === 'OPG', 'idle after the first answer');
    agent.on('hardware', { body: { hardware: 'cpu=new\nzzz=what' } });
    assert.deepEqual((await x.s.post('/hardware', { clients: [ip] })).body.clients, [{ addr: ip, outcome: 'sent' }], 'second request sent');
    await agent.waitFor('hardware', 1);
    await eventually(async () => (await x.entry(ip))?.last_cmd.result === 'failure', 'failure recorded');
    assert.equal((await x.s.get('/hardware', { client: [ip] })).body.hardware.length, 3, 'old inventory kept');
    assert.equal((await x.s.get('/hardware', { client: ['127.0.9.9'] })).status, 400, 'unknown client refused');
    assert.equal((await x.s.get('/hardware', { client: [ip, ip] })).status, 400, 'exactly one client');
  } finally {
    await x.close();
  }
});

test('POST /software relays {disk, partition} and stores the list per client, disk and partition', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const r = await x.s.post('/software', { clients: [ip], disk: '1', partition: '2' });
    assert.deepEqual(r.body.clients, [{ addr: ip, outcome: 'sent' }], r.text);
    const seen = await agent.waitFor('software');
    assert.equal(
      seen.raw,
      head('GET', 'software', '{"disk":"1","partition":"2"}'),
      'software request bytes: the REST body without clients',
    );
    // last_cmd.result is already 'success' from the connect refresh: wait until the agent is idle again.
    await eventually(async () => (await x.entry(ip))?.state === 'OPG' && (await x.entry(ip))?.last_cmd.result === 'success', 'stored');
    const list = await x.s.get('/software', { client: [ip], disk: 1, partition: 2 });
    assert.deepEqual(list.body, { software: ['bash 5.1', 'coreutils 8.32'] }, 'packages without the OS line');
    const other = await x.s.get('/software', { client: [ip], disk: 2, partition: 2 });
    assert.deepEqual(other.body, { software: [] }, 'another disk has nothing');
    const missing = await x.s.post('/software', { clients: [ip], disk: '1' });
    assert.equal(missing.status, 400, 'partition required');
    assert.equal(missing.body.field, 'partition', missing.text);
    for (const [disk, partition, field] of [
      ['65536', '1', 'disk'],
      ['1', '99999', 'partition'],
      [1, 70000, 'partition'],
      ['-1', '1', 'disk'],
    ] as const) {
      const bad = await x.s.post('/software', { clients: [ip], disk, partition });
      assert.deepEqual([bad.status, bad.body.field], [400, field], `disk ${disk}, partition ${partition}: ${bad.text}`);
    }
    assert.equal(agent.requests.filter((q) => q.path === 'software').length, 1, 'no refused request reached the agent');
  } finally {
    await x.close();
  }
});

test('POST /session relays disk and partition; GET /session lists partitions with an OS, for one or several clients', async () => {
  const x = await site(2);
  try {
    const agent = await x.connect(x.ips[0]!);
    await x.connect(x.ips[1]!, { mode: 'linux' });
    const r = await x.s.post('/session', { clients: [x.ips[0]], disk: '1', partition: '2' });
    assert.deepEqual(r.body.clients, [{ addr: x.ips[0], outcome: 'sent' }], r.text);
    assert.equal((await agent.waitFor('session')).raw, head('POST', 'session', '{"disk":"1","partition":"2"}'), 'session bytes');
    const one = await x.s.get('/session', { client: [x.ips[0]] });
    const sessions = [{ disk: 1, partition: 2, name: 'Ubuntu 22.04 LTS' }];
    assert.deepEqual(one.body, { sessions, clients: [{ addr: x.ips[0], sessions }] }, 'one client');
    const two = await x.s.get('/session', { clients: [x.ips[0], x.ips[1]] });
    assert.deepEqual(
      two.body.clients,
      [
        { addr: x.ips[0], sessions },
        { addr: x.ips[1], sessions: [] },
      ],
      'several clients, in order',
    );
    assert.equal((await x.s.get('/session', {})).status, 400, 'no client named');
    assert.equal((await x.s.get('/session', { client: ['127.0.9.9'] })).status, 400, 'unknown client');
  } finally {
    await x.close();
  }
});

test('POST /setup relays the body without clients and stores the answer like a refresh; type is required', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const partitions = [
      { partition: '1', code: 'LINUX', filesystem: 'EXT4', size: '1048576', format: '1' },
      { partition: '2', code: 'EMPTY', filesystem: 'EMPTY', size: '0', format: '0' },
    ];
    const setup = { clients: [ip], type: 'GPT', disk: '1', cache: '0', cache_size: '0', partition_setup: partitions };
    agent.on('setup', {
      body: {
        serial_number: '',
        disk_setup: [{ disk: '1', disk_type: 'DISK', partition: '0', code: '2', filesystem: '', os: '', size: '2097152', used_size: '0' }],
        partition_setup: [
          { disk: '1', disk_type: '', partition: '1', code: '8300', filesystem: 'EXT4', os: '', size: '1048576', used_size: '0' },
        ],
      },
    });
    const r = await x.s.post('/setup', setup);
    assert.deepEqual(r.body.clients, [{ addr: ip, outcome: 'sent' }], r.text);
    const { clients: _c, ...relayed } = setup;
    assert.equal((await agent.waitFor('setup')).raw, head('POST', 'setup', JSON.stringify(relayed)), 'setup bytes');
    await eventually(
      async () => (await x.s.get('/client/setup', { client: [ip] })).body.partitions.length === 2,
      'new layout stored; old partition 2 deleted',
    );
    const { type: _t, ...untyped } = setup;
    const noType = await x.s.post('/setup', untyped);
    assert.equal(noType.status, 400, 'absent type refused');
    assert.equal(noType.body.field, 'type', noType.text);
    assert.equal((await x.s.post('/setup', { ...setup, type: 'APM' })).status, 400, 'only MSDOS or GPT');
    assert.equal((await x.s.post('/setup', { ...setup, partition_setup: [] })).status, 400, 'at least one partition');
    assert.equal((await x.s.post('/setup', { ...setup, disk: '../1' })).status, 400, 'disk must be a number');
  } finally {
    await x.close();
  }
});

test('busy clients are skipped (reported busy) except for poweroff, reboot and stop', async () => {
  const x = await site(2);
  try {
    const [a, b] = x.ips as [string, string];
    const agentA = await x.connect(a);
    await x.connect(b);
    agentA.on('hardware', { delayMs: 400, body: { hardware: 'cpu=x' } });
    await x.s.post('/hardware', { clients: [a] });
    const r = await x.s.post('/refresh', { clients: [a, b] });
    assert.deepEqual(
      r.body.clients,
      [
        { addr: a, outcome: 'busy' },
        { addr: b, outcome: 'sent' },
      ],
      'busy one skipped',
    );
    const off = await x.s.post('/poweroff', { clients: [a] });
    assert.deepEqual(off.body.clients, [{ addr: a, outcome: 'sent' }], 'poweroff forced through');
    await agentA.waitFor('poweroff');
    assert.equal(agentA.requests.filter((q) => q.path === 'refresh').length, 1, 'only the connect refresh reached the busy agent');
  } finally {
    await x.close();
  }
});

test('AgentLink.dispatch: answer promises, onAnswer handlers, failure when a handler throws or the agent says 500', async () => {
  const x = await site(2);
  try {
    const [a, b] = x.ips as [string, string];
    const agentA = await x.connect(a);
    const agentB = await x.connect(b);
    const stored: unknown[] = [];
    x.link.onAnswer('shell/run', (client, answer, request) => {
      if ((answer.body as { out?: string }).out === 'bad') throw new Error('refused');
      stored.push([client.ip, answer.body, request.body]);
    });
    agentA.on('shell/run', { body: { out: 'hello' } });
    agentB.on('shell/run', { status: 500 });
    const d = await x.link.dispatch([a, b, '127.0.1.77'], { method: 'POST', path: 'shell/run', body: { run: 'echo hello', echo: true } });
    assert.deepEqual(
      d.outcomes.map((o) => o.outcome),
      ['sent', 'sent', 'not_connected'],
      'outcomes',
    );
    const answerA = await within(d.answers.get(a)!, 5000, 'answer a');
    assert.deepEqual(answerA, { ip: a, status: 200, body: { out: 'hello' }, result: 'success' }, 'answer a, stored');
    assert.deepEqual(
      stored,
      [[a, { out: 'hello' }, { run: 'echo hello', echo: true }]],
      'handler given the request, and stored before the promise settled',
    );
    const answerB = await within(d.answers.get(b)!, 5000, 'answer b');
    assert.deepEqual([answerB.status, answerB.result], [500, 'failure'], 'a 500 answer resolves with its status, as a failure');
    assert.equal((await x.entry(a))?.last_cmd.result, 'success', 'a success');
    assert.equal((await x.entry(b))?.last_cmd.result, 'failure', 'b failure');
    assert.equal((await agentA.waitFor('shell/run')).raw, head('POST', 'shell/run', '{"run":"echo hello","echo":true}'), 'bytes');
    agentA.on('shell/run', { body: { out: 'bad' } });
    const refused = await (await x.link.dispatch([a], { method: 'POST', path: 'shell/run', body: { run: 'x', echo: true } })).answers.get(
      a,
    );
    assert.deepEqual([refused?.status, refused?.result], [200, 'failure'], 'a 200 answer a handler refused resolves as a failure');
    assert.equal((await x.entry(a))?.last_cmd.result, 'failure', 'a throwing handler makes the result failure');
  } finally {
    await x.close();
  }
});

test('a command without an answer fails after agents.command_timeout_s; the client is usable again', async () => {
  const x = await site(1, { command_timeout_s: 1 });
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('hardware', { none: true });
    const d = await x.link.dispatch([ip], { method: 'GET', path: 'hardware' });
    await assert.rejects(
      within(d.answers.get(ip)!, 5000, 'timeout'),
      (e: unknown) => e instanceof AgentLinkError && e.reason === 'timeout',
      'rejects with timeout',
    );
    assert.equal((await x.entry(ip))?.last_cmd.result, 'failure', 'failure after the timeout');
    assert.equal((await x.entry(ip))?.state, 'OPG', 'no longer busy');
    const again = await x.s.post('/refresh', { clients: [ip] });
    assert.deepEqual(again.body.clients, [{ addr: ip, outcome: 'sent' }], 'usable again');
  } finally {
    await x.close();
  }
});

test('a disconnect mid-command rejects the answer promise (disconnected), never hangs', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('hardware', { raw: 'HTTP/1.0 200 OK\r\nContent-Length: 100\r\n\r\n{"hardw', closeAfter: true });
    const d = await x.link.dispatch([ip], { method: 'GET', path: 'hardware' });
    await assert.rejects(
      within(d.answers.get(ip)!, 5000, 'reject'),
      (e: unknown) => e instanceof AgentLinkError && e.reason === 'disconnected',
      'rejects as disconnected',
    );
    assert.equal(x.link.isConnected(ip), false, 'gone from the link');
    assert.ok(
      x.s.logs.some((l) => /in the middle of an answer/.test(String(l.reason))),
      'truncated answer logged',
    );
  } finally {
    await x.close();
  }
});

test('poweroff over a running command interrupts it: its promise rejects, the poweroff is written alone', async () => {
  const x = await site(1);
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('hardware', { none: true });
    const running = await x.link.dispatch([ip], { method: 'GET', path: 'hardware' });
    await agent.waitFor('hardware');
    const off = await x.link.dispatch([ip], { method: 'POST', path: 'poweroff', force: true });
    assert.deepEqual(off.outcomes, [{ addr: ip, outcome: 'sent' }], 'forced through');
    await assert.rejects(
      within(running.answers.get(ip)!, 5000, 'interrupted'),
      (e: unknown) => e instanceof AgentLinkError && e.reason === 'interrupted',
      'the running command is interrupted',
    );
    assert.equal((await within(off.answers.get(ip)!, 5000, 'poweroff answer')).status, 202, 'poweroff answered 202');
    assert.equal(agent.discardedBytes, 0, 'one request per write');
  } finally {
    await x.close();
  }
});

test('a client updated to another IP loses its agent connection', async () => {
  const x = await site(1);
  try {
    const agent = await x.connect(x.ips[0]!);
    const info = await x.s.get('/client/info', { client: [x.ips[0]] });
    const r = await x.s.post('/client/update', { id: info.body.id, ip: '127.0.2.1' });
    assert.equal(r.status, 200, r.text);
    await within(agent.closed, 5000, 'dropped after the IP change');
    assert.equal(x.link.isConnected(x.ips[0]!), false, 'not listed under the old address');
  } finally {
    await x.close();
  }
});

test.run();

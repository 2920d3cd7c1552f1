// Engine-independent: runs once, on SQLite.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentLink } from '../../../plugins/agents';
import { EventStreamClient } from '../../support/event-stream';
import { eventually, FakeAgent } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { parsePrometheus } from '../../support/prometheus';
import { send, startServer, TOKEN, type TestServer } from '../../support/server';
import { UdpReceiver } from '../../support/udp-receiver';

async function scrape(s: TestServer) {
  const r = await send(s.port, 'GET', '/metrics', undefined, { Authorization: `Bearer ${TOKEN}` });
  assert.is(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(r.text);
}

test('GET /metrics: process and Node figures, and the counters move as the service works', async () => {
  const udp = await UdpReceiver.bind('127.0.0.12');
  const s = await startServer({ config: { wol: { port: udp.port } } });
  const stream = await EventStreamClient.open(s.port);
  try {
    const center = await addCenter(s, 'Metrics');
    const room = await addRoom(s, center, 'Lab', '255.255.255.0');
    await addClient(s, room, '127.0.0.11', macFor(1));
    await addClient(s, room, '127.0.0.12', macFor(2));
    const before = await scrape(s);
    assert.ok((before.value('ogserve_process_cpu_user_seconds_total') ?? -1) >= 0, 'process figures');
    assert.ok(before.value('ogserve_nodejs_heap_size_total_bytes')! > 0, 'Node figures');
    assert.is(before.types.get('ogserve_http_request_duration_seconds'), 'histogram');
    assert.is(before.value('ogserve_event_subscribers'), 1, 'the open stream');
    const filesBefore = before.value('ogserve_boot_files_written_total')!;
    assert.ok(filesBefore >= 4, 'two clients, BIOS and UEFI files each');
    const queriesBefore = before.sum('ogserve_db_query_duration_seconds_count');
    assert.ok(queriesBefore > 0, 'database statements timed');

    for (let i = 0; i < 3; i++) assert.is((await s.get('/clients')).status, 200);
    assert.is((await send(s.port, 'GET', '/clients')).status, 401);
    const agent = await FakeAgent.connect({ port: s.app.container.resolve(AgentLink).port(), localAddress: '127.0.0.11' });
    await eventually(async () => (await s.get('/clients')).body.clients.some((c: { state: string }) => c.state === 'OPG'), 'agent idle');
    assert.is((await s.post('/wol', { clients: ['127.0.0.12'], type: 'unicast' })).status, 200);
    await udp.waitFor(1);
    assert.is((await s.post('/mode', { clients: ['127.0.0.11', '127.0.0.12'], mode: 'pxe' })).status, 200);

    const after = await scrape(s);
    const requests = (labels: Record<string, string>) =>
      after.sum('ogserve_http_request_duration_seconds_count', labels) - before.sum('ogserve_http_request_duration_seconds_count', labels);
    assert.ok(requests({ method: 'GET', route: '/clients', status: '200' }) >= 4, 'three reads and the waits');
    assert.is(requests({ method: 'GET', route: 'unrouted', status: '401' }), 1, 'the refused read, before routing');
    assert.is(requests({ method: 'POST', route: '/wol', status: '200' }), 1);
    // Refusals by their code, heard through the onError hook.
    const errors = (labels: Record<string, string>) =>
      (after.value('ogserve_http_errors_total', labels) ?? 0) - (before.value('ogserve_http_errors_total', labels) ?? 0);
    assert.is(errors({ status: '401', error: 'unauthorized' }), 1, 'the refused read');
    assert.is(after.sum('ogserve_http_errors_total') - before.sum('ogserve_http_errors_total'), 1, 'nothing else refused');
    assert.is(after.value('ogserve_agents_connected', { state: 'OPG' }), 1);
    assert.is(after.value('ogserve_agent_commands_total', { command: 'refresh', outcome: 'sent' }), 1);
    assert.is(after.value('ogserve_agent_commands_total', { command: 'refresh', outcome: 'answered' }), 1);
    assert.is(after.value('ogserve_agent_command_duration_seconds_count', { command: 'refresh', outcome: 'answered' }), 1);
    assert.is(after.value('ogserve_wol_packets_total'), 1);
    assert.is(after.value('ogserve_boot_files_written_total')! - filesBefore, 4, 'POST /mode for two clients');
    assert.ok(after.sum('ogserve_db_query_duration_seconds_count') > queriesBefore);
    assert.ok(after.value('ogserve_events_published_total')! > 0);
    await agent.close();
    await eventually(async () => (await scrape(s)).value('ogserve_agents_connected', { state: 'OPG' }) === undefined, 'the agent gone');
  } finally {
    stream.close();
    await s.close();
    await udp.close();
  }
});

test('GET /metrics/targets: every client as a scrape target labelled from the inventory, with its state', async () => {
  const s = await startServer({ config: { metrics: { targets_port: 9101 } } });
  try {
    const north = await addCenter(s, 'North');
    const south = await addCenter(s, 'South');
    const lab = await addRoom(s, north, 'Lab 1');
    const library = await addRoom(s, south, 'Library');
    await addClient(s, lab, '127.0.0.21', macFor(0x21), { name: 'pc-21' });
    await addClient(s, library, '127.0.0.22', macFor(0x22), { name: 'pc-22' });
    const agent = await FakeAgent.connect({ port: s.app.container.resolve(AgentLink).port(), localAddress: '127.0.0.21' });
    await eventually(async () => (await s.get('/clients')).body.clients.some((c: { state: string }) => c.state === 'OPG'), 'agent idle');
    const r = await s.get('/metrics/targets');
    assert.is(r.status, 200);
    assert.equal(r.body, [
      { targets: ['127.0.0.21:9101'], labels: { center: 'North', room: 'Lab 1', name: 'pc-21', mac: macFor(0x21), state: 'OPG' } },
      { targets: ['127.0.0.22:9101'], labels: { center: 'South', room: 'Library', name: 'pc-22', mac: macFor(0x22), state: 'OFF' } },
    ]);
    assert.is((await send(s.port, 'GET', '/metrics/targets')).status, 401, 'the fleet is not public');
    assert.is((await send(s.port, 'GET', '/metrics')).status, 401);
    await agent.close();
  } finally {
    await s.close();
  }
});

test('GET /metrics/targets of a fleet larger than rest.max_response_bytes is answered whole', async () => {
  const s = await startServer({ config: { rest: { max_response_bytes: 4096 } } });
  try {
    const room = await addRoom(s, await addCenter(s));
    for (let i = 0; i < 60; i++) await addClient(s, room, `127.0.1.${i + 1}`, macFor(0x300 + i));
    const r = await s.get('/metrics/targets');
    assert.is(r.status, 200);
    assert.is(r.body.length, 60);
    assert.ok(r.text.length > 4096);
  } finally {
    await s.close();
  }
});

test('the key is also accepted as "Bearer <key>", on every route; a wrong one is refused', async () => {
  const s = await startServer();
  try {
    assert.is((await send(s.port, 'GET', '/scopes', undefined, { Authorization: `Bearer ${TOKEN}` })).status, 200);
    assert.is((await send(s.port, 'POST', '/center/add', { name: 'B' }, { Authorization: `Bearer ${TOKEN}` })).status, 200);
    assert.is((await send(s.port, 'GET', '/scopes', undefined, { Authorization: 'Bearer wrong' })).status, 401);
    assert.is((await send(s.port, 'GET', '/scopes', undefined, { Authorization: `Bearer  ${TOKEN}` })).status, 401, 'exactly one space');
  } finally {
    await s.close();
  }
});

test('without the metrics plugin nothing is timed or collected: no request, query or process figures in the registry', async () => {
  const without = await startServer({ config: { plugins: ['-metrics'] } });
  const withIt = await startServer();
  try {
    for (const s of [without, withIt]) assert.is((await s.get('/clients')).status, 200);
    const names = async (s: TestServer) => (await s.app.metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    const off = await names(without);
    for (const name of [
      'ogserve_http_request_duration_seconds',
      'ogserve_db_query_duration_seconds',
      'ogserve_process_cpu_user_seconds_total',
    ])
      assert.ok(!off.includes(name), `${name} with the plugin off`);
    assert.ok(off.includes('ogserve_event_listener_failures_total'), "core's failure counters stay");
    const on = await names(withIt);
    assert.ok(on.includes('ogserve_http_request_duration_seconds') && on.includes('ogserve_process_cpu_user_seconds_total'), 'with it on');
  } finally {
    await without.close();
    await withIt.close();
  }
});

test.run();

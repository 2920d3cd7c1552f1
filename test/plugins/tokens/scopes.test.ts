import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { test } from 'uvu';
import { AgentLink } from '../../../plugins/agents';
import { EventStreamClient } from '../../support/event-stream';
import { FakeAgent, eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { ogserve } from '../../support/process';
import { type TestServer, makeTestDir, removeTestStore, send, startServer } from '../../support/server';

const helloPlugin = path.resolve(__dirname, '../../../../examples/hello-complete');
const as = (secret: string) => ({ Authorization: secret });

/**
 * The routes a token limited to centers or rooms may call, and how (written here, not read
 * from the routes): `clients` routes refuse a client outside; `filtered` ones leave out
 * what is outside; `open` ones name no client. Every other route refuses such a token.
 */
const scoped: Record<string, 'clients' | 'filtered' | 'open'> = {
  'GET /version': 'open',
  'GET /auth/me': 'open',
  'POST /auth/logout': 'open',
  'GET /auth/tokens': 'open',
  'POST /auth/tokens': 'open',
  'DELETE /auth/tokens': 'open',
  'GET /scopes': 'filtered',
  'GET /client/info': 'clients',
  'GET /client/setup': 'clients',
  'GET /client/addresses': 'filtered',
  'GET /clients': 'filtered',
  'GET /cluster': 'open',
  'GET /console-views': 'open',
  'GET /console-access': 'open',
  'POST /clients': 'clients',
  'POST /poweroff': 'clients',
  'POST /reboot': 'clients',
  'POST /stop': 'clients',
  'POST /refresh': 'clients',
  'POST /hardware': 'clients',
  'GET /hardware': 'clients',
  'POST /session': 'clients',
  'GET /session': 'clients',
  'POST /software': 'clients',
  'GET /software': 'clients',
  'POST /setup': 'clients',
  'GET /mode': 'open',
  'POST /mode': 'clients',
  'GET /boot/next': 'filtered',
  'POST /boot/next': 'clients',
  'GET /efi': 'clients',
  'GET /live/list': 'open',
  'POST /live/set': 'clients',
  'GET /oglive/list': 'open',
  'POST /oglive/set': 'clients',
  'POST /wol': 'clients',
  'GET /wol/runs': 'filtered',
  'GET /wol/failed': 'filtered',
  'GET /wol/runs/:id': 'filtered',
  'DELETE /wol/runs/:id': 'filtered',
  'GET /stats': 'open',
  'POST /shell/run': 'clients',
  'POST /hello/wave': 'clients',
  'GET /hello': 'clients',
  'GET /shell/output': 'clients',
  'POST /shell/output': 'clients',
  'GET /shell/list': 'open',
  'POST /image/create': 'clients',
  'POST /image/restore': 'clients',
  'GET /cache/list': 'clients',
  'POST /cache/delete': 'clients',
  'POST /cache/fetch': 'clients',
  'POST /events/ticket': 'open',
  'GET /events': 'filtered',
  'GET /metrics/targets': 'filtered',
  'GET /images': 'open',
  'GET /image/clients': 'filtered',
  'GET /image/restrict': 'open',
  'GET /site': 'open',
  'GET /client/timeline': 'clients',
  'GET /jobs/:id/output': 'filtered',
  'GET /image/versions': 'open',
  'GET /image/trash': 'open',
  'GET /image/pulls': 'open',
  'GET /images/repository': 'open',
  'GET /images/transfers': 'filtered',
  'GET /repositories': 'open',
  'GET /server': 'open',
  'GET /client/history': 'clients',
  'GET /boot/timeline': 'clients',
  'GET /boot/stages': 'filtered',
  'GET /reports/hardware': 'filtered',
  'GET /reports/software': 'filtered',
  'GET /jobs': 'filtered',
  'GET /jobs/:id': 'filtered',
  'GET /energy': 'filtered',
  'GET /energy/now': 'filtered',
  'GET /groups': 'filtered',
  'GET /groups/:id': 'filtered',
};

interface Site {
  s: TestServer;
  centerA: number;
  centerB: number;
  roomA1: number;
  roomA2: number;
  roomB1: number;
  /** An admin token with shell limited to room A1, a reader limited to center A. */
  lab: string;
  school: string;
}

/** Center A (rooms A1: .30.1 and .30.2; A2: .30.3) and center B (room B1: .31.1). */
async function site(): Promise<Site> {
  const defaults = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../config/default.json'), 'utf8')) as { plugins: string[] };
  const s = await startServer({ config: { plugins: [...defaults.plugins, helloPlugin] } });
  const centerA = await addCenter(s, 'A');
  const centerB = await addCenter(s, 'B');
  const roomA1 = await addRoom(s, centerA, 'A1', '255.0.0.0');
  const roomA2 = await addRoom(s, centerA, 'A2', '255.0.0.0');
  const roomB1 = await addRoom(s, centerB, 'B1', '255.0.0.0');
  await addClient(s, roomA1, '127.0.30.1', macFor(0x301));
  await addClient(s, roomA1, '127.0.30.2', macFor(0x302));
  await addClient(s, roomA2, '127.0.30.3', macFor(0x303));
  await addClient(s, roomB1, '127.0.31.1', macFor(0x311));
  const lab = await s.post('/tokens', { name: 'lab', role: 'admin', shell: true, rooms: [roomA1] });
  assert.equal(lab.status, 200, lab.text);
  assert.deepEqual([lab.body.centers, lab.body.rooms], [[], [roomA1]]);
  const school = await s.post('/tokens', { name: 'school', role: 'reader', centers: [String(centerA)] });
  assert.equal(school.status, 200, school.text);
  return { s, centerA, centerB, roomA1, roomA2, roomB1, lab: lab.body.secret, school: school.body.secret };
}

test('every route says whether a limited token may call it, as this table expects', async () => {
  const x = await site();
  try {
    const declared = Object.fromEntries(x.s.app.routeTable.filter((r) => r.scoped).map((r) => [`${r.method} ${r.path}`, r.scoped]));
    assert.deepEqual(declared, scoped);
  } finally {
    await x.s.close();
  }
});

/**
 * Where a body may name a client, found from a route's schema alone (not from what the route
 * declares): every IPv4 string and every string field named like a client list, through
 * objects, arrays and unions. `ip` is put there as the schema holds it, and, where the schema
 * wants a list, as a bare string and as a list nested once more: a route must refuse a client
 * outside whatever shape carries it.
 */
function placements(schema: TSchema, ip: string, name = ''): { where: string; body: unknown }[] {
  const members = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined;
  if (members) return members.flatMap((m) => placements(m, ip, name));
  if (schema.type === 'object') {
    const properties = Object.entries((schema.properties ?? {}) as Record<string, TSchema>);
    return properties.flatMap(([key, property]) =>
      placements(property, ip, key).map(({ where, body }) => ({
        where: where ? `${key}${where.startsWith('[') ? '' : '.'}${where}` : key,
        body: { [key]: body },
      })),
    );
  }
  if (schema.type === 'array') {
    return placements(schema.items as TSchema, ip, name).flatMap(({ where, body }) => [
      { where: `[${where}]`, body: [body] },
      { where: `[[${where}]]`, body: [[body]] },
      ...(typeof body === 'string' ? [{ where: `${where} (a bare string where a list goes)`, body }] : []),
    ]);
  }
  const clientLike = schema.format === 'ipv4' || /^(client|clients|ip|addr)$/.test(name);
  return schema.type === 'string' && clientLike ? [{ where: '', body: ip }] : [];
}

/** Client routes that name their client in the query (written here, not read from the routes). */
const queryClients: Record<string, string> = {
  'GET /client/history': 'client',
  'GET /client/timeline': 'client',
  'GET /boot/timeline': 'client',
};

/** IPv4 fields of client routes that name something else than a client: the test refuses any other. */
const notClients = new Set(['POST /image/create repository', 'POST /image/restore repository', 'POST /cache/fetch repository']);

test('a limited token is refused, naming its limits, on every route not open to it, and on every client route naming a client outside anywhere its schema allows', async () => {
  const x = await site();
  try {
    let clientFields = 0;
    for (const route of x.s.app.routeTable) {
      if (route.public) continue;
      const key = `${route.method} ${route.path}`;
      const kind = scoped[key];
      if (kind === 'filtered' || kind === 'open') continue;
      if (kind === undefined) {
        const r = await send(x.s.port, route.method, route.path, {}, as(x.lab));
        assert.equal(r.status, 403, `${key}: ${r.text}`);
        assert.match(
          r.body.message,
          new RegExp(`^${route.method} ${route.path} is not open to the key 'lab', which is limited to rooms ${x.roomA1}$`),
          key,
        );
        continue;
      }
      const parameter = queryClients[key];
      if (parameter) {
        for (const named of ['127.0.31.1', '127.0.30.1,127.0.30.3', '10.9.9.9']) {
          const r = await send(x.s.port, route.method, `${route.path}?${parameter}=${named}`, undefined, as(x.lab));
          const outside = named.split(',').at(-1);
          assert.equal(r.status, 403, `${key} with ${named} in ?${parameter}: ${r.text}`);
          assert.equal(r.body.message, `client ${outside} is outside what the key 'lab' may reach (rooms ${x.roomA1})`, key);
        }
        const inside = await send(x.s.port, route.method, `${route.path}?${parameter}=127.0.30.1`, undefined, as(x.lab));
        assert.notEqual(inside.status, 403, `${key} inside: ${inside.text}`);
        clientFields++;
        continue;
      }
      assert.ok(route.body, `${key} names clients in its body (or list it in queryClients)`);
      const fields = new Set<string>();
      for (const outside of ['127.0.31.1', '127.0.30.3', '10.9.9.9']) {
        for (const { where, body } of placements(route.body!, outside)) {
          const field = where.split(/[.[ ]/, 1)[0]!;
          if (notClients.has(`${key} ${field}`)) continue;
          fields.add(field);
          const r = await send(x.s.port, route.method, route.path, body, as(x.lab));
          assert.equal(r.status, 403, `${key} with ${outside} at ${where}: ${r.text}`);
          assert.equal(r.body.message, `client ${outside} is outside what the key 'lab' may reach (rooms ${x.roomA1})`, `${key} ${where}`);
        }
      }
      assert.ok(fields.size > 0, `${key}: its schema has a field that names clients`);
      clientFields += fields.size;
      // A client inside beside one outside is still refused; clients inside only are let through.
      for (const { where, body } of placements(route.body!, '127.0.30.1')) {
        if (notClients.has(`${key} ${where.split(/[.[ ]/, 1)[0]}`)) continue;
        const inside = await send(x.s.port, route.method, route.path, body, as(x.lab));
        assert.notEqual(inside.status, 403, `${key} inside at ${where}: ${inside.text}`);
      }
      const both = await send(x.s.port, route.method, route.path, mixed(route.body!), as(x.lab));
      assert.equal(both.status, 403, `${key} inside and outside: ${both.text}`);
    }
    assert.ok(clientFields >= 30, `the walk reached the client routes' fields (${clientFields})`);
    // Refused attempts are in the audit log under the token's name, with the client they named.
    const audit = (await x.s.get('/audit?token=lab&limit=1000')).body.entries as { status: number; path: string; clients: string[] }[];
    const refusedWave = audit.find((e) => e.status === 403 && e.path === '/hello/wave');
    assert.ok(
      refusedWave && refusedWave.clients.length > 0,
      `the audit names the clients of a refused request: ${JSON.stringify(refusedWave)}`,
    );
  } finally {
    await x.s.close();
  }
});

/** A body naming a client inside, then one outside, in the route's first client field (as a list). */
function mixed(schema: TSchema): Record<string, unknown> {
  const [key] = Object.keys(placements(schema, '127.0.31.1')[0]!.body as object);
  return { [key!]: ['127.0.30.1', '127.0.31.1'] };
}

test('listings show a limited token only its part: scopes, clients, addresses, scrape targets', async () => {
  const x = await site();
  const agents: FakeAgent[] = [];
  try {
    const port = x.s.app.container.resolve(AgentLink).port();
    for (const ip of ['127.0.30.1', '127.0.30.3', '127.0.31.1']) {
      const agent = await FakeAgent.connect({ port, localAddress: ip });
      agents.push(agent);
      await agent.waitFor('refresh');
    }
    await eventually(async () => (await x.s.get('/clients')).body.clients.length === 3, 'three agents');

    const tree = async (key: string) => (await send(x.s.port, 'GET', '/scopes', undefined, as(key))).body.scope;
    assert.deepEqual(await tree(x.lab), [
      {
        name: 'A',
        type: 'center',
        id: x.centerA,
        scope: [
          {
            name: 'A1',
            type: 'room',
            id: x.roomA1,
            scope: [
              { name: 'pc-127.0.30.1', type: 'computer', id: 1, ip: '127.0.30.1', scope: [] },
              { name: 'pc-127.0.30.2', type: 'computer', id: 2, ip: '127.0.30.2', scope: [] },
            ],
          },
        ],
      },
    ]);
    const school = await tree(x.school);
    assert.deepEqual(
      school.map((c: { name: string; scope: { name: string }[] }) => [c.name, c.scope.map((r) => r.name)]),
      [['A', ['A1', 'A2']]],
      'a whole center',
    );

    const listed = async (key: string, path: string) => (await send(x.s.port, 'GET', path, undefined, as(key))).body;
    assert.deepEqual(
      (await listed(x.lab, '/clients')).clients.map((c: { addr: string }) => c.addr),
      ['127.0.30.1'],
    );
    assert.deepEqual((await listed(x.school, '/clients')).clients.map((c: { addr: string }) => c.addr).sort(), [
      '127.0.30.1',
      '127.0.30.3',
    ]);
    assert.deepEqual(
      (await listed(x.lab, '/client/addresses')).clients.map((c: { ip: string }) => c.ip),
      ['127.0.30.1', '127.0.30.2'],
    );
    assert.deepEqual(
      (await listed(x.school, '/metrics/targets')).map((t: { targets: string[] }) => t.targets[0]),
      ['127.0.30.1:9100', '127.0.30.2:9100', '127.0.30.3:9100'],
    );
    // Unlimited keys still see everything.
    assert.equal((await x.s.get('/client/addresses')).body.clients.length, 4);
  } finally {
    for (const agent of agents) agent.destroy();
    await x.s.close();
  }
});

test("a limited token's event stream, by header or by ticket, carries only its clients' events; a room outside is refused", async () => {
  const x = await site();
  const agents: FakeAgent[] = [];
  try {
    const ticket = (await send(x.s.port, 'POST', '/events/ticket', undefined, as(x.lab))).body.ticket;
    const byTicket = await EventStreamClient.open(x.s.port, `types=agent.connected&ticket=${ticket}`, {});
    const byHeader = await EventStreamClient.open(x.s.port, 'types=agent.connected', as(x.lab));
    const everything = await EventStreamClient.open(x.s.port, 'types=agent.connected');
    const port = x.s.app.container.resolve(AgentLink).port();
    for (const ip of ['127.0.31.1', '127.0.30.3', '127.0.30.2']) agents.push(await FakeAgent.connect({ port, localAddress: ip }));
    await everything.waitFor(() => everything.events.length === 3, 'all three connections');
    await byHeader.waitFor((e) => e.data.client === '127.0.30.2', 'the connection inside');
    await byTicket.waitFor((e) => e.data.client === '127.0.30.2', 'the connection inside, by ticket');
    assert.deepEqual(
      byHeader.events.map((e) => e.data.client),
      ['127.0.30.2'],
    );
    assert.deepEqual(
      byTicket.events.map((e) => e.data.client),
      ['127.0.30.2'],
    );
    for (const stream of [byTicket, byHeader, everything]) stream.close();

    const outside = await EventStreamClient.open(x.s.port, `room=${x.roomB1}`, as(x.lab));
    assert.equal(outside.status, 403);
    assert.match(outside.json.message, new RegExp(`^room ${x.roomB1} is outside what the key 'lab' may reach`));
  } finally {
    for (const agent of agents) agent.destroy();
    await x.s.close();
  }
});

test('ogserve token create --center/--room makes a limited token the server enforces; list shows the limits', async () => {
  const dir = makeTestDir();
  try {
    const first = await startServer({ dir });
    const center = await addCenter(first, 'A');
    const room = await addRoom(first, center, 'A1', '255.0.0.0');
    const other = await addRoom(first, await addCenter(first, 'B'), 'B1', '255.0.0.0');
    await addClient(first, room, '127.0.32.1', macFor(0x321));
    await addClient(first, other, '127.0.33.1', macFor(0x331));
    await first.close();
    const config = ['--config', `${dir}/config.json`];
    const made = await ogserve(['token', 'create', '--name', 'desk', '--role', 'operator', '--room', String(room), ...config]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stderr, new RegExp(`limited to rooms ${room}; the secret follows`));
    const listed = await ogserve(['token', 'list', ...config]);
    assert.match(listed.stdout, new RegExp(`^desk {2}operator {2}.+ {2}limited to rooms ${room}$`, 'm'));
    const unknown = await ogserve(['token', 'create', '--name', 'x', '--role', 'reader', '--center', '99', ...config]);
    assert.deepEqual([unknown.code, unknown.stderr.trim().split('\n').at(-1)], [1, 'ogserve: no center with id 99']);
    const bad = await ogserve(['token', 'create', '--name', 'x', '--role', 'reader', '--room', 'lab', ...config]);
    assert.equal(bad.code, 2, 'a usage error');

    const s = await startServer({ dir });
    try {
      const secret = made.stdout.trim();
      assert.equal((await send(s.port, 'POST', '/refresh', { clients: ['127.0.32.1'] }, as(secret))).status, 200);
      assert.equal((await send(s.port, 'POST', '/refresh', { clients: ['127.0.33.1'] }, as(secret))).status, 403);
      // A room deleted later leaves the token with nothing, never with everything.
      assert.equal((await s.post('/room/delete', { id: room })).status, 200);
      const left = await send(s.port, 'GET', '/client/addresses', undefined, as(secret));
      assert.deepEqual(left.body.clients, []);
      assert.deepEqual((await send(s.port, 'GET', '/scopes', undefined, as(secret))).body.scope, []);
    } finally {
      await s.close();
    }
  } finally {
    await removeTestStore(dir);
  }
});

test.run();

import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addUser, signIn } from '../auth/people';
import { EventStreamClient } from '../../support/event-stream';
import { type Reply, send } from '../../support/server';
import { fleet, fleetSite, hardwareText, pc, reportFleet, reportHardware } from './helpers';

/**
 * A token limited to room N1 and a person limited to center South see only their clients in
 * every answer: the history of a client outside is refused naming it, the reports count only
 * the clients inside, and the event stream sends only their changes.
 */

test('limited tokens and people: history refused outside, reports and events cut to their clients', async () => {
  const x = await fleetSite();
  const streams: EventStreamClient[] = [];
  try {
    const agents = await reportFleet(x);
    const made = await x.s.post('/tokens', { name: 'n1', role: 'reader', rooms: [x.roomN1] });
    assert.equal(made.status, 200, made.text);
    const n1 = made.body.secret as string;
    await addUser(x.s, 'ana', 'reader', { centers: [x.south] });
    const ana = await signIn(x.s.port, 'ana');
    const asToken = (path: string): Promise<Reply> => send(x.s.port, 'GET', path, undefined, { Authorization: n1 });
    const asAna = (path: string): Promise<Reply> => ana.request('GET', path);

    const [p1, p2] = fleet.n1 as [string, string];
    const p3 = fleet.n2[0]!;
    const p4 = fleet.s1[0]!;
    // A change on an N1 client and one on the South client, heard by streams of both.
    const tokenStream = await EventStreamClient.open(x.s.port, 'types=client.hardware.changed', { Authorization: n1 });
    streams.push(tokenStream);
    const all = await EventStreamClient.open(x.s.port, 'types=client.hardware.changed');
    streams.push(all);
    assert.equal(tokenStream.status, 200, tokenStream.body);
    await reportHardware(x, agents.get(p4)!, p4, hardwareText(pc.boot, pc.cpu, pc.bank0, pc.disk));
    await reportHardware(x, agents.get(p1)!, p1, hardwareText(pc.boot, pc.cpu, pc.bank0, pc.disk, pc.net));
    await all.waitFor((e) => e.data.client === p1, 'the change of the N1 client, to the unlimited key');
    await tokenStream.waitFor((e) => e.data.client === p1, 'the change of the N1 client, to the token');
    assert.deepEqual(
      tokenStream.events.map((e) => e.data.client),
      [p1],
      "the South client's change is not sent to a token limited to N1",
    );

    for (const [who, get, inside, changes, outside, message] of [
      ['token', asToken, p1, ['removed mem'], p4, `client ${p4} is outside what the key 'n1' may reach (rooms ${x.roomN1})`],
      [
        'person',
        asAna,
        p4,
        ['removed dis', 'removed mem'],
        p1,
        `client ${p1} is outside what the key 'ana@local' may reach (centers ${x.south})`,
      ],
    ] as const) {
      const ok = await get(`/client/history?client=${inside}`);
      assert.equal(ok.status, 200, `${who}: ${ok.text}`);
      assert.deepEqual(
        ok.body.changes.map((c: { change: string; type: string }) => `${c.change} ${c.type}`),
        changes,
        `${who} reads the history of its client`,
      );
      const refused = await get(`/client/history?client=${outside}`);
      assert.equal(refused.status, 403, `${who}: ${refused.text}`);
      assert.deepEqual(refused.body, { error: 'forbidden', message }, who);
      const unknown = await get('/client/history?client=10.9.9.9');
      assert.equal(unknown.status, 403, `${who}: an address no client has is outside too, so nothing is learnt from it`);
    }

    // Reports: the token sees room N1 only, the person center South only.
    const tokenReport = (await asToken('/reports/hardware?by=room')).body;
    assert.deepEqual(
      tokenReport.groups.map((g: { name: string; clients: number }) => [g.name, g.clients]),
      [['N1', 2]],
    );
    assert.equal(tokenReport.total.clients, 2);
    const anaReport = (await asAna('/reports/hardware')).body;
    assert.deepEqual(
      anaReport.groups.map((g: { name: string; clients: number; reported: number }) => [g.name, g.clients, g.reported]),
      [['South', 2, 1]],
    );
    const ips = (report: { packages: { clients: { ip: string }[] }[] }) => report.packages.flatMap((p) => p.clients.map((c) => c.ip));
    assert.deepEqual(ips((await asToken('/reports/software?name=firefox')).body), [p2, p1]);
    assert.deepEqual(ips((await asAna('/reports/software?name=firefox')).body), [p4]);
    const csv = await asToken('/reports/software?name=bash&format=csv');
    assert.equal(csv.status, 200);
    assert.ok(csv.text.includes(p1) && !csv.text.includes(p3), `the CSV is cut too: ${csv.text}`);
    const anaCsv = await asAna('/reports/hardware?by=center&format=csv');
    assert.ok(anaCsv.text.includes('South') && !anaCsv.text.includes('North'), anaCsv.text);
  } finally {
    for (const stream of streams) stream.close();
    await x.close();
  }
});

test.run();

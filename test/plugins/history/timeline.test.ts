// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { addRoom, macFor } from '../../support/fixtures';
import { startLab } from '../../support/lab';
import { send } from '../../support/server';
import { pcGet } from '../boot/support';
import { hardwareText, pc, reportHardware } from './helpers';

const ip = '127.0.62.1';
const other = '127.0.63.1';

interface Entry {
  time: string;
  kind: string;
  who: string | null;
  source: string | null;
  state: string | null;
  job: number | null;
  data: Record<string, unknown>;
}

test("a PC's timeline: its jobs, power states, boots, inventory changes and the changes made to its record, with who, newest first, a page at a time", async () => {
  const x = await startLab({ ips: [ip] });
  try {
    const room2 = await addRoom(x.s, x.center, 'Other', '255.0.0.0');
    assert.equal((await x.s.post('/client/add', { name: 'far', ip: other, mac: macFor(9), room: room2 })).status, 200);
    // A network boot (its script, then its agent up), a hardware inventory, a failed refresh, a record changed.
    assert.equal((await pcGet(x.s.port, `/boot/ipxe?mac=${macFor(1)}`, { from: ip })).status, 200);
    const agent = await x.connect(ip);
    await reportHardware(x, agent, ip, hardwareText(pc.cpu, pc.bank0));
    await reportHardware(x, agent, ip, hardwareText(pc.cpu, pc.bank0, pc.bank1));
    agent.on('refresh', { status: 500 });
    const refresh = await x.s.post('/refresh', { clients: [ip] });
    assert.equal(refresh.status, 200, refresh.text);
    const id = (await x.s.get('/client/info', { client: [ip] })).body.id;
    assert.equal((await x.s.post('/client/update', { id, name: 'front-desk' })).status, 200);

    const timeline = async (query = '', key?: string): Promise<{ status: number; body: any }> => {
      const r = key
        ? await send(x.s.port, 'GET', `/client/timeline?client=${ip}${query}`, undefined, { Authorization: key })
        : await x.s.get(`/client/timeline?client=${ip}${query}`);
      return { status: r.status, body: r.body };
    };
    const all = (await eventually(async () => {
      const r = await timeline();
      const kinds = new Set(r.body.entries.map((e: Entry) => e.kind));
      const failed = r.body.entries.some((e: Entry) => e.kind === 'job' && e.state === 'failed');
      // The audit log writes its entries a second later or so.
      const updated = r.body.entries.some((e: Entry) => e.kind === 'audit' && e.data.path === '/client/update');
      return ['job', 'power', 'boot', 'change'].every((k) => kinds.has(k)) && failed && updated ? r.body : undefined;
    }, 'every kind on the timeline'))!;
    assert.equal(all.client, ip);
    assert.deepEqual(all.missing, []);
    const entries = all.entries as Entry[];
    const times = entries.map((e) => Date.parse(e.time));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );
    const job = entries.find((e) => e.kind === 'job' && e.job === refresh.body.job)!;
    assert.deepEqual(
      [job.state, job.who, job.source, job.data.kind],
      ['failed', 'api_token', 'key', 'refresh'],
      'the job, who asked, how it ended',
    );
    const boot = entries.find((e) => e.kind === 'boot')!;
    assert.deepEqual(
      (boot.data.stages as { stage: string }[]).map((s) => s.stage),
      ['script', 'agent'],
      'the boot with its stages',
    );
    const change = entries.find((e) => e.kind === 'change')!;
    assert.equal((change.data.changes as unknown[]).length, 1, 'the inventory that found a memory bank added');
    const audit = entries.find((e) => e.kind === 'audit' && e.data.path === '/client/update')!;
    assert.equal(audit.who, 'api_token', 'who changed its record');
    assert.ok(
      (audit.data.changes as { field: string; after: unknown }[]).some((c) => c.field === 'name' && c.after === 'front-desk'),
      'and what',
    );
    assert.ok(
      entries.some((e) => e.kind === 'power'),
      'its power states',
    );

    // Pages of 2: together the same entries, none twice.
    const paged: Entry[] = [];
    let before = '';
    for (let page = 0; page < 50; page++) {
      const r = await timeline(`&limit=2${before}`);
      assert.equal(r.status, 200);
      paged.push(...r.body.entries);
      if (r.body.next === null) break;
      before = `&before=${r.body.next}`;
    }
    assert.deepEqual(paged, entries, 'the pages add up to the whole timeline');

    // A reader sees no audit entries (the log is the admins'); a token limited to another room is refused.
    const reader = (await x.s.post('/tokens', { name: 'reader', role: 'reader' })).body.secret as string;
    const read = await timeline('', reader);
    assert.equal(read.status, 200);
    assert.ok(!read.body.entries.some((e: Entry) => e.kind === 'audit'), 'no audit entries for a reader');
    assert.ok(
      read.body.entries.some((e: Entry) => e.kind === 'job'),
      'but the jobs',
    );
    const limited = (await x.s.post('/tokens', { name: 'far', role: 'reader', rooms: [room2] })).body.secret as string;
    const refused = await timeline('', limited);
    assert.equal(refused.status, 403, 'outside its rooms');
    const bad = await x.s.get('/client/timeline?client=10.1');
    assert.deepEqual([bad.status, bad.body.field], [400, 'client']);
    const unknown = await x.s.get('/client/timeline?client=127.0.64.1');
    assert.deepEqual([unknown.status, unknown.body.field], [400, 'client']);
  } finally {
    await x.close();
  }
});

test.run();

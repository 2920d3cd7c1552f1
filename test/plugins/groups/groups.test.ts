import assert from 'node:assert/strict';
import { test } from 'uvu';
import { AgentLink } from '../../../plugins/agents';
import { FakeAgent, eventually } from '../../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../../support/fixtures';
import { TOKEN, type TestServer, send, startServer } from '../../support/server';

const as = (secret: string) => ({ Authorization: secret });
const admin = as(TOKEN);

interface Site {
  s: TestServer;
  school3: number;
  windows3: number;
  linux3: number;
  windows4: number;
}

/** School 3 (Windows lab 1: .72.1; Linux lab: .72.2) and School 4 (Windows lab: .72.3). */
async function site(): Promise<Site> {
  const s = await startServer();
  const school3 = await addCenter(s, 'School 3');
  const school4 = await addCenter(s, 'School 4');
  const windows3 = await addRoom(s, school3, 'Windows lab 1', '255.0.0.0');
  const linux3 = await addRoom(s, school3, 'Linux lab', '255.0.0.0');
  const windows4 = await addRoom(s, school4, 'Windows lab', '255.0.0.0');
  await addClient(s, windows3, '127.0.72.1', macFor(0x721));
  await addClient(s, linux3, '127.0.72.2', macFor(0x722));
  await addClient(s, windows4, '127.0.72.3', macFor(0x723));
  return { s, school3, windows3, linux3, windows4 };
}

const expect = (r: { status: number; text: string; body: any }, status: number, field?: string, what = '') => {
  assert.equal(r.status, status, `${what}: ${r.text}`);
  if (field !== undefined) assert.equal(r.body.field, field, `${what}: names ${field}: ${r.text}`);
  if (status >= 400) assert.equal(typeof r.body.message, 'string', `${what}: a message`);
};

test('a group is a named filter: its PCs are found when it is read, a PC added later is in it; bad input names the field, unknown ids are 404', async () => {
  const x = await site();
  try {
    const { s } = x;
    const made = await s.post('/groups', {
      name: 'Windows labs of School 3',
      filter: { text: 'Windows', within: { type: 'center', id: x.school3 } },
    });
    expect(made, 200, undefined, 'create');
    assert.deepEqual(made.body.clients, ['127.0.72.1'], 'the Windows room of School 3 alone');
    const id = made.body.id as number;
    await addClient(s, x.windows3, '127.0.72.4', macFor(0x724));
    const read = await s.get(`/groups/${id}`);
    expect(read, 200, undefined, 'read');
    assert.deepEqual(
      [read.body.name, read.body.filter, read.body.clients],
      ['Windows labs of School 3', { text: 'Windows', within: { type: 'center', id: x.school3 } }, ['127.0.72.1', '127.0.72.4']],
      'the PC added after the group was saved is in it',
    );
    const byMac = await s.post('/groups', { name: 'by MAC', filter: { text: '00:00:00:00:07:22' } });
    assert.deepEqual(byMac.body.clients, ['127.0.72.2'], 'a MAC as the fleet search takes it');
    const listed = (await s.get('/groups')).body.groups as { name: string; count: number }[];
    assert.deepEqual(
      listed.map((g) => [g.name, g.count]),
      [
        ['by MAC', 1],
        ['Windows labs of School 3', 2],
      ],
      'by name, with how many PCs each finds now',
    );
    const renamed = await s.post(`/groups/${id}`, { name: 'Win 3', filter: { within: { type: 'room', id: x.windows3 } } });
    expect(renamed, 200, undefined, 'replace');
    assert.deepEqual(renamed.body.clients, ['127.0.72.1', '127.0.72.4']);

    expect(await s.post('/groups', { filter: {} }), 400, 'name', 'no name');
    expect(await s.post('/groups', { name: 'x' }), 400, 'filter', 'no filter');
    expect(await s.post('/groups', { name: 'x', filter: { within: { type: 'building', id: 1 } } }), 400, 'filter.within.type', 'a type');
    const unknownRoom = await s.post('/groups', { name: 'x', filter: { within: { type: 'room', id: 999 } } });
    expect(unknownRoom, 400, 'filter.within.id', 'an unknown room');
    assert.equal(unknownRoom.body.error, 'unknown_id');
    expect(await s.post('/groups', { name: 'x', filter: { text: 'a\u0007b' } }), 400, 'filter.text', 'a control character');
    expect(await s.post('/groups', { name: 'x', filter: { text: 'y'.repeat(101) } }), 400, 'filter.text', 'too long');
    const twice = await s.post('/groups', { name: 'Win 3', filter: {} });
    expect(twice, 400, 'name', 'a name taken');
    assert.equal(twice.body.error, 'duplicate');
    expect(await s.get('/groups/abc'), 400, 'id', 'an id that is no number');
    expect(await s.get('/groups/999'), 404, undefined, 'GET unknown');
    expect(await s.post('/groups/999', { name: 'y', filter: {} }), 404, undefined, 'POST unknown');
    expect(await send(s.port, 'DELETE', '/groups/999', undefined, admin), 404, undefined, 'DELETE unknown');
    assert.equal((await s.get('/groups')).body.groups.length, 2, 'nothing written by a refused request');

    // A key limited to the Linux lab sees the groups with only its PCs, and writes none.
    const lab = (await s.post('/tokens', { name: 'linux-lab', role: 'admin', rooms: [x.linux3] })).body.secret as string;
    const mine = await send(s.port, 'GET', `/groups/${id}`, undefined, as(lab));
    expect(mine, 200, undefined, 'limited read');
    assert.deepEqual(mine.body.clients, [], 'no PC outside its room');
    const counts = (await send(s.port, 'GET', '/groups', undefined, as(lab))).body.groups as { name: string; count: number }[];
    assert.deepEqual(
      counts.map((g) => [g.name, g.count]),
      [
        ['by MAC', 1],
        ['Win 3', 0],
      ],
    );
    expect(await send(s.port, 'POST', '/groups', { name: 'mine', filter: {} }, as(lab)), 403, undefined, 'a limited key writes no group');
    expect(await send(s.port, 'DELETE', `/groups/${id}`, undefined, as(lab)), 403, undefined, 'nor deletes one');

    expect(await send(s.port, 'DELETE', `/groups/${byMac.body.id}`, undefined, admin), 200, undefined, 'delete');
    expect(await s.get(`/groups/${byMac.body.id}`), 404, undefined, 'gone');

    // The audit log says what each write did.
    const audited = (await eventually(async () => {
      const { entries } = (await s.get('/audit?path=/groups')).body as {
        entries: { method: string; status: number; changes?: unknown[] }[];
      };
      const done = entries.filter((e) => e.status === 200);
      return done.length === 4 ? done : undefined;
    }, 'the four writes audited'))!;
    assert.deepEqual(
      audited.map((e) => [e.method, e.changes]),
      [
        ['DELETE', [{ entity: 'group', id: byMac.body.id, name: 'by MAC', field: 'id', before: byMac.body.id }]],
        [
          'POST',
          [
            { entity: 'group', id, name: 'Win 3', field: 'name', before: 'Windows labs of School 3', after: 'Win 3' },
            {
              entity: 'group',
              id,
              name: 'Win 3',
              field: 'filter',
              before: JSON.stringify({ within: { type: 'center', id: x.school3 }, text: 'Windows' }),
              after: JSON.stringify({ within: { type: 'room', id: x.windows3 } }),
            },
          ],
        ],
        [
          'POST',
          [
            { entity: 'group', id: byMac.body.id, name: 'by MAC', field: 'name', after: 'by MAC' },
            { entity: 'group', id: byMac.body.id, name: 'by MAC', field: 'filter', after: '{"text":"00:00:00:00:07:22"}' },
          ],
        ],
        [
          'POST',
          [
            { entity: 'group', id, name: 'Windows labs of School 3', field: 'name', after: 'Windows labs of School 3' },
            {
              entity: 'group',
              id,
              name: 'Windows labs of School 3',
              field: 'filter',
              after: JSON.stringify({ within: { type: 'center', id: x.school3 }, text: 'Windows' }),
            },
          ],
        ],
      ],
      'newest first: each write with what it changed',
    );
  } finally {
    await x.s.close();
  }
});

test("a task on a group runs on the group's PCs when it runs; a schedule or power calendar on a group keeps it from being deleted (409 naming them)", async () => {
  const x = await site();
  const agents: FakeAgent[] = [];
  try {
    const { s } = x;
    const group = (await s.post('/groups', { name: 'Windows 3', filter: { text: 'windows', within: { type: 'center', id: x.school3 } } }))
      .body.id;
    const procedure = await s.post('/procedure/add', {
      center: x.school3,
      name: 'inventory',
      steps: [{ command: 'hardware', params: {} }],
    });
    expect(procedure, 200, undefined, 'procedure');
    expect(
      await s.post('/task/add', { center: x.school3, name: 'x', scope: { type: 'group', id: 999 } }),
      400,
      'scope.id',
      'an unknown group',
    );
    const task = await s.post('/task/add', {
      center: x.school3,
      name: 'Nightly',
      steps: [{ procedure: procedure.body.id }],
      scope: { type: 'group', id: group },
    });
    expect(task, 200, undefined, 'task on a group');
    assert.deepEqual((await s.get('/tasks')).body.tasks.find((t: { id: number }) => t.id === task.body.id).scope, {
      type: 'group',
      id: group,
    });
    // A PC added to a room of the group after the task was written is in it when the task runs.
    await addClient(s, x.windows3, '127.0.72.5', macFor(0x725));
    const port = s.app.container.resolve(AgentLink).port();
    for (const ip of ['127.0.72.5', '127.0.72.2']) {
      const agent = await FakeAgent.connect({ port, localAddress: ip });
      // The real agent answers run/schedule 200 with no body.
      agent.on('run/schedule', { status: 200 }, true);
      agents.push(agent);
      await agent.waitFor('refresh');
    }
    expect(await s.post('/task/run', { task: task.body.id }), 200, undefined, 'run');
    await agents[0]!.waitFor('hardware');
    assert.equal(agents[1]!.requests.filter((r) => r.path === 'hardware').length, 0, 'the Linux lab is not in the group');

    const schedule = await s.post('/schedule/create', { task: task.body.id, name: 'Every night', type: 'task' });
    expect(schedule, 200, undefined, 'schedule');
    expect(
      await s.post('/power/calendars', { target: { type: 'group', id: 999 }, week: {} }),
      400,
      'target.id',
      'a calendar on an unknown group',
    );
    const calendar = await s.post('/power/calendars', { target: { type: 'group', id: group }, week: { mon: { off: '21:00' } } });
    expect(calendar, 200, undefined, 'calendar on a group');
    const preview = await s.get('/power/calendar/preview?days=7');
    assert.deepEqual(preview.body.actions[0].clients, ['127.0.72.1', '127.0.72.5'], "the calendar's PCs are the group's now");
    await addClient(s, x.windows3, '127.0.72.6', macFor(0x726));
    assert.deepEqual(
      (await s.get('/power/calendar/preview?days=7')).body.actions[0].clients,
      ['127.0.72.1', '127.0.72.5', '127.0.72.6'],
      'and a PC added since',
    );

    const refused = await send(s.port, 'DELETE', `/groups/${group}`, undefined, admin);
    expect(refused, 409, undefined, 'a group in use');
    assert.equal(refused.body.error, 'conflict');
    assert.equal(
      refused.body.message,
      `group ${group} is the target of schedule 'Every night' (${schedule.body.id}, task 'Nightly'), power calendar ${calendar.body.id}: change or delete them first`,
    );
    assert.equal((await s.get(`/groups/${group}`)).status, 200, 'still there');
    expect(await send(s.port, 'DELETE', `/power/calendars/${calendar.body.id}`, undefined, admin), 200, undefined, 'calendar deleted');
    expect(await s.post('/schedule/delete', { id: schedule.body.id }), 200, undefined, 'schedule deleted');
    expect(await send(s.port, 'DELETE', `/groups/${group}`, undefined, admin), 200, undefined, 'then the group goes');
  } finally {
    for (const agent of agents) agent.destroy();
    await x.s.close();
  }
});

test.run();

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { eventually } from '../../support/fake-agent';
import { schedulerSite, whenFor, type SchedulerSite } from './helpers';

async function withSite(fn: (site: SchedulerSite) => Promise<void>, options: Parameters<typeof schedulerSite>[0] = {}): Promise<void> {
  const site = await schedulerSite(options);
  try {
    await fn(site);
  } finally {
    await site.close();
  }
}

function expect400(r: { status: number; text: string; body: any }, field: string, what: string): void {
  assert.equal(r.status, 400, `${what}: ${r.text}`);
  assert.equal(r.body.field, field, `${what}: field named (${r.text})`);
}

const RUN = { command: 'run', params: { run: 'echo hi' } };

test('schedule/command: one action per client, all sharing the id of the first as session', () =>
  withSite(
    async ({ s, scheduler, ips }) => {
      const r = await s.post('/schedule/command', { clients: ips, ...RUN, when: whenFor(new Date(2026, 11, 1, 9, 0)) });
      assert.equal(r.status, 200, r.text);
      const actions = await scheduler.actions();
      assert.equal(actions.length, 3, 'one action per client');
      assert.ok(
        actions.every((a) => a.session === actions[0]!.id),
        `session = first action id: ${JSON.stringify(actions.map((a) => [a.id, a.session]))}`,
      );
      assert.equal(r.body.session, actions[0]!.id, 'session returned');
      assert.deepEqual(
        actions.map((a) => a.ip),
        ips,
        'in the order asked',
      );
      assert.ok(
        actions.every((a) => a.state === 'waiting'),
        'waiting for the schedule',
      );
      const got = await s.post('/schedule/get', { id: String(r.body.id) });
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.schedule.length, 1, 'one schedule');
      assert.deepEqual(
        {
          type: got.body.schedule[0].type,
          task: got.body.schedule[0].task,
          session: got.body.schedule[0].session,
          years: got.body.schedule[0].years,
        },
        { type: 'command', task: actions[0]!.id, session: actions[0]!.id, years: [2026] },
        'a command schedule targeting the session',
      );
      assert.equal(got.body.schedule[0].next, new Date(2026, 11, 1, 9, 0).getTime(), 'armed for 1 December 09:00');
    },
    { clients: 3 },
  ));

test('schedule/command refuses bad input before writing anything', () =>
  withSite(async ({ s, scheduler, ips }) => {
    const when = whenFor(new Date(2026, 11, 1, 9, 0));
    expect400(await s.post('/schedule/command', { clients: ['10.9.9.9'], ...RUN, when }), 'clients', 'unknown client');
    expect400(await s.post('/schedule/command', { clients: ['300.1.1.1'], ...RUN, when }), 'clients[0]', 'malformed ip');
    expect400(await s.post('/schedule/command', { clients: ips, command: 'nope', when }), 'command', 'unknown command');
    expect400(await s.post('/schedule/command', { clients: ips, command: 'run', params: { run: 5 }, when }), 'params.run', 'bad params');
    expect400(await s.post('/schedule/command', { clients: ips, ...RUN, when: { ...when, months: 0 } }), 'when.months', 'no month');
    expect400(await s.post('/schedule/command', { clients: ips, ...RUN, when: { ...when, hours: 0 } }), 'when.hours', 'no hour');
    expect400(await s.post('/schedule/command', { clients: ips, ...RUN, when: { ...when, days: 0 } }), 'when.days', 'no day');
    expect400(await s.post('/schedule/command', { clients: ips, ...RUN, when: { ...when, minutes: 60 } }), 'when.minutes', 'minute 60');
    expect400(
      await s.post('/schedule/command', { clients: ips, ...RUN, when: { ...when, years: [2026, 1999] } }),
      'when.years[1]',
      'year 1999',
    );
    expect400(
      await s.post('/schedule/command', { clients: ips, ...RUN, when: { ...when, am_pm: undefined } }),
      'when.am_pm',
      'missing am_pm',
    );
    expect400(await s.post('/schedule/command', { clients: [], ...RUN }), 'clients', 'no clients');
    assert.equal((await scheduler.actions()).length, 0, 'no action written');
    assert.equal((await s.post('/schedule/get')).body.schedule.length, 0, 'no schedule written');
  }));

test('a command schedule in 2026 fires at its time: run/schedule, then the command, then success', () =>
  withSite(async ({ s, scheduler, clock, ips, connect }) => {
    const agent = await connect(ips[0]!);
    const fireAt = new Date(2026, 11, 1, 9, 0).getTime();
    const r = await s.post('/schedule/command', { clients: [ips[0]], ...RUN, when: whenFor(new Date(fireAt)) });
    assert.equal(r.status, 200, r.text);
    await clock.advanceTo(fireAt - 60_000);
    assert.equal(agent.requests.filter((q) => q.path === 'shell/run').length, 0, 'nothing before the time');
    assert.equal((await scheduler.actions())[0]!.state, 'waiting', 'still waiting a minute before');
    await clock.advanceTo(fireAt);
    await agent.waitFor('run/schedule');
    const run = await agent.waitFor('shell/run');
    assert.deepEqual(run.body, { run: 'echo hi', echo: false }, 'the queued command as the agent gets it');
    const done = await eventually(
      async () => ((await scheduler.actions())[0]!.state === 'done' ? (await scheduler.actions())[0] : undefined),
      'action done',
    );
    assert.equal(done!.result, 'success', 'the 200 answer marks success');
    assert.equal(done!.queuedAt, fireAt, 'queued at the fire time');
  }));

test('an agent answering 500 marks the action failed; the next queued command still follows', () =>
  withSite(async ({ s, scheduler, ips, connect, center }) => {
    const agent = await connect(ips[0]!);
    agent.on('shell/run', { status: 500 });
    const p = (await s.post('/procedure/add', { center, name: 'two', steps: [RUN, { command: 'hardware' }] })).body.id;
    const r = await s.post('/procedure/run', { clients: [ips[0]], procedure: String(p) });
    assert.equal(r.status, 200, r.text);
    await agent.waitFor('hardware');
    const rows = await eventually(async () => {
      const all = await scheduler.actions();
      return all.every((a) => a.state === 'done') ? all : undefined;
    }, 'both done');
    assert.deepEqual(
      rows!.map((a) => [a.command, a.result]),
      [
        ['run', 'failure'],
        ['hardware', 'success'],
      ],
      'results per action, in step order',
    );
    assert.ok(
      rows!.every((a) => a.session === rows![0]!.id),
      'one session for the whole run',
    );
  }));

test('procedure/run: nested procedures expand in place, one session for all clients; unknown clients refused', () =>
  withSite(
    async ({ s, scheduler, ips, center }) => {
      const inner = (await s.post('/procedure/add', { center, name: 'inner', steps: [{ command: 'hardware' }] })).body.id;
      const outer = (await s.post('/procedure/add', { center, name: 'outer', steps: [RUN, { procedure: inner }, { command: 'reboot' }] }))
        .body.id;
      expect400(await s.post('/procedure/run', { clients: [ips[0], '10.1.1.1'], procedure: outer }), 'clients', 'unknown client');
      expect400(await s.post('/procedure/run', { clients: ips, procedure: '999' }), 'procedure', 'unknown procedure');
      assert.equal((await scheduler.actions()).length, 0, 'refused runs queue nothing');
      const r = await s.post('/procedure/run', { clients: ips, procedure: String(outer) });
      assert.equal(r.status, 200, r.text);
      const rows = await scheduler.actions();
      assert.deepEqual(
        rows.map((a) => `${a.command}@${a.ip}`),
        ips
          .flatMap((ip) => [`run@${ip}`])
          .concat(
            ips.map((ip) => `hardware@${ip}`),
            ips.map((ip) => `reboot@${ip}`),
          ),
        'steps outer, clients inner',
      );
      assert.ok(
        rows.every((a) => a.session === rows[0]!.id && a.state === 'queued'),
        'one session, all queued',
      );
      assert.equal(r.body.session, rows[0]!.id, 'session returned');
    },
    { clients: 2 },
  ));

test('queued commands expire after scheduler.pending_timeout_s and are marked failed', () =>
  withSite(
    async ({ s, scheduler, clock, ips, center }) => {
      const p = (await s.post('/procedure/add', { center, name: 'p', steps: [RUN] })).body.id;
      assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: p })).status, 200, 'run');
      await clock.advance(119_000);
      assert.equal((await scheduler.actions())[0]!.state, 'queued', 'still queued before the timeout');
      await clock.advance(1_000);
      const row = (await scheduler.actions())[0]!;
      assert.deepEqual([row.state, row.result, row.note], ['done', 'failure', 'expired before it could be sent'], 'expired at the timeout');
    },
    { scheduler: { pending_timeout_s: 120 } },
  ));

test('the default expiry is the reference 900 s; an expired command is not sent when the client connects', () =>
  withSite(async ({ s, scheduler, clock, ips, center, connect }) => {
    const p = (await s.post('/procedure/add', { center, name: 'p', steps: [RUN] })).body.id;
    assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: p })).status, 200, 'run');
    await clock.advance(899_000);
    assert.equal((await scheduler.actions())[0]!.state, 'queued', 'queued at 899 s');
    await clock.advance(1_000);
    assert.equal((await scheduler.actions())[0]!.result, 'failure', 'failed at 900 s');
    const agent = await connect(ips[0]!);
    await s.post('/refresh', { clients: [ips[0]] });
    await agent.waitFor('refresh', 1);
    assert.equal(agent.requests.filter((q) => q.path === 'shell/run').length, 0, 'the expired command was never sent');
  }));

test('commands queued for a client that is off are delivered after it connects and is refreshed', () =>
  withSite(async ({ s, scheduler, ips, center, connect }) => {
    const p = (await s.post('/procedure/add', { center, name: 'p', steps: [RUN, { command: 'hardware' }] })).body.id;
    assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: p })).status, 200, 'run');
    const agent = await connect(ips[0]!);
    await agent.waitFor('shell/run');
    await agent.waitFor('hardware');
    const paths = agent.requests.map((q) => q.path);
    assert.deepEqual(paths.slice(0, 3), ['refresh', 'shell/run', 'hardware'], `refresh first, then the queue in order: ${paths}`);
    await eventually(async () => (await scheduler.actions()).every((a) => a.result === 'success'), 'both succeeded');
  }));

test('a client busy with another command gets its queued commands when the retry timer fires', () =>
  withSite(async ({ s, scheduler, clock, ips, center, connect }) => {
    const agent = await connect(ips[0]!);
    // The agent sits on a hardware request until told to answer.
    agent.on('hardware', () => ({ none: true }));
    assert.equal((await s.post('/hardware', { clients: [ips[0]] })).status, 200, 'hardware relayed');
    await agent.waitFor('hardware');
    const p = (await s.post('/procedure/add', { center, name: 'p', steps: [RUN] })).body.id;
    assert.equal((await s.post('/procedure/run', { clients: [ips[0]], procedure: p })).status, 200, 'run while busy');
    assert.equal((await scheduler.actions())[0]!.state, 'queued', 'not sent to a busy client');
    agent.write('HTTP/1.0 200 OK\r\nContent-Length: 0\r\nContent-Type: application/json\r\n\r\n');
    await eventually(
      async () => (await s.get('/clients')).body.clients.find((c: any) => c.addr === ips[0])?.state !== 'BSY',
      'client idle again',
    );
    assert.equal(agent.requests.filter((q) => q.path === 'shell/run').length, 0, 'nothing sent before the retry');
    await clock.advance(30_000);
    await agent.waitFor('shell/run');
    await eventually(async () => (await scheduler.actions())[0]!.result === 'success', 'delivered by the retry');
  }));

test('POST /run/schedule relays to the clients and answers their outcomes', () =>
  withSite(async ({ s, ips, connect }) => {
    const agent = await connect(ips[0]!);
    const r = await s.post('/run/schedule', { clients: ips });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.clients,
      [
        { addr: ips[0], outcome: 'sent' },
        { addr: ips[1], outcome: 'not_connected' },
      ],
      'per-client outcome',
    );
    const seen = await agent.waitFor('run/schedule');
    assert.equal(seen.method, 'GET', 'GET, no body, as the reference');
    expect400(await s.post('/run/schedule', { clients: 'x' }), 'clients', 'clients not a list');
  }));

test('task/run queues its procedures for its scope; a nested task starts its own session', () =>
  withSite(
    async ({ s, scheduler, center, room, ips }) => {
      const p1 = (await s.post('/procedure/add', { center, name: 'p1', steps: [RUN] })).body.id;
      const p2 = (await s.post('/procedure/add', { center, name: 'p2', steps: [{ command: 'hardware' }] })).body.id;
      const inner = (
        await s.post('/task/add', {
          center,
          name: 'inner',
          steps: [{ procedure: p2 }],
          scope: { type: 'client', id: (await s.get('/client/info', { client: [ips[1]] })).body.id },
        })
      ).body.id;
      const outer = (
        await s.post('/task/add', {
          center,
          name: 'outer',
          steps: [{ procedure: p1 }, { task: inner }, { procedure: p2 }],
          scope: { type: 'room', id: room },
        })
      ).body.id;
      const r = await s.post('/task/run', { task: String(outer) });
      assert.equal(r.status, 200, r.text);
      const rows = await scheduler.actions();
      assert.deepEqual(
        rows.map((a) => `${a.command}@${a.ip}`),
        [`run@${ips[0]}`, `run@${ips[1]}`, `hardware@${ips[1]}`, `hardware@${ips[0]}`, `hardware@${ips[1]}`],
        'task steps in order, the nested task for its own scope',
      );
      const outerSession = rows[0]!.id;
      assert.deepEqual(
        rows.map((a) => a.session),
        [outerSession, outerSession, rows[2]!.id, outerSession, outerSession],
        'nested task: own session',
      );
      const none = (await s.post('/task/add', { center, name: 'unscoped', steps: [{ procedure: p1 }] })).body.id;
      assert.equal((await s.post('/task/run', { task: none })).status, 200, 'a task without scope runs');
      assert.equal((await scheduler.actions()).length, 5, '... and queues nothing, as the reference');
    },
    { clients: 2 },
  ));

test('schedules in 2026, 2030 and 2099 fire at their time, with years as a list or a single year', () =>
  withSite(async ({ s, scheduler, clock, center, room }) => {
    const p = (await s.post('/procedure/add', { center, name: 'p', steps: [RUN] })).body.id;
    const task = (await s.post('/task/add', { center, name: 't', steps: [{ procedure: p }], scope: { type: 'room', id: room } })).body.id;
    const times = [new Date(2026, 11, 31, 23, 59), new Date(2030, 5, 15, 6, 30), new Date(2099, 0, 1, 0, 0)];
    const ids: number[] = [];
    for (const [i, date] of times.entries()) {
      const years = i === 1 ? [2030] : date.getFullYear();
      const r = await s.post('/schedule/create', {
        task: String(task),
        name: `at ${date.toISOString()}`,
        type: 'task',
        when: whenFor(date, years),
      });
      assert.equal(r.status, 200, r.text);
      ids.push(r.body.id);
    }
    const listed = (await s.post('/schedule/get', { task: String(task) })).body.schedule;
    assert.deepEqual(
      listed.map((e: any) => e.next),
      times.map((d) => d.getTime()),
      'each armed for its time',
    );
    assert.deepEqual(
      listed.map((e: any) => e.years),
      [[2026], [2030], [2099]],
      'years shown as a list',
    );
    for (const [i, date] of times.entries()) {
      await clock.advanceTo(date.getTime() - 1);
      assert.equal((await scheduler.actions()).length, i * 2, `nothing more before ${date.toISOString()}`);
      await clock.advanceTo(date.getTime());
      const rows = await scheduler.actions();
      assert.equal(rows.length, (i + 1) * 2, `fired at ${date.toISOString()}`);
      assert.equal(rows.at(-1)!.scheduleId, ids[i], 'the action names its schedule');
    }
    const after = (await s.post('/schedule/get')).body.schedule;
    assert.ok(
      after.every((e: any) => e.next === undefined),
      'nothing left to fire',
    );
  }));

test('schedule/create without `when` fires at once and does not fire again', () =>
  withSite(async ({ s, scheduler, clock, center, room }) => {
    const p = (await s.post('/procedure/add', { center, name: 'p', steps: [RUN] })).body.id;
    const task = (await s.post('/task/add', { center, name: 't', steps: [{ procedure: p }], scope: { type: 'room', id: room } })).body.id;
    const r = await s.post('/schedule/create', { task, name: 'now', type: 'task' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await scheduler.actions()).length, 2, 'fired at once for both clients of the room');
    const shown = (await s.post('/schedule/get', { id: r.body.id })).body.schedule[0];
    assert.deepEqual(
      [shown.years, shown.minutes, shown.hours, shown.am_pm],
      [[2026], 0, 1 << 10, 0],
      'stored as the current minute (10:00, 2026)',
    );
    await clock.advance(366 * 24 * 3600 * 1000);
    assert.equal((await scheduler.actions()).length, 2, 'never again');
  }));

test('schedule/create, update, get and delete: shapes and refusals', () =>
  withSite(async ({ s, center }) => {
    const task = (await s.post('/task/add', { center, name: 't' })).body.id;
    const when = whenFor(new Date(2027, 2, 3, 14, 15));
    expect400(await s.post('/schedule/create', { task: '999', name: 'x', type: 'task', when }), 'task', 'unknown task');
    expect400(await s.post('/schedule/create', { task: '999', name: 'x', type: 'command', when }), 'task', 'unknown session');
    expect400(await s.post('/schedule/create', { task, name: 'x', type: 'weekly', when }), 'type', 'unknown type');
    expect400(
      await s.post('/schedule/create', { task, name: 'x', type: 'task', when: { ...when, years: 70000 } }),
      'when.years',
      'year mask too wide',
    );
    const r = await s.post('/schedule/create', {
      task: String(task),
      name: 'x',
      type: 'task',
      when: { ...when, week_days: 1 << 4, weeks: 1 },
    });
    assert.equal(r.status, 200, r.text);
    const got = await s.post('/schedule/get', { id: String(r.body.id) });
    assert.deepEqual(
      got.body.schedule[0],
      {
        id: r.body.id,
        task,
        name: 'x',
        type: 'task',
        years: [2027],
        months: 1 << 2,
        weeks: 1,
        week_days: 1 << 4,
        days: 1 << 2,
        hours: 1 << 2,
        am_pm: 1,
        minutes: 15,
        suspended: 0,
        session: 0,
        next: new Date(2027, 2, 1, 14, 15).getTime(),
      },
      'the reference keys, years as a list, next fire time (week 0 of March 2027 starts on Monday the 1st)',
    );
    const u = await s.post('/schedule/update', {
      id: String(r.body.id),
      task: String(task),
      name: 'y',
      when: { ...whenFor(new Date(2028, 0, 2, 3, 4)), years: 2028 },
    });
    assert.equal(u.status, 200, u.text);
    const updated = (await s.post('/schedule/get', { task: String(task) })).body.schedule[0];
    assert.deepEqual(
      [updated.name, updated.type, updated.years, updated.weeks, updated.week_days, updated.next],
      ['y', 'task', [2028], 0, 0, new Date(2028, 0, 2, 3, 4).getTime()],
      'update keeps the type and rewrites every mask',
    );
    expect400(await s.post('/schedule/update', { id: '999', task, name: 'y', when }), 'id', 'update of an unknown schedule');
    assert.equal((await s.post('/schedule/delete', { id: String(r.body.id) })).status, 200, 'delete');
    assert.equal((await s.post('/schedule/get')).body.schedule.length, 0, 'gone');
    assert.equal((await s.post('/schedule/delete', { id: '999' })).status, 200, 'deleting an unknown id is not an error');
    expect400(await s.post('/schedule/get', { id: 'x' }), 'id', 'bad filter');
  }));

test('a legacy year mask is accepted (and, naming only years before 2026, never fires)', () =>
  withSite(async ({ s, center }) => {
    const task = (await s.post('/task/add', { center, name: 't' })).body.id;
    const r = await s.post('/schedule/create', {
      task,
      name: 'old',
      type: 'task',
      when: { ...whenFor(new Date(2025, 0, 1, 1, 0)), years: 1 << 15 },
    });
    assert.equal(r.status, 200, r.text);
    const shown = (await s.post('/schedule/get', { id: r.body.id })).body.schedule[0];
    assert.deepEqual(shown.years, [2025], 'mask bit 15 = 2025');
    assert.equal(shown.next, undefined, 'in the past: skipped');
  }));

test('schedule/command without `when` queues at once; a later schedule of the same session queues the actions again', () =>
  withSite(async ({ s, scheduler, clock, ips }) => {
    const r = await s.post('/schedule/command', { clients: ips, ...RUN });
    assert.equal(r.status, 200, r.text);
    const first = await scheduler.actions();
    assert.ok(
      first.every((a) => a.state === 'queued' && a.queuedAt === clock.now()),
      'queued at once',
    );
    await clock.advance(900_000);
    assert.ok(
      (await scheduler.actions()).every((a) => a.result === 'failure'),
      'nobody connected: expired',
    );
    const again = new Date(2027, 0, 4, 8, 0);
    const c = await s.post('/schedule/create', { task: String(r.body.session), name: 'again', type: 'procedure', when: whenFor(again) });
    assert.equal(c.status, 200, c.text);
    await clock.advanceTo(again.getTime());
    const rows = await scheduler.actions();
    assert.deepEqual(
      rows.map((a) => a.id),
      first.map((a) => a.id),
      'the same rows, no new ones',
    );
    assert.ok(
      rows.every((a) => a.state === 'queued' && a.result === '' && a.queuedAt === again.getTime() && a.scheduleId === c.body.id),
      'queued again by the new schedule',
    );
  }));

test('restart: schedules and queued commands come back from the database; past times are skipped', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-sched-'));
  try {
    const soon = new Date(2026, 10, 22, 12, 0).getTime();
    const later = new Date(2030, 3, 1, 8, 0).getTime();
    const first = await schedulerSite({ dir });
    const ips = first.ips;
    try {
      const { s, center, room } = first;
      const p = (await s.post('/procedure/add', { center, name: 'p', steps: [RUN] })).body.id;
      const task = (await s.post('/task/add', { center, name: 't', steps: [{ procedure: p }], scope: { type: 'room', id: room } })).body.id;
      assert.equal(
        (await s.post('/schedule/create', { task, name: 'soon', type: 'task', when: whenFor(new Date(soon)) })).status,
        200,
        'soon',
      );
      assert.equal(
        (await s.post('/schedule/create', { task, name: 'later', type: 'task', when: whenFor(new Date(later)) })).status,
        200,
        'later',
      );
      const c = await s.post('/schedule/command', { clients: [ips[0]], ...RUN, when: whenFor(new Date(later)) });
      assert.equal(c.status, 200, c.text);
      // Queued for a client that is off: it must survive the restart and then expire.
      assert.equal((await s.post('/procedure/run', { clients: [ips[1]], procedure: p })).status, 200, 'queued for ips[1]');
    } finally {
      await first.close();
    }

    // Back up at 13:00, an hour after `soon`: it is skipped, never run late.
    const second = await schedulerSite({ dir, populate: false, now: soon + 3_600_000 });
    try {
      const { s, scheduler, clock } = second;
      const listed = (await s.post('/schedule/get')).body.schedule as any[];
      assert.deepEqual(
        listed.map((e) => [e.name, e.type, e.next]),
        [
          ['soon', 'task', undefined],
          ['later', 'task', later],
          ['run', 'command', later],
        ],
        'reloaded with their kinds; the past one is not armed',
      );
      await clock.advance(1);
      const before = await scheduler.actions();
      assert.deepEqual(
        before.map((a) => [a.ip, a.state, a.result, a.note]),
        [
          [ips[0], 'waiting', '', ''],
          [ips[1], 'done', 'failure', 'expired before it could be sent'],
        ],
        'the command waits for its schedule; the queued one from before the restart expired',
      );
      const agent = await second.connect(ips[0]!);
      await clock.advanceTo(later);
      await agent.waitFor('shell/run', 1);
      const rows = await eventually(async () => {
        const all = (await scheduler.actions()).filter((a) => a.ip === ips[0]);
        return all.every((a) => a.state === 'done') ? all : undefined;
      }, 'both commands of ips[0] done');
      assert.equal(rows!.length, 2, 'the command schedule and the task each gave ips[0] one command');
      assert.ok(
        rows!.every((a) => a.result === 'success'),
        'both succeeded',
      );
      assert.equal(
        (await scheduler.actions({ ip: ips[1], state: 'queued' })).length,
        1,
        "the task's command for ips[1] waits in its queue",
      );
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stopping does not wait for an unanswered command; after a restart it is marked failed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-sched-'));
  try {
    const first = await schedulerSite({ dir });
    const ip = first.ips[0]!;
    try {
      const agent = await first.connect(ip);
      agent.on('shell/run', { none: true });
      const p = (await first.s.post('/procedure/add', { center: first.center, name: 'p', steps: [RUN] })).body.id;
      assert.equal((await first.s.post('/procedure/run', { clients: [ip], procedure: p })).status, 200, 'run');
      await agent.waitFor('shell/run');
      await eventually(async () => (await first.scheduler.actions())[0]!.state === 'sent', 'action sent');
    } finally {
      await first.close();
    }
    const second = await schedulerSite({ dir, populate: false });
    try {
      const row = (await second.scheduler.actions())[0]!;
      assert.deepEqual(
        [row.state, row.result, row.note],
        ['done', 'failure', 'server restarted before the agent answered'],
        'the unanswered command failed',
      );
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

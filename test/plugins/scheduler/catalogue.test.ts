import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import { ProcedureStepEntity } from '../../../plugins/scheduler/entities/procedure';
import { startServer } from '../../support/server';
import { schedulerSite, type SchedulerSite, type SiteOptions, ENDPOINTS } from './helpers';

async function withSite(fn: (site: SchedulerSite) => Promise<void>, options: SiteOptions = {}): Promise<void> {
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

test('enabled by default; with the plugin left out of the list every scheduling endpoint answers 404', async () => {
  const byDefault = await startServer();
  try {
    const r = await byDefault.post('/schedule/get');
    assert.equal(r.status, 200, `the default plugins serve the scheduler: ${r.text}`);
  } finally {
    await byDefault.close();
  }
  const defaults = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../config/default.json'), 'utf8')) as { plugins: string[] };
  const s = await startServer({ config: { plugins: defaults.plugins.filter((name) => name !== 'scheduler') } });
  try {
    for (const endpoint of ENDPOINTS) {
      const r = await s.post(endpoint, { id: '1' });
      assert.equal(r.status, 404, `${endpoint} without the scheduler: ${r.text}`);
    }
  } finally {
    await s.close();
  }
});

test('procedure/add stores steps in order; procedure/update replaces them; empty steps remove them', () =>
  withSite(async ({ s, center }) => {
    const inner = await s.post('/procedure/add', { center: String(center), name: 'inner', steps: [{ command: 'hardware', params: {} }] });
    assert.equal(inner.status, 200, inner.text);
    const r = await s.post('/procedure/add', {
      center: String(center),
      name: 'outer',
      description: 'two steps',
      steps: [
        { command: 'run', params: { run: 'echo one' } },
        { procedure: String(inner.body.id) },
        { command: 'session', params: { disk: '1', part: '2' } },
      ],
    });
    assert.equal(r.status, 200, r.text);
    const id = r.body.id as number;
    const steps = async () =>
      (await s.app.database.fork().find(ProcedureStepEntity, { procedure: { id } }, { orderBy: { ordinal: 'asc' } })).map(
        (st) => st.command ?? `procedure ${st.subprocedure?.id}`,
      );
    assert.deepEqual(await steps(), ['run', `procedure ${inner.body.id}`, 'session'], 'steps kept in request order');

    const u = await s.post('/procedure/update', {
      procedure: String(id),
      center: String(center),
      name: 'outer',
      steps: [{ command: 'reboot' }],
    });
    assert.equal(u.status, 200, u.text);
    assert.deepEqual(await steps(), ['reboot'], 'update replaces the steps');
    const e = await s.post('/procedure/update', { procedure: String(id), center: String(center), name: 'outer renamed', steps: [] });
    assert.equal(e.status, 200, e.text);
    assert.deepEqual(await steps(), [], 'empty steps remove the old steps');
  }));

test('a second procedure with the same name in the same center is refused; another center may use it', () =>
  withSite(async ({ s, center }) => {
    assert.equal((await s.post('/procedure/add', { center, name: 'daily' })).status, 200, 'first');
    expect400(await s.post('/procedure/add', { center, name: 'daily' }), 'name', 'duplicate name');
    const other = await s.post('/center/add', { name: 'Other' });
    assert.equal((await s.post('/procedure/add', { center: other.body.id, name: 'daily' })).status, 200, 'same name, other center');
    const second = await s.post('/procedure/add', { center, name: 'weekly' });
    expect400(
      await s.post('/procedure/update', { procedure: second.body.id, center, name: 'daily' }),
      'name',
      'renaming onto an existing name',
    );
  }));

test('cycles are refused naming the step: self, direct and indirect', () =>
  withSite(async ({ s, center }) => {
    const a = (await s.post('/procedure/add', { center, name: 'a' })).body.id;
    const b = (await s.post('/procedure/add', { center, name: 'b', steps: [{ procedure: a }] })).body.id;
    const c = (await s.post('/procedure/add', { center, name: 'c', steps: [{ procedure: b }] })).body.id;
    const self = await s.post('/procedure/update', { procedure: a, center, name: 'a', steps: [{ procedure: a }] });
    expect400(self, 'steps[0].procedure', 'a procedure including itself');
    assert.equal(self.body.error, 'cycle', 'error code');
    expect400(
      await s.post('/procedure/update', { procedure: a, center, name: 'a', steps: [{ command: 'hardware' }, { procedure: c }] }),
      'steps[1].procedure',
      'a -> c -> b -> a',
    );
    const steps = await s.app.database.fork().count(ProcedureStepEntity, { procedure: { id: a } });
    assert.equal(steps, 0, 'the refused update wrote nothing');
  }));

test('procedure/add validates every step before writing anything', () =>
  withSite(
    async ({ s, center }) => {
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'hardware' }, { task: '1' }] }),
        'steps[1].task',
        'a task step',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'format_everything' }] }),
        'steps[0].command',
        'unknown command',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'wol', params: { type: 'multicast' } }] }),
        'steps[0].params.type',
        'wol with an unknown packet type',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'run', params: {} }] }),
        'steps[0].params.run',
        'missing param',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'session', params: { disk: 1 } }] }),
        'steps[0].params.part',
        'session without part',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'software', params: { disk: 'x', partition: 1 } }] }),
        'steps[0].params.disk',
        'bad disk',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'software', params: { disk: '1', partition: '99999' } }] }),
        'steps[0].params.partition',
        'partition past 65535',
      );
      const imageStep = { disk: '1', partition: '1', code: '131', name: 'img', repository: '10.0.0.9' };
      expect400(
        await s.post('/procedure/add', {
          center,
          name: 'p',
          steps: [{ command: 'image_create', params: { ...imageStep, id: '99999999999' } }],
        }),
        'steps[0].params.id',
        'image id past 2^31-1',
      );
      expect400(
        await s.post('/procedure/add', {
          center,
          name: 'p',
          steps: [{ command: 'image_restore', params: { ...imageStep, id: 1, type: 'UNICAST', profile: 99_999_999_999 } }],
        }),
        'steps[0].params.profile',
        'profile past 2^31-1',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ procedure: '999' }] }),
        'steps[0].procedure',
        'unknown procedure',
      );
      expect400(
        await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'reboot', procedure: 1 }] }),
        'steps[0]',
        'two kinds in one step',
      );
      expect400(await s.post('/procedure/add', { center, name: 'p', steps: [{}] }), 'steps[0]', 'an empty step');
      expect400(await s.post('/procedure/add', { center: '999', name: 'p' }), 'center', 'unknown center');
      expect400(await s.post('/procedure/add', { center: 'x', name: 'p' }), 'center', 'center not numeric');
      expect400(await s.post('/procedure/add', { center, name: '' }), 'name', 'empty name');
      expect400(await s.post('/procedure/add', { name: 'p' }), 'center', 'missing center');
      expect400(await s.post('/procedure/add', { center, name: 'p', steps: 'reboot' }), 'steps', 'steps not a list');
      // Nothing was written by the refused requests: the name is still free.
      assert.equal((await s.post('/procedure/add', { center, name: 'p' })).status, 200, 'name p still free');
      expect400(await s.post('/procedure/update', { procedure: '999', center, name: 'q' }), 'procedure', 'update of an unknown procedure');
    },
    { plugins: ['transfers', 'images'] },
  ));

test("a step is checked by its REST call's rules: what POST /image/create, /image/restore and /shell/run refuse, a step refuses", async () => {
  const site = await schedulerSite({ plugins: ['transfers', 'images'], clients: 1 });
  try {
    const { s, center, ips } = site;
    const create = { disk: '1', partition: '1', code: '131', id: '0', name: 'lab' };
    const restore = { disk: '1', partition: '1', id: '1', type: 'UNICAST' };
    const cases: [string, string, string, Record<string, unknown>, string][] = [
      ['image_create', '/image/create', 'a name that is no file name', { ...create, name: '../etc' }, 'name'],
      ['image_create', '/image/create', 'a name past 50 characters', { ...create, name: 'a'.repeat(51) }, 'name'],
      ['image_create', '/image/create', 'a partition code that is no number', { ...create, code: 'NTFS' }, 'code'],
      ['image_create', '/image/create', 'a repository that is no address', { ...create, repository: 'repo' }, 'repository'],
      ['image_restore', '/image/restore', 'a restore method the agent does not know', { ...restore, type: 'MULTICAST' }, 'type'],
      ['image_restore', '/image/restore', 'no restore method', { disk: '1', partition: '1', id: '1' }, 'type'],
      ['run', '/shell/run', 'an empty script', { run: '' }, 'run'],
      ['setup', '/setup', 'no partition table type', { disk: '1', cache: '0', cache_size: '0', partition_setup: [] }, 'type'],
    ];
    for (const [command, path, what, params, field] of cases) {
      expect400(await s.post(path, { clients: [ips[0]], ...params }), field, `${path}: ${what}`);
      const step = await s.post('/procedure/add', { center, name: 'p', steps: [{ command, params }] });
      expect400(step, `steps[0].params.${field}`, `${command} step: ${what}`);
      expect400(
        await s.post('/schedule/command', { clients: [ips[0]], command, params }),
        `params.${field}`,
        `scheduled ${command}: ${what}`,
      );
    }
    assert.equal((await s.post('/procedure/add', { center, name: 'p' })).status, 200, 'nothing was written by the refused steps');
  } finally {
    await site.close();
  }
});

test('a step may name only the commands of enabled plugins: without shell a script step is refused, naming the commands there are', async () => {
  const site = await schedulerSite({ without: ['shell'] });
  try {
    const r = await site.s.post('/procedure/add', { center: site.center, name: 'p', steps: [{ command: 'run', params: { run: 'ls' } }] });
    expect400(r, 'steps[0].command', 'run without shell');
    assert.equal(r.body.error, 'unknown_command');
    assert.match(r.body.message, /must be one of wol, poweroff, reboot, stop, refresh, hardware, software, session, setup$/);
  } finally {
    await site.close();
  }
});

test('GET /procedures and GET /tasks list what was stored: steps in order with their params, includes, scope', () =>
  withSite(async ({ s, center, room }) => {
    const inner = (await s.post('/procedure/add', { center, name: 'inner', steps: [{ command: 'hardware' }] })).body.id;
    const outer = (
      await s.post('/procedure/add', {
        center,
        name: 'outer',
        description: 'two steps',
        steps: [{ command: 'software', params: { disk: '1', partition: '2' } }, { procedure: inner }],
      })
    ).body.id;
    const task = (await s.post('/task/add', { center, name: 't', steps: [{ procedure: outer }], scope: { type: 'room', id: room } })).body
      .id;
    const bare = (await s.post('/task/add', { center, name: 'bare', steps: [{ task }] })).body.id;
    assert.deepEqual((await s.get('/procedures')).body, {
      procedures: [
        { id: inner, center, name: 'inner', description: '', steps: [{ command: 'hardware', params: {} }] },
        {
          id: outer,
          center,
          name: 'outer',
          description: 'two steps',
          steps: [{ command: 'software', params: { disk: '1', partition: '2' } }, { procedure: inner }],
        },
      ],
    });
    assert.deepEqual((await s.get('/tasks')).body, {
      tasks: [
        { id: task, center, name: 't', description: '', scope: { type: 'room', id: room }, steps: [{ procedure: outer }] },
        { id: bare, center, name: 'bare', description: '', scope: null, steps: [{ task }] },
      ],
    });
    await s.post('/procedure/delete', { id: inner });
    assert.deepEqual(
      (await s.get('/procedures')).body.procedures.map((p: { steps: unknown[] }) => p.steps),
      [[{ command: 'software', params: { disk: '1', partition: '2' } }]],
      'a deleted procedure leaves the steps that included it',
    );
  }));

test('procedure/delete answers 200 for an unknown id and removes the steps that included it', () =>
  withSite(async ({ s, center }) => {
    assert.equal((await s.post('/procedure/delete', { id: '12345' })).status, 200, 'unknown id');
    expect400(await s.post('/procedure/delete', { id: 'abc' }), 'id', 'non-numeric id');
    const a = (await s.post('/procedure/add', { center, name: 'a', steps: [{ command: 'reboot' }] })).body.id;
    const b = (await s.post('/procedure/add', { center, name: 'b', steps: [{ procedure: a }, { command: 'hardware' }] })).body.id;
    assert.equal((await s.post('/procedure/delete', { id: String(a) })).status, 200, 'delete a');
    const em = s.app.database.fork();
    assert.equal(await em.count(ProcedureStepEntity, { procedure: { id: a } }), 0, "a's steps are gone");
    const left = await em.find(ProcedureStepEntity, { procedure: { id: b } });
    assert.deepEqual(
      left.map((st) => st.command),
      ['hardware'],
      'the step of b that included a is gone',
    );
    assert.equal((await s.post('/procedure/add', { center, name: 'a' })).status, 200, 'the name is free again');
  }));

test('task/add: procedure and task steps, no commands, known ids and scope', () =>
  withSite(async ({ s, center, room }) => {
    const p = (await s.post('/procedure/add', { center, name: 'p', steps: [{ command: 'reboot' }] })).body.id;
    const t1 = await s.post('/task/add', { center: String(center), name: 't1', steps: [{ procedure: String(p) }] });
    assert.equal(t1.status, 200, t1.text);
    const t2 = await s.post('/task/add', {
      center,
      name: 't2',
      description: 'nested',
      steps: [{ task: t1.body.id }, { procedure: p }],
      scope: { type: 'room', id: room },
    });
    assert.equal(t2.status, 200, t2.text);
    expect400(await s.post('/task/add', { center, name: 't3', steps: [{ command: 'reboot' }] }), 'steps[0].command', 'a command step');
    expect400(await s.post('/task/add', { center, name: 't3', steps: [{ task: '999' }] }), 'steps[0].task', 'unknown task');
    expect400(await s.post('/task/add', { center, name: 't3', steps: [{ procedure: '999' }] }), 'steps[0].procedure', 'unknown procedure');
    expect400(await s.post('/task/add', { center, name: 't3', scope: { type: 'room', id: 999 } }), 'scope.id', 'unknown room');
    expect400(await s.post('/task/add', { center, name: 't3', scope: { type: 'planet', id: 1 } }), 'scope.type', 'unknown scope type');
    expect400(await s.post('/task/add', { center: 999, name: 't3' }), 'center', 'unknown center');
    expect400(await s.post('/task/run', { task: '999' }), 'task', 'running an unknown task');
  }));

test.run();

import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ImageStore } from '../../../plugins/images';
import { answerBytes, eventually } from '../../support/fake-agent';
import { createAnswer, ctimePattern, imageSite, repositoryAddresses } from './helpers';

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Read a ctime text back into seconds since 1970 (local time), as strptime would. */
function parseCtime(text: string): number {
  const m = ctimePattern.exec(text);
  assert.ok(m, `'${text}' matches %a %b %d %H:%M:%S %Y`);
  return new Date(Number(m[7]), months.indexOf(m[2]!), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])).getTime() / 1000;
}

test('create a new image (web console body): relayed with the repository address, stored from the answer', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request) }));
    const r = await x.s.post('/image/create', {
      clients: [ip],
      disk: '1',
      partition: '2',
      code: '131',
      name: 'ubuntu22',
      repository_id: x.repository,
      id: '0',
      description: 'Ubuntu 22.04 lab',
      group_id: 0,
      center_id: x.center,
    });
    assert.equal(r.status, 200, r.text);
    const { job, ...outcomes } = r.body;
    assert.ok(Number.isInteger(job), 'the answer names its job (the jobs plugin)');
    assert.deepEqual(outcomes, { clients: [{ addr: ip, outcome: 'sent' }] }, 'relayed answer lists the client as sent');
    const seen = await agent.waitFor('image/create');
    assert.equal(seen.method, 'POST', 'image/create is a POST');
    // The client is on 127.0.1.0/24: it gets the repository address on its own network.
    assert.deepEqual(
      seen.body,
      { disk: '1', partition: '2', code: '131', id: '0', name: 'ubuntu22', repository: repositoryAddresses[1] },
      'body sent to the agent',
    );
    assert.equal((await x.settled(ip)).last_cmd.result, 'success', 'last_cmd success');
    const images = await x.images();
    assert.equal(images.length, 1, 'one image stored');
    const image = images[0];
    // The source partition's software profile, as the reference's images carry it (ogCP shows
    // it and sends it back as the restore's profile): set from the answer's software list.
    const setup = await x.s.get('/client/setup', { client: [ip] });
    const source = setup.body.partitions.find((p: { disk: number; partition: number }) => p.disk === 1 && p.partition === 2);
    assert.ok(source.software > 0, `the imaged partition has a software profile: ${JSON.stringify(source)}`);
    assert.equal(source.image, image.id, 'the imaged partition holds the image');
    assert.deepEqual(
      { ...image, id: undefined },
      {
        id: undefined,
        name: 'ubuntu22',
        description: 'Ubuntu 22.04 lab',
        size: 4294967296,
        datasize: 8589934592,
        modified: image.modified,
        permissions: '644',
        software_id: source.software,
        type: 1,
        repo_id: x.repository,
        repo_ip: repositoryAddresses[0],
        checksum: 'd41d8cd98f00b204e9800998ecf8427e',
        center_id: x.center,
        group_id: 0,
        // No file in repository.directory (the fake agent writes none): kept on another repository, not hashed.
        sha256: '',
        state: 'available',
        damage: '',
        checked: image.checked,
      },
      'every field of the new image',
    );
    assert.equal(parseCtime(image.modified), 1664897550, `modified '${image.modified}' is lastupdate in ctime form`);
    // The answer's software list is the imaged partition's, as a software inventory would store it.
    const software = await x.s.get('/software', { client: [ip], disk: 1, partition: 2 });
    assert.deepEqual(software.body, { software: ['bash 5.1'] }, 'the partition software from the create answer');
  } finally {
    await x.close();
  }
});

test('create with an existing id (web console update) refreshes the image: same id, description kept, not duplicated', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request) }));
    await x.s.post('/image/create', {
      clients: [ip],
      disk: '1',
      partition: '2',
      code: '131',
      name: 'win10',
      repository_id: x.repository,
      id: '0',
      description: 'first',
      center_id: x.center,
    });
    await agent.waitFor('image/create');
    await x.settled(ip);
    const [first] = await x.images();
    assert.ok(first, 'image created');

    agent.on('image/create', (request) => ({ body: createAnswer(request, { size: '5000', lastupdate: 1700000000, perms: 416 }) }));
    const r = await x.s.post('/image/create', {
      clients: [ip],
      disk: '1',
      partition: '2',
      code: '131',
      name: 'win10',
      repository: repositoryAddresses[0],
      id: String(first.id),
      group_id: 0,
      center_id: 0,
    });
    assert.equal(r.status, 200, r.text);
    const seen = await agent.waitFor('image/create', 1);
    assert.equal(seen.body.id, String(first.id), 'the existing id is relayed');
    await x.settled(ip);
    const images = await x.images();
    assert.equal(images.length, 1, 'still one image');
    assert.equal(images[0].id, first.id, 'same id');
    assert.equal(images[0].description, 'first', 'description kept when the request has none');
    assert.equal(images[0].center_id, x.center, 'center_id 0 from the console keeps the center');
    assert.equal(images[0].size, 5000, 'size refreshed from the answer');
    assert.equal(images[0].permissions, '640', 'permissions refreshed (416 = 0o640)');
    assert.equal(parseCtime(images[0].modified), 1700000000, 'modified refreshed');
  } finally {
    await x.close();
  }
});

test('ogCLI body (id "0", no description, repository_id as a string) twice for one name: one record', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request) }), true);
    for (let i = 0; i < 2; i++) {
      const r = await x.s.post('/image/create', {
        clients: [ip],
        disk: '1',
        partition: '1',
        center_id: x.center,
        code: '7',
        name: 'cli-image',
        id: '0',
        repository_id: String(x.repository),
      });
      assert.equal(r.status, 200, r.text);
      await agent.waitFor('image/create', i);
      await x.settled(ip);
    }
    const images = await x.images();
    assert.equal(images.length, 1, 'a second create of the same name refreshes, not duplicates');
    assert.equal(images[0].description, '', 'no description given');
  } finally {
    await x.close();
  }
});

test('an answer that arrives twice is stored once', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => {
      const bytes = answerBytes(200, createAnswer(request));
      return { raw: bytes + bytes };
    });
    await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name: 'twice', id: '0' });
    await agent.waitFor('image/create');
    assert.equal((await x.settled(ip)).last_cmd.result, 'success', 'first answer stored');
    await eventually(() => x.s.logs.some((l) => /no outstanding request/.test(l.msg)), 'second answer seen and ignored');
    assert.equal((await x.images()).length, 1, 'one record');
    // Two captures of one name through the service itself also make one row.
    const store = x.s.app.container.resolve(ImageStore);
    const capture = {
      name: 'twice',
      repositoryId: x.repository,
      clientId: 1,
      disk: 1,
      partition: 1,
      code: 7,
      size: 1n,
      datasize: 1n,
      checksum: '',
      permissions: '644',
      lastUpdate: 0n,
      clonator: '',
      compressor: '',
      filesystem: '',
    };
    await Promise.all([store.saveCapture(capture), store.saveCapture(capture)]);
    assert.equal((await x.images()).length, 1, 'concurrent captures of one name: still one record');
  } finally {
    await x.close();
  }
});

test('a failure answer stores nothing and shows last_cmd failure', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', { status: 500 });
    await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name: 'broken', id: '0' });
    await agent.waitFor('image/create');
    assert.equal((await x.settled(ip)).last_cmd.result, 'failure', 'last_cmd failure after a 500');
    assert.deepEqual(await x.images(), [], 'nothing stored');

    // A 200 whose body does not fit (datasize 0, a size past 2^53 sent as a JSON number) fails too.
    for (const [i, extra] of [
      [1, { datasize: 0 }],
      [2, { size: 2 ** 60 }],
      [3, { name: 'other' }],
      [4, { checksum: 'not hex' }],
    ] as const) {
      agent.on('image/create', (request) => ({ body: createAnswer(request, extra) }));
      await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name: 'broken', id: '0' });
      await agent.waitFor('image/create', i);
      assert.equal((await x.settled(ip)).last_cmd.result, 'failure', `last_cmd failure for ${JSON.stringify(extra)}`);
      assert.deepEqual(await x.images(), [], `nothing stored for ${JSON.stringify(extra)}`);
    }
  } finally {
    await x.close();
  }
});

test('an answer arriving after the command timed out is not stored', async () => {
  const x = await imageSite(1, { agents: { command_timeout_s: 0.2 } });
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request), delayMs: 600 }));
    await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name: 'late', id: '0' });
    await agent.waitFor('image/create');
    assert.equal((await x.settled(ip)).last_cmd.result, 'failure', 'timed out: failure');
    await eventually(() => x.s.logs.some((l) => /no outstanding request/.test(l.msg)), 'late answer seen');
    assert.deepEqual(await x.images(), [], 'late answer not stored');
  } finally {
    await x.close();
  }
});

test('64-bit sizes past 2^53 keep every digit; modified parses with the ctime pattern', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    const datasize = '18014398509481985'; // 2^54 + 1
    const size = '9223372036854775807'; // 2^63 - 1
    agent.on('image/create', (request) => ({ body: createAnswer(request, { datasize, size, lastupdate: 946684799 }) }));
    await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name: 'huge', id: '0' });
    await agent.waitFor('image/create');
    assert.equal((await x.settled(ip)).last_cmd.result, 'success', 'stored');
    const r = await x.s.get('/images');
    assert.ok(r.text.includes(`"size":${size}`), `exact size in ${r.text}`);
    assert.ok(r.text.includes(`"datasize":${datasize}`), `exact datasize in ${r.text}`);
    assert.equal(parseCtime(r.body.images[0].modified), 946684799, 'modified round-trips through the ctime pattern');
    assert.equal(typeof r.body.disk.free, 'number', 'disk.free is a number');
    assert.ok(
      r.body.disk.total > 0 && r.body.disk.free <= r.body.disk.total,
      `disk space of the repository file system: ${JSON.stringify(r.body.disk)}`,
    );
  } finally {
    await x.close();
  }
});

test("repo_ip follows the repository's addresses; repo_id stays", async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request) }));
    await x.s.post('/image/create', { clients: [ip], disk: '1', partition: '1', code: '7', name: 'moving', id: '0' });
    await agent.waitFor('image/create');
    await x.settled(ip);
    const u = await x.s.post('/repository/update', { repo_id: x.repository, name: 'repo', ip: ['10.98.0.7', '127.0.1.251'] });
    assert.equal(u.status, 200, u.text);
    const [image] = await x.images();
    assert.equal(image.repo_id, x.repository, 'repo_id unchanged');
    assert.equal(image.repo_ip, '10.98.0.7', "repo_ip is the repository's first address now");
  } finally {
    await x.close();
  }
});

test("an image/create another plugin sent (the scheduler's) is stored from the answer alone", async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip);
    agent.on('image/create', (request) => ({ body: createAnswer(request) }), true);
    const body = { disk: '1', partition: '2', code: '131', id: '0', name: 'scheduled', repository: repositoryAddresses[2] };
    const sent = await x.link.dispatch([ip], { method: 'POST', path: 'image/create', body });
    assert.equal((await sent.answers.get(ip))?.status, 200, 'answered');
    assert.equal((await x.settled(ip)).last_cmd.result, 'success', 'stored');
    const [image] = await x.images();
    assert.deepEqual(
      [image.name, image.repo_id, image.center_id],
      ['scheduled', x.repository, x.center],
      'repository found by the answered address, center from the client',
    );
    // An answer naming an address no repository has: failure, nothing stored.
    const other = await x.link.dispatch([ip], {
      method: 'POST',
      path: 'image/create',
      body: { ...body, name: 'stray', repository: '192.0.2.1' },
    });
    await other.answers.get(ip);
    assert.equal((await x.settled(ip)).last_cmd.result, 'failure', 'unknown repository address: failure');
    assert.equal((await x.images()).length, 1, 'nothing more stored');
  } finally {
    await x.close();
  }
});

test('a second create of a name being created is refused until the first is answered', async () => {
  const x = await imageSite(2);
  try {
    const [first, second] = x.ips as [string, string];
    const a = await x.connect(first);
    const b = await x.connect(second);
    a.on('image/create', { none: true });
    const body = { disk: '1', partition: '1', code: '7', name: 'shared', id: '0' };
    assert.equal((await x.s.post('/image/create', { ...body, clients: [first] })).status, 200, 'first create sent');
    await a.waitFor('image/create');
    const refused = await x.s.post('/image/create', { ...body, clients: [second] });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual([refused.body.error, refused.body.field], ['conflict', 'name'], 'conflict on the name');
    assert.equal(b.requests.filter((q) => q.path === 'image/create').length, 0, 'the second agent got nothing');
    // Once the first agent is gone, the name is free again.
    a.destroy();
    await eventually(async () => !(await x.s.get('/clients')).body.clients.some((c: any) => c.addr === first), 'first agent gone');
    b.on('image/create', (request) => ({ body: createAnswer(request) }));
    assert.equal((await x.s.post('/image/create', { ...body, clients: [second] })).status, 200, 'second create sent');
    await b.waitFor('image/create');
    assert.equal((await x.settled(second)).last_cmd.result, 'success', 'stored');
    assert.equal((await x.images()).length, 1, 'one image');
  } finally {
    await x.close();
  }
});

test('create refuses what it cannot do: several clients, unknown ids, a name that differs, no repository', async () => {
  const x = await imageSite(2);
  try {
    const base = { clients: [x.ips[0]], disk: '1', partition: '1', code: '7', name: 'img', id: '0' };
    const cases: [Record<string, unknown>, string][] = [
      [{ clients: x.ips }, 'clients'],
      [{ clients: [] }, 'clients'],
      [{ clients: ['127.0.1'] }, 'clients[0]'],
      [{ id: 1.5 }, 'id'],
      [{ name: 7 }, 'name'],
      [{ id: '77' }, 'id'],
      [{ repository_id: 99 }, 'repository_id'],
      [{ repository_id: 'x' }, 'repository_id'],
      [{ repository: '10.1.2.3' }, 'repository'],
      [{ repository: 'repo' }, 'repository'],
      [{ description: 'd'.repeat(251) }, 'description'],
      [{ center_id: 'one' }, 'center_id'],
      [{ backup: 'yes' }, 'backup'],
      [{ disk: 'one' }, 'disk'],
      [{ code: -1 }, 'code'],
    ];
    for (const field of ['clients', 'disk', 'partition', 'code', 'id', 'name']) {
      const { [field]: _gone, ...missing } = base as Record<string, unknown>;
      const r = await x.s.post('/image/create', missing);
      assert.equal(r.status, 400, `without ${field}: ${r.text}`);
      assert.deepEqual([r.body.error, r.body.field], ['missing_field', field], `missing ${field} named`);
    }
    for (const [change, field] of cases) {
      const r = await x.s.post('/image/create', { ...base, ...change });
      assert.equal(r.status, 400, `${JSON.stringify(change)}: ${r.text}`);
      assert.equal(r.body.field, field, `${JSON.stringify(change)} names ${field}`);
    }
    // A client with no repository and no repository named: refused before anything is sent.
    const none = await x.s.post('/client/add', { ip: '127.0.1.9', mac: '0200000000aa', room: x.room });
    assert.equal(none.status, 200, none.text);
    const r = await x.s.post('/image/create', { ...base, clients: ['127.0.1.9'] });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.field, 'repository_id', 'missing repository named');
    // A client that is not connected: 200, outcome not_connected, nothing stored.
    const off = await x.s.post('/image/create', base);
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.body.clients, [{ addr: x.ips[0], outcome: 'not_connected' }], 'not connected');
    assert.deepEqual(await x.images(), [], 'nothing stored');
  } finally {
    await x.close();
  }
});

test.run();

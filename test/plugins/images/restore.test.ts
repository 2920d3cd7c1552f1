import assert from 'node:assert/strict';
import { test } from 'uvu';
import { ImageStore } from '../../../plugins/images';
import { addCenter, addClient, addRoom } from '../../support/fixtures';
import { imageSite, repositoryAddresses } from './helpers';

const capture = (name: string, repositoryId: number) => ({
  name,
  repositoryId,
  clientId: 0,
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
});

test('restore with a multi-address repository: each client gets the address on its own network', async () => {
  const x = await imageSite(2);
  try {
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture(capture('ubuntu', x.repository));
    await x.s.post('/image/update', { id, software_id: 12 });
    // Clients on two other /24 networks: one the repository has an address on, one it has not.
    await addClient(x.s, x.room, '127.0.2.1', '0200000000fe');
    await addClient(x.s, x.room, '127.0.3.1', '0200000000ff');
    const near = await x.connect(x.ips[0]!);
    const second = await x.connect('127.0.2.1');
    const third = await x.connect('127.0.3.1');
    // ogCP: repository from /repositories (the first address), type TIPTORRENT, strings.
    const r = await x.s.post('/image/restore', {
      disk: '1',
      partition: '2',
      name: 'ubuntu',
      repository: repositoryAddresses[0],
      clients: [x.ips[0], '127.0.2.1', x.ips[1], '127.0.3.1'],
      type: 'TIPTORRENT',
      profile: '12',
      id: String(id),
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.clients,
      [
        { addr: x.ips[0], outcome: 'sent' },
        { addr: '127.0.2.1', outcome: 'sent' },
        { addr: x.ips[1], outcome: 'not_connected' },
        { addr: '127.0.3.1', outcome: 'sent' },
      ],
      'one outcome per client, in the order asked',
    );
    const a = await near.waitFor('image/restore');
    assert.deepEqual(
      a.body,
      { disk: '1', partition: '2', name: 'ubuntu', repository: repositoryAddresses[1], type: 'TIPTORRENT', profile: '12', id: String(id) },
      'the client on 127.0.1.0/24 gets 127.0.1.250',
    );
    assert.equal(
      (await second.waitFor('image/restore')).body.repository,
      repositoryAddresses[2],
      'the client on 127.0.2.0/24 gets 127.0.2.250',
    );
    assert.equal(
      (await third.waitFor('image/restore')).body.repository,
      repositoryAddresses[0],
      'a client on no repository network gets the address asked',
    );
  } finally {
    await x.close();
  }
});

test('restore (ogCLI): its own server address is sent as given; unicast-direct accepted, profile defaults to the image', async () => {
  const x = await imageSite();
  try {
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture(capture('win', x.repository));
    await x.s.post('/image/update', { id, software_id: 4 });
    const agent = await x.connect(x.ips[0]!);
    const r = await x.s.post('/image/restore', {
      disk: '1',
      partition: '1',
      id: String(id),
      name: 'win',
      repository: '192.0.2.10',
      type: 'unicast-direct',
      clients: [x.ips[0]],
    });
    assert.equal(r.status, 200, r.text);
    const seen = await agent.waitFor('image/restore');
    assert.deepEqual(
      seen.body,
      { disk: '1', partition: '1', name: 'win', repository: '192.0.2.10', type: 'UNICAST-DIRECT', profile: '4', id: String(id) },
      'relayed body',
    );
    // Without a repository: the image's own, on the client's network; type UNICAST.
    await x.settled(x.ips[0]!);
    const r2 = await x.s.post('/image/restore', { disk: 1, partition: 1, id, type: 'UNICAST', clients: [x.ips[0]] });
    assert.equal(r2.status, 200, r2.text);
    const seen2 = await agent.waitFor('image/restore', 1);
    assert.equal(seen2.body.repository, repositoryAddresses[1], "the image repository's local address");
    assert.equal(seen2.body.type, 'UNICAST', 'type');
  } finally {
    await x.close();
  }
});

test('restore refuses bad input: unknown image, other name, unknown type, malformed fields', async () => {
  const x = await imageSite();
  try {
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture(capture('img', x.repository));
    const base = { disk: '1', partition: '1', id: String(id), type: 'UNICAST', clients: [x.ips[0]] };
    const cases: [Record<string, unknown>, string][] = [
      [{ id: '999' }, 'id'],
      [{ id: 'abc' }, 'id'],
      [{ name: 'other' }, 'name'],
      [{ type: 'MULTICAST' }, 'type'],
      [{ type: '' }, 'type'],
      [{ repository: '10.0.0' }, 'repository'],
      [{ clients: [] }, 'clients'],
      [{ clients: ['x'] }, 'clients[0]'],
      [{ disk: '70000' }, 'disk'],
      [{ profile: 'p' }, 'profile'],
    ];
    for (const [change, field] of cases) {
      const r = await x.s.post('/image/restore', { ...base, ...change });
      assert.equal(r.status, 400, `${JSON.stringify(change)}: ${r.text}`);
      assert.equal(r.body.field, field, `${JSON.stringify(change)} names ${field}`);
    }
  } finally {
    await x.close();
  }
});

test('/image/restrict: an image restricted to other centers is not restored on this one', async () => {
  const x = await imageSite();
  try {
    const store = x.s.app.container.resolve(ImageStore);
    const id = await store.saveCapture(capture('lab', x.repository));
    const otherCenter = await addCenter(x.s, 'Other');
    await addRoom(x.s, otherCenter, 'Other room');
    const get0 = await x.s.get('/image/restrict', { image: String(id) });
    assert.deepEqual(get0.body, { image: id, scopes: [] }, 'unrestricted at first');
    const set = await x.s.post('/image/restrict', { image: id, scopes: [otherCenter, String(otherCenter)] });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(
      (await x.s.get('/image/restrict', { image: id })).body,
      { image: id, scopes: [otherCenter] },
      'restricted, duplicates folded',
    );
    const refused = await x.s.post('/image/restore', { disk: '1', partition: '1', id, type: 'UNICAST', clients: [x.ips[0]] });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.field, 'clients', 'the clients outside are named');
    await x.s.post('/image/restrict', { image: id, scopes: [x.center, otherCenter] });
    const allowed = await x.s.post('/image/restore', { disk: '1', partition: '1', id, type: 'UNICAST', clients: [x.ips[0]] });
    assert.equal(allowed.status, 200, `restore allowed once the center is listed: ${allowed.text}`);
    await x.s.post('/image/restrict', { image: id, scopes: [] });
    assert.deepEqual((await x.s.get('/image/restrict', { image: id })).body.scopes, [], 'an empty list lifts the restriction');
    for (const [method, body, field] of [
      ['GET', { image: 999 }, 'image'],
      ['POST', { image: id }, 'scopes'],
      ['POST', { image: id, scopes: [0] }, 'scopes[0]'],
      ['POST', { image: 'x', scopes: [] }, 'image'],
    ] as const) {
      const r = await x.s.request(method, '/image/restrict', body);
      assert.equal(r.status, 400, `${method} ${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.field, field, `${JSON.stringify(body)} names ${field}`);
    }
    // Deleting the image takes its restriction along.
    assert.equal((await x.s.post('/image/delete', { image: id })).status, 200, 'deleted');
    assert.equal((await x.s.get('/image/restrict', { image: id })).status, 400, 'gone with it');
  } finally {
    await x.close();
  }
});

test.run();

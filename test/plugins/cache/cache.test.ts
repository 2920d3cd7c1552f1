import assert from 'node:assert/strict';
import { test } from 'uvu';
import { CacheStore } from '../../../plugins/cache';
import { defaultConfiguration } from '../../support/fake-agent';
import { imageSite, repositoryAddresses } from '../images/helpers';

/** A live agent's refresh answer with a 20 GiB cache partition holding `cache`. */
function withCache(cache: unknown[], cacheKiB = '20971520') {
  return {
    ...defaultConfiguration,
    partition_setup: [
      ...defaultConfiguration.partition_setup,
      { disk: '1', disk_type: '', partition: '3', code: 'ca', filesystem: 'CACHE', os: '', size: cacheKiB, used_size: '5' },
    ],
    cache,
  };
}

const ubuntu = { name: 'ubuntu22', size: 4294967296, checksum: 'd41d8cd98f00b204e9800998ecf8427e' };
const win = { name: 'win10', size: 1073741824, checksum: '0cc175b9c0f1b6a831c399e269772661' };

test('cache list: a client with a cache partition, one without, an unknown address left out', async () => {
  const x = await imageSite(2);
  try {
    await x.connect(x.ips[0]!, { configuration: withCache([win, ubuntu]) });
    await x.connect(x.ips[1]!);
    const r = await x.s.get('/cache/list', { clients: [x.ips[1], '127.0.9.9', x.ips[0]] });
    assert.equal(r.status, 200, r.text);
    const cache = 20971520 * 1024;
    assert.deepEqual(
      r.body,
      {
        clients: [
          { ip: x.ips[1], cache_size: 0, used_size: 0, free_size: 0, images: [] },
          {
            ip: x.ips[0],
            cache_size: cache,
            used_size: ubuntu.size + win.size,
            free_size: cache - ubuntu.size - win.size,
            images: [ubuntu, win],
          },
        ],
      },
      'sizes in bytes, images by name, in the order asked',
    );
    for (const body of [undefined, {}, { clients: [] }, { clients: ['bad'] }, { clients: '127.0.1.1' }]) {
      const bad = await x.s.get('/cache/list', body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
    }
  } finally {
    await x.close();
  }
});

test('refresh answers replace the contents; one without a cache key empties them', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { configuration: withCache([ubuntu]) });
    agent.on('refresh', { body: withCache([win]) });
    await x.s.post('/refresh', { clients: [ip] });
    await agent.waitFor('refresh', 1);
    await x.settled(ip);
    const list = async () => (await x.s.get('/cache/list', { clients: [ip] })).body.clients[0];
    assert.deepEqual((await list()).images, [win], 'replaced by the second refresh');
    const { cache: _cache, ...noCacheKey } = withCache([]);
    agent.on('refresh', { body: noCacheKey });
    await x.s.post('/refresh', { clients: [ip] });
    await agent.waitFor('refresh', 2);
    await x.settled(ip);
    const store = x.s.app.container.resolve(CacheStore);
    assert.deepEqual((await store.contents([1])).get(1), [], 'no cache key: nothing cached');
    // A malformed cache list fails the refresh.
    agent.on('refresh', { body: withCache([{ name: 'x', size: -1, checksum: '' }]) });
    await x.s.post('/refresh', { clients: [ip] });
    await agent.waitFor('refresh', 3);
    assert.equal((await x.settled(ip)).last_cmd.result, 'failure', 'bad cache entry: failure');
  } finally {
    await x.close();
  }
});

test('the cache size listed follows each refresh that resizes the cache partition, and a partition that went away', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { configuration: withCache([ubuntu]) });
    const size = async () => (await x.s.get('/cache/list', { clients: [ip] })).body.clients[0].cache_size;
    assert.equal(await size(), 20971520 * 1024, 'as first reported');
    assert.equal(await size(), 20971520 * 1024, 'asked again');
    for (const [n, kib] of ['31457280', '10485760'].entries()) {
      agent.on('refresh', { body: withCache([ubuntu], kib) });
      await x.s.post('/refresh', { clients: [ip] });
      await agent.waitFor('refresh', n + 1);
      await x.settled(ip);
      assert.equal(await size(), Number(kib) * 1024, `resized to ${kib} KiB`);
    }
    agent.on('refresh', { body: defaultConfiguration });
    await x.s.post('/refresh', { clients: [ip] });
    await agent.waitFor('refresh', 3);
    await x.settled(ip);
    assert.equal(await size(), 0, 'no cache partition any more');
  } finally {
    await x.close();
  }
});

test('cache delete: each client gets only images; its answer replaces the stored contents', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { configuration: withCache([ubuntu, win]) });
    agent.on('cache/delete', { body: { cache: [win] } });
    const r = await x.s.post('/cache/delete', { clients: [ip, '127.0.1.77'], images: ['ubuntu22'], extra: 'not relayed' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.clients,
      [
        { addr: ip, outcome: 'sent' },
        { addr: '127.0.1.77', outcome: 'not_connected' },
      ],
      'outcomes',
    );
    const seen = await agent.waitFor('cache/delete');
    assert.equal(seen.method, 'POST', 'a POST');
    assert.deepEqual(seen.body, { images: ['ubuntu22'] }, 'only images');
    assert.equal((await x.settled(ip)).last_cmd.result, 'success', 'stored');
    const after = (await x.s.get('/cache/list', { clients: [ip] })).body.clients[0];
    assert.deepEqual(after.images, [win], 'database updated from the answer');
    // An answer without `cache` fails and leaves the contents alone.
    agent.on('cache/delete', { body: {} });
    await x.s.post('/cache/delete', { clients: [ip], images: ['win10'] });
    await agent.waitFor('cache/delete', 1);
    assert.equal((await x.settled(ip)).last_cmd.result, 'failure', 'no cache key: failure');
    assert.deepEqual((await x.s.get('/cache/list', { clients: [ip] })).body.clients[0].images, [win], 'unchanged');
    for (const body of [
      { clients: [ip] },
      { clients: [ip], images: [] },
      { clients: [ip], images: [''] },
      { clients: [ip], images: 'win10' },
      { images: ['a'] },
    ]) {
      const bad = await x.s.post('/cache/delete', body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
    }
  } finally {
    await x.close();
  }
});

test('cache delete refuses image names /cache/fetch refuses, naming the entry, and relays nothing', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { configuration: withCache([ubuntu, win]) });
    for (const [images, field] of [
      [['../../../etc/passwd', '/abs/path.img'], 'images[0]'],
      [['ubuntu22', '/abs/path.img'], 'images[1]'],
      [['win10', 'ubuntu22', 'a/b'], 'images[2]'],
      [['x..y'], 'images[0]'],
      [['.hidden'], 'images[0]'],
      [['n'.repeat(51)], 'images[0]'],
    ] as const) {
      const bad = await x.s.post('/cache/delete', { clients: [ip], images });
      assert.equal(bad.status, 400, `${JSON.stringify(images)}: ${bad.text}`);
      assert.equal(bad.body.field, field, `${JSON.stringify(images)} names ${field}`);
      const fetch = await x.s.post('/cache/fetch', { clients: [ip], image: images[images.length - 1] });
      assert.equal(fetch.status, 400, `/cache/fetch refuses ${images[images.length - 1]} too`);
    }
    agent.on('cache/delete', { body: { cache: [ubuntu] } });
    assert.equal((await x.s.post('/cache/delete', { clients: [ip], images: ['win10'] })).status, 200, 'a valid name is relayed');
    assert.deepEqual(
      (await agent.waitFor('cache/delete')).body,
      { images: ['win10'] },
      'the first cache/delete the agent sees is the valid one',
    );
    assert.equal(agent.requests.filter((r) => r.path === 'cache/delete' || r.path === 'cache/fetch').length, 1, 'nothing else was relayed');
  } finally {
    await x.close();
  }
});

test('cache sizes past 2^53 keep every digit', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const cacheKiB = '4503599627370497'; // 2^52 + 1 KiB: 2^62 + 1024 bytes
    const big = '18014398509481985'; // 2^54 + 1 bytes
    await x.connect(ip, { configuration: withCache([{ name: 'big', size: big, checksum: 'ab' }], cacheKiB) });
    const r = await x.s.get('/cache/list', { clients: [ip] });
    const cache = BigInt(cacheKiB) * 1024n;
    assert.ok(r.text.includes(`"cache_size":${cache}`), `exact cache_size in ${r.text}`);
    assert.ok(r.text.includes(`"used_size":${big}`), `exact used_size in ${r.text}`);
    assert.ok(r.text.includes(`"free_size":${cache - BigInt(big)}`), `exact free_size in ${r.text}`);
    assert.ok(r.text.includes(`"size":${big}`), `exact image size in ${r.text}`);
  } finally {
    await x.close();
  }
});

test('cache fetch: the repository address on each client network; the answer replaces the contents', async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { configuration: withCache([]) });
    agent.on('cache/fetch', { body: { cache: [ubuntu] } });
    const r = await x.s.post('/cache/fetch', { clients: [ip], image: 'ubuntu22', repository_id: String(x.repository) });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.clients, [{ addr: ip, outcome: 'sent' }], 'sent');
    const seen = await agent.waitFor('cache/fetch');
    assert.deepEqual(seen.body, { name: 'ubuntu22', repository: repositoryAddresses[1] }, 'the address on the client network');
    await x.settled(ip);
    assert.deepEqual((await x.s.get('/cache/list', { clients: [ip] })).body.clients[0].images, [ubuntu], 'contents replaced');
    // Without a repository: the client's own; an address outside any repository goes as given.
    agent.on('cache/fetch', { body: { cache: [ubuntu] } }, true);
    await x.s.post('/cache/fetch', { clients: [ip], image: 'ubuntu22' });
    assert.equal((await agent.waitFor('cache/fetch', 1)).body.repository, repositoryAddresses[1], "the client's repository");
    await x.settled(ip);
    await x.s.post('/cache/fetch', { clients: [ip], image: 'ubuntu22', repository: '192.0.2.1' });
    assert.equal((await agent.waitFor('cache/fetch', 2)).body.repository, '192.0.2.1', 'an outside address as given');
    for (const [body, field] of [
      [{ clients: [ip], image: '../x' }, 'image'],
      [{ clients: [ip], image: 'a/b' }, 'image'],
      [{ clients: [ip], image: 'ok', repository_id: 99 }, 'repository_id'],
      [{ clients: [ip], image: 'ok', repository: 'x' }, 'repository'],
      [{ clients: [ip] }, 'image'],
    ] as const) {
      const bad = await x.s.post('/cache/fetch', body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
      assert.equal(bad.body.field, field, `${JSON.stringify(body)} names ${field}`);
    }
  } finally {
    await x.close();
  }
});

test("a deleted client's cache rows go with it", async () => {
  const x = await imageSite();
  try {
    const ip = x.ips[0]!;
    const agent = await x.connect(ip, { configuration: withCache([ubuntu]) });
    agent.destroy();
    const store = x.s.app.container.resolve(CacheStore);
    assert.equal((await store.contents([1])).get(1)!.length, 1, 'one row stored');
    const r = await x.s.post('/client/delete', { clients: [ip] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await store.contents([1])).get(1), [], 'rows removed with the client');
  } finally {
    await x.close();
  }
});

test.run();

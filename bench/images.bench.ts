import { AgentLink } from '../plugins/agents';
import { CacheStore } from '../plugins/cache';
import { ImageStore } from '../plugins/images';
import { Inventory } from '../plugins/inventory';
import { FakeAgent, eventually } from '../test/support/fake-agent';
import { TOKEN, startServer } from '../test/support/server';
import { load, rssMiB } from './support/load';
import { fmt, type BenchRow } from './support/report';

const IMAGES = 500;
const CLIENTS = 500;
const CACHED_PER_CLIENT = 8;
const CREATES = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 16;

const ipOf = (n: number) => `127.0.${(n >> 8) & 255}.${n & 255}`;

/** GET /images with 500 records, GET /cache/list of 100 clients, and image creates relayed to one fake agent. */
export default async function imagesBench(): Promise<BenchRow[]> {
  const s = await startServer({ config: { log: { level: 'warn' } } });
  try {
    const center = (await s.post('/center/add', { name: 'c' })).body.id;
    const room = (await s.post('/room/add', { center, name: 'r', netmask: '255.255.0.0' })).body.id;
    const repository = (await s.post('/repository/add', { name: 'repo', ip: ['127.0.250.1', '10.0.0.1'] })).body.id;
    for (let i = 1; i <= CLIENTS; i++)
      await s.post('/client/add', { ip: ipOf(i), mac: i.toString(16).padStart(12, '0'), room, repo_id: repository });

    const images = s.app.container.resolve(ImageStore);
    let t0 = Date.now();
    for (let i = 0; i < IMAGES; i++) {
      await images.saveCapture({
        name: `image-${i}`,
        repositoryId: repository,
        clientId: 0,
        disk: 1,
        partition: 1,
        code: 131,
        size: 2n ** 40n,
        datasize: 2n ** 41n,
        checksum: 'd41d8cd98f00b204e9800998ecf8427e',
        permissions: '644',
        lastUpdate: 1664897550n,
        clonator: 'partclone',
        compressor: 'lzop',
        filesystem: 'EXT4',
      });
    }
    const captureSeconds = (Date.now() - t0) / 1000;

    const inventory = s.app.container.resolve(Inventory);
    const cache = s.app.container.resolve(CacheStore);
    for (let i = 1; i <= CLIENTS; i++) {
      await inventory.storeDiskSetup(i, [
        { disk: 1, partition: 0, code: 2, size: 2n ** 40n, filesystem: '', os: '' },
        { disk: 1, partition: 1, code: 0xca, size: 2n ** 36n, filesystem: 'CACHE', os: '' },
      ]);
      await cache.replace(
        i,
        Array.from({ length: CACHED_PER_CLIENT }, (_, k) => ({ name: `image-${k}`, size: 2n ** 32n, checksum: 'ab' })),
      );
    }

    const headers = { Authorization: TOKEN };
    const list = await load({ port: s.port, method: 'GET', path: '/images', headers, connections: CONNECTIONS, seconds: SECONDS });
    const listBytes = (await s.get('/images')).text.length;
    const cacheClients = Array.from({ length: 100 }, (_, i) => ipOf(i + 1));
    const cacheList = await load({
      port: s.port,
      method: 'GET',
      path: '/cache/list',
      body: { clients: cacheClients },
      headers,
      connections: CONNECTIONS,
      seconds: SECONDS,
    });

    // Image creates relayed to one agent, one at a time (an agent runs one command at once).
    const link = s.app.container.resolve(AgentLink);
    const agent = await FakeAgent.connect({ port: link.port(), localAddress: ipOf(1) });
    await agent.waitFor('refresh');
    agent.on(
      'image/create',
      (request) => ({
        body: {
          ...request.body,
          software: '',
          clonator: 'partclone',
          compressor: 'lzop',
          filesystem: 'EXT4',
          datasize: 1024,
          size: 512,
          perms: 420,
          lastupdate: 1,
          checksum: 'ab',
        },
      }),
      true,
    );
    const idle = async () =>
      (await s.get('/clients')).body.clients.find((c: { addr: string; state: string }) => c.addr === ipOf(1))?.state !== 'BSY';
    await eventually(idle, 'agent idle');
    t0 = Date.now();
    for (let i = 0; i < CREATES; i++) {
      const r = await s.post('/image/create', {
        clients: [ipOf(1)],
        disk: '1',
        partition: '1',
        code: '131',
        name: `relayed-${i % 20}`,
        id: '0',
      });
      if (r.status !== 200) throw new Error(`image/create: ${r.text}`);
      await agent.waitFor('image/create', i);
      await eventually(idle, 'create stored');
    }
    const createSeconds = (Date.now() - t0) / 1000;
    agent.destroy();

    const row = (workload: string, r: Awaited<ReturnType<typeof load>>): BenchRow => ({
      workload,
      figures: { 'req/s': fmt(r.rps, 0), p50_ms: fmt(r.p50ms, 2), p99_ms: fmt(r.p99ms, 2), errors: r.errors, rss_MiB: rssMiB() },
    });
    return [
      { workload: `images: ${IMAGES} captures stored (service)`, figures: { 'captures/s': fmt(IMAGES / captureSeconds, 0) } },
      row(`GET /images (${IMAGES} images, ${listBytes} bytes)`, list),
      row(`GET /cache/list (100 clients x ${CACHED_PER_CLIENT} images)`, cacheList),
      {
        workload: `POST /image/create round trips, one agent`,
        figures: { 'creates/s': fmt(CREATES / createSeconds, 0), 'ms/create': fmt((createSeconds * 1000) / CREATES, 2) },
      },
    ];
  } finally {
    await s.close();
  }
}

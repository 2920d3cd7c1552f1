// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { accepts, freePort, prepareSite, spawnServer, type ChildServer } from '../support/child-server';
import { eventually, FakeAgent, within } from '../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../support/fixtures';
import { TOKEN, makeTestDir, removeTestStore, startServer } from '../support/server';

/**
 * A stop is bounded whatever the service was doing: after a fuzz, with webhooks to receivers
 * that are gone or never answer, every port closes at once and the process exits within the
 * grace; a plugin whose stop never ends does not hold the others.
 */

const root = path.resolve(__dirname, '..', '..', '..');

function logged(server: ChildServer, pattern: RegExp): boolean {
  return server.logs.some((l) => pattern.test(l.msg));
}

/** A small seeded generator, so that a failing fuzz can be run again as it was. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/**
 * `count` requests to every route of the service with shapes right and wrong, over a few
 * keep-alive connections; about one in a hundred is a CONNECT or a method Node does not
 * know, on its own socket left open half-closed, as a careless client leaves it.
 */
async function fuzz(port: number, count: number, ips: string[], seed: number): Promise<net.Socket[]> {
  const random = randomFrom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const document = await new Promise<string>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/openapi.json', headers: { Authorization: TOKEN } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk));
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
  const routes = Object.entries(JSON.parse(document).paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
    Object.keys(ops).map((method) => [method.toUpperCase(), p.replace(/\{[^}]+\}/g, '1')] as const),
  );
  const values = [1, 0, -1, 'x', '', ips[0]!, '127.0.0.300', ips, [], {}, null, true, 'ñ'.repeat(50), 'a'.repeat(5000)];
  const fields = ['id', 'name', 'clients', 'client', 'ip', 'mac', 'room', 'center', 'type', 'disk', 'partition', 'script'];
  const body = (): string | undefined => {
    const r = random();
    if (r < 0.2) return undefined;
    if (r < 0.3) return '{"broken": ';
    return JSON.stringify(Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 4) }, () => [pick(fields), pick(values)])));
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const leftOpen: net.Socket[] = [];
  const one = (): Promise<void> => {
    const [method, urlPath] = pick(routes);
    const payload = body();
    if (random() < 0.01) {
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      socket.on('error', () => undefined);
      socket.write(`${pick(['CONNECT', 'FOO'])} ${urlPath} HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\n\r\n`);
      leftOpen.push(socket);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        agent,
        method: random() < 0.05 ? pick(['GET', 'POST', 'DELETE']) : method,
        path: urlPath,
      });
      req.setHeader('Authorization', TOKEN);
      if (payload !== undefined) req.setHeader('Content-Type', 'application/json');
      req.on('response', (res) => res.resume().on('end', resolve).on('error', resolve));
      req.on('error', () => resolve());
      // An answer that stays open (GET /events) or a relay to an agent is left after a while.
      req.setTimeout(250, () => req.destroy());
      req.end(payload);
    });
  };
  let sent = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (sent++ < count) await one();
    }),
  );
  agent.destroy();
  return leftOpen;
}

test('after a fuzz, SIGTERM stops everything within the grace: webhooks to a dead and a hanging receiver, every port closed at once', async () => {
  const dir = makeTestDir();
  const ips = ['127.0.0.21', '127.0.0.22', '127.0.0.23'];
  // A receiver that takes each delivery and never answers.
  const hanging = http.createServer(() => undefined);
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const secret = 'a-webhook-secret-of-enough-length';
  const grace = 2;
  const count = Number(process.env.OGSERVE_SHUTDOWN_FUZZ ?? 2000);
  const seed = Number(process.env.OGSERVE_SHUTDOWN_SEED ?? Date.now() % 100_000);
  let leftOpen: net.Socket[] = [];
  try {
    await prepareSite(dir, async (s) => {
      const room = await addRoom(s, await addCenter(s, 'Fuzzed'), 'Lab');
      for (const [i, ip] of ips.entries()) await addClient(s, room, ip, macFor(0x300 + i));
    });
    const server = await spawnServer({
      dir,
      config: {
        log: { level: 'info' },
        rest: { shutdown_grace_s: grace },
        events: {
          webhooks: [
            { url: `http://127.0.0.1:${await freePort()}/gone`, secret },
            { url: `http://127.0.0.1:${(hanging.address() as net.AddressInfo).port}/hangs`, secret },
          ],
          webhook_retry_s: 0.05,
          webhook_timeout_s: 60,
        },
      },
    });
    try {
      const agent = await FakeAgent.connect({ port: server.agentPort, localAddress: ips[0] });
      leftOpen = await fuzz(server.restPort, count, ips, seed);
      // A request in flight (its body never comes), so that the stop waits the whole grace.
      const held = net.connect(server.restPort, '127.0.0.1');
      held.on('error', () => undefined);
      held.write(`POST /center/add HTTP/1.1\r\nHost: x\r\nAuthorization: ${TOKEN}\r\nContent-Length: 20\r\n\r\n{`);
      leftOpen.push(held);
      process.kill(server.pid, 'SIGTERM');
      await eventually(() => logged(server, /SIGTERM received/), 'the service to hear the signal');
      assert.equal(await accepts(server.agentPort), false, 'the agents port refuses connections once the stop began');
      assert.equal(await accepts(server.restPort), false, 'so does the REST port');
      const code = await within(server.exited, (grace + 15) * 1000, `the service to exit (seed ${seed})`);
      assert.equal(code, 0, 'it exits cleanly');
      await agent.closed;
    } finally {
      await server.stop();
    }
  } finally {
    for (const socket of leftOpen) socket.destroy();
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
    await removeTestStore(dir);
  }
});

test('a plugin whose stop never ends is logged and left behind: the service still stops', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ogserve-stuck-'));
  const file = path.join(dir, 'stuck.js');
  writeFileSync(file, "exports.plugin = { name: 'stuck', register(ctx) { ctx.onStop(() => new Promise(() => undefined)); } };");
  const defaults = JSON.parse(readFileSync(path.join(root, 'config', 'default.json'), 'utf8')) as { plugins: string[] };
  try {
    const s = await startServer({ config: { plugins: [...defaults.plugins, file] } });
    await within(s.close(), 15_000, 'the service to stop');
    assert.ok(
      s.logs.some((l) => l.level === 'error' && /plugin 'stuck' had not stopped/.test(l.msg)),
      'the plugin left behind is named',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

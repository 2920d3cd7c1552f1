// Engine-independent: runs once, on SQLite.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../core/log';
import { EventLog } from '../../../plugins/events/event-log';
import { EventFilter } from '../../../plugins/events/filter';
import { WebhookSender } from '../../../plugins/events/webhook';
import { EventHub } from '../../../plugins/events';
import '../../support/listen-guard';
import { startServer } from '../../support/server';
import { startWebhookReceiver } from '../../support/webhook-receiver';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers with the statuses it is given, in turn, then 204. */
async function receiver(statuses: number[] = []): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(statuses.shift() ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const secret = 'a-webhook-secret-of-enough-length';
const quiet = createLogger('error');

function sender(url: string, overrides: Partial<ConstructorParameters<typeof WebhookSender>[0]> = {}): WebhookSender {
  return new WebhookSender(
    { url, secret, filter: new EventFilter(), queueSize: 100, attempts: 3, retryMs: 20, timeoutMs: 2000, ...overrides },
    quiet,
  );
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('each event is POSTed as JSON, signed with HMAC-SHA256 of the exact body, in order', async () => {
  const hook = await receiver();
  const webhook = sender(hook.url);
  const log = new EventLog(10);
  try {
    const events = [log.append('agent.connected', { client: '127.0.0.2' }), log.append('agent.disconnected', { client: '127.0.0.2' })];
    for (const event of events) webhook.offer(event);
    await until(() => webhook.figures.delivered === 2, 'two deliveries');
    for (const [i, delivery] of hook.received.entries()) {
      assert.equal(JSON.parse(delivery.body), events[i]);
      assert.is(delivery.headers['content-type'], 'application/json');
      assert.is(delivery.headers['x-ogserve-event'], events[i]!.type);
      assert.is(delivery.headers['x-ogserve-delivery'], String(events[i]!.id));
      const expected = `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`;
      assert.is(delivery.headers['x-ogserve-signature'], expected, 'the receiver can verify the signature');
    }
    assert.equal(webhook.figures, { delivered: 2, failed: 0, dropped: 0 });
  } finally {
    webhook.stop();
    await hook.close();
  }
});

test('a 500 is retried with backoff and the event then delivered; order is kept', async () => {
  const hook = await receiver([500, 503]);
  const webhook = sender(hook.url);
  const log = new EventLog(10);
  try {
    webhook.offer(log.append('wol.sent', { clients: ['127.0.0.2'] }));
    webhook.offer(log.append('wol.sent', { clients: ['127.0.0.3'] }));
    await until(() => webhook.figures.delivered === 2, 'two failed attempts and two deliveries');
    assert.equal(
      hook.received.map((r) => (JSON.parse(r.body) as { id: number }).id),
      [1, 1, 1, 2],
      'the first event three times (500, 503, 204), then the second',
    );
    assert.equal(webhook.figures, { delivered: 2, failed: 0, dropped: 0 });
  } finally {
    webhook.stop();
    await hook.close();
  }
});

test('after the last attempt an event is given up and the next one goes', async () => {
  const hook = await receiver([500, 500, 500]);
  const webhook = sender(hook.url);
  const log = new EventLog(10);
  try {
    webhook.offer(log.append('client.state', { client: '127.0.0.2', old: 'OFF', new: 'OPG' }));
    webhook.offer(log.append('client.state', { client: '127.0.0.3', old: 'OFF', new: 'OPG' }));
    await until(() => webhook.figures.delivered === 1, 'the second event delivered');
    assert.is(hook.received.length, 4);
    assert.equal(webhook.figures, { delivered: 1, failed: 1, dropped: 0 });
  } finally {
    webhook.stop();
    await hook.close();
  }
});

test('a receiver that is down never blocks offer; a full queue drops the oldest and counts it', async () => {
  const hook = await receiver();
  await hook.close(); // nothing listens there any more: every attempt fails at once
  const webhook = sender(hook.url, { queueSize: 5, attempts: 1000, retryMs: 60_000 });
  const log = new EventLog(100);
  try {
    for (let i = 0; i < 50; i++) webhook.offer(log.append('command.sent', { client: '127.0.0.2', command: 'refresh' }));
    assert.is(webhook.waiting, 5, 'the queue holds its bound');
    assert.is(webhook.figures.dropped, 45);
  } finally {
    webhook.stop();
  }
});

test('types select what a webhook gets; command.* takes every command event', async () => {
  const hook = await receiver();
  const webhook = sender(hook.url, { filter: new EventFilter(['command.*', 'wol.sent']) });
  const log = new EventLog(10);
  try {
    for (const type of ['agent.connected', 'command.sent', 'command.answered', 'wol.sent', 'image.created'])
      webhook.offer(log.append(type, { client: '127.0.0.2' }));
    await until(() => hook.received.length === 3, 'three deliveries');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(
      hook.received.map((r) => r.headers['x-ogserve-event']),
      ['command.sent', 'command.answered', 'wol.sent'],
    );
  } finally {
    webhook.stop();
    await hook.close();
  }
});

test('stop abandons the delivery under way and the retry wait, and hands back what was not delivered', async () => {
  let requests = 0;
  let closed = 0;
  const hanging = http.createServer((req) => {
    requests++;
    req.socket.once('close', () => closed++);
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const webhook = sender(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`, { timeoutMs: 60_000 });
  const log = new EventLog(10);
  try {
    const events = [1, 2, 3].map((i) => log.append('client.state', { client: `127.0.0.${i}`, old: 'OFF', new: 'OPG' }));
    for (const event of events) webhook.offer(event);
    await until(() => requests === 1, 'the first delivery under way');
    assert.equal(
      webhook.stop().map((e) => e.id),
      [1, 2, 3],
    );
    await until(() => closed === 1, 'the connection to the receiver closed');
    webhook.offer(log.append('client.state', { client: '127.0.0.4', old: 'OFF', new: 'OPG' }));
    assert.is(webhook.waiting, 0, 'nothing is taken after the stop');
  } finally {
    await new Promise((resolve) => hanging.close(resolve));
  }
});

test('beside a hanging and a failing hook, a healthy one receives a burst of 4,000 events, every one in order', async () => {
  // Each receiver in a process of its own, as real ones would be.
  const [healthy, hanging, failing] = [
    await startWebhookReceiver('healthy'),
    await startWebhookReceiver('hanging'),
    await startWebhookReceiver('failing'),
  ];
  const count = 4000;
  const s = await startServer({
    config: {
      log: { level: 'error' },
      events: { webhooks: [healthy, hanging, failing].map(({ url }) => ({ url, secret })), webhook_queue: count, webhook_retry_s: 0.05 },
    },
  });
  try {
    const hub = s.app.container.resolve(EventHub);
    const first = hub.figures.published + 1;
    for (let i = 0; i < count; i++) hub.publish('test.burst', { i });
    // A bounded wait (10 s, at least 400 events a second): fetch, one event at a time, sent
    // about 300 a second on a loaded 2-core machine, this sender about 2,000.
    for (let waited = 0; (await healthy.count()) < count && waited < 100; waited++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const ids = (await healthy.ids()).filter((id) => id >= first);
    assert.equal(
      ids,
      Array.from({ length: count }, (_, i) => first + i),
      'every event, once, in order',
    );
    assert.ok((await failing.count()) > 0 && (await hanging.count()) > 0, 'the other hooks were tried');
  } finally {
    await s.close();
    for (const receiver of [healthy, hanging, failing]) receiver.close();
  }
});

test.run();

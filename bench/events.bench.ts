import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AgentLink } from '../plugins/agents';
import { EventHub } from '../plugins/events';
import { TOKEN, startServer } from '../test/support/server';
import { UdpReceiver } from '../test/support/udp-receiver';
import { startWebhookReceiver, type WebhookReceiver } from '../test/support/webhook-receiver';
import { load } from './support/load';
import { addBenchClients, until } from './support/fleet';
import { fmt, type BenchRow } from './support/report';
import { agentSwarmScript } from '../test/support/swarm';

/**
 * The event stream under load: EVENTS_BENCH_SUBSCRIBERS readers (default 1,000, in a child
 * process) while EVENTS_BENCH_AGENTS agents (default 10,000) connect, are refreshed and
 * leave; then what the stream and metrics cost POST /wol and GET /clients: without the events
 * and metrics plugins (core still times every request), then with the stream read by the
 * subscribers and Prometheus scraping /metrics and /metrics/targets every second. First,
 * webhook delivery to a healthy receiver beside a hanging and a failing one (each in a child
 * process): EVENTS_BENCH_WEBHOOK_EVENTS events (default 20,000) at once, then 1,000 a second.
 */
export default async (): Promise<BenchRow[]> => {
  const subscribers = Number(process.env.EVENTS_BENCH_SUBSCRIBERS ?? 1000);
  const agents = Number(process.env.EVENTS_BENCH_AGENTS ?? 10_000);
  const webhookEvents = Number(process.env.EVENTS_BENCH_WEBHOOK_EVENTS ?? 20_000);
  return [
    await webhookBurst(webhookEvents),
    await webhookSteady(1000, 10),
    await churn(agents, 0),
    await churn(agents, subscribers),
    ...(await requestCost(false, 0)),
    ...(await requestCost(true, subscribers)),
  ];
};

const defaultPlugins = (
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'config', 'default.json'), 'utf8')) as { plugins: string[] }
).plugins;

/** 127.1.x.y with y in 1..200: distinct loopback sources, none a network or broadcast address. */
const addressOf = (i: number) => `127.1.${Math.floor(i / 200)}.${(i % 200) + 1}`;

function child(script: string, args: string[]): ChildProcess {
  return fork(path.join(__dirname, 'support', script), args, { stdio: 'inherit' });
}

function ask<T>(proc: ChildProcess, message = 'report'): Promise<T> {
  return new Promise((resolve) => {
    proc.once('message', (m) => resolve(m as T));
    proc.send(message);
  });
}

async function churn(size: number, subscribers: number): Promise<BenchRow> {
  const s = await startServer({
    config: {
      log: { level: 'warn' },
      rest: { max_response_bytes: 8 * 1024 * 1024 },
      events: { max_subscribers: Math.max(subscribers, 1) },
    },
  });
  const procs: ChildProcess[] = [];
  try {
    const link = s.app.container.resolve(AgentLink);
    const hub = s.app.container.resolve(EventHub);
    const ips = Array.from({ length: size }, (_, i) => addressOf(i));
    await addBenchClients(s, ips);
    let readers: ChildProcess | undefined;
    if (subscribers > 0) {
      readers = child('event-subscribers.js', [String(s.port), TOKEN, String(subscribers)]);
      procs.push(readers);
      await new Promise((resolve) => readers!.once('message', resolve));
    }
    const published = hub.figures.published;
    const cpu = cpuMs();
    const t0 = Date.now();
    const swarms: ChildProcess[] = [];
    const reports: Promise<unknown>[] = [];
    for (let i = 0; i < ips.length; i += 5000) {
      const swarm = fork(agentSwarmScript, [String(link.port()), ...ips.slice(i, i + 5000)], { stdio: 'inherit' });
      swarms.push(swarm);
      procs.push(swarm);
      reports.push(new Promise((resolve) => swarm.once('message', resolve)));
    }
    await Promise.all(reports);
    await until(() => link.listing().filter((c) => c.last_cmd.result === 'success' && c.state !== 'BSY').length >= size, 120_000);
    const refreshed = (Date.now() - t0) / 1000;
    for (const swarm of swarms) swarm.send('stop');
    await until(() => link.connectedIps().length === 0, 60_000);
    const seconds = (Date.now() - t0) / 1000;
    const serverCpu = cpuMs() - cpu;
    const events = hub.figures.published - published;
    const figures: BenchRow['figures'] = {
      agents: size,
      refreshed_s: fmt(refreshed, 2),
      all_left_s: fmt(seconds, 2),
      server_cpu_s: fmt(serverCpu / 1000, 2),
      events,
      events_per_s: fmt(events / seconds, 0),
    };
    if (readers) {
      await new Promise((resolve) => setTimeout(resolve, 2000)); // what is in flight arrives
      const got = await ask<{ events: number; ended: number }>(readers);
      figures.subscribers = subscribers;
      figures.delivered = got.events;
      figures.delivered_per_s = fmt(got.events / seconds, 0);
      figures.dropped_stalled = hub.figures.stalled;
    }
    return { workload: `events: ${size} agents churn, ${subscribers} subscribers`, figures };
  } finally {
    for (const proc of procs) if (proc.connected) proc.send('stop');
    await s.close();
  }
}

/** POST /wol (200 clients) and GET /clients, keep-alive, with or without the events and metrics plugins. */
async function requestCost(withBoth: boolean, subscribers: number): Promise<BenchRow[]> {
  const udp = await UdpReceiver.bind('127.0.0.1');
  const plugins = withBoth ? defaultPlugins : defaultPlugins.filter((p) => p !== 'events' && p !== 'metrics');
  const s = await startServer({
    config: { plugins, log: { level: 'warn' }, wol: { port: udp.port }, events: { max_subscribers: Math.max(subscribers, 1) } },
  });
  let readers: ChildProcess | undefined;
  let scraper: NodeJS.Timeout | undefined;
  try {
    const ips = Array.from({ length: 200 }, (_, i) => `127.0.0.${i + 2}`);
    await addBenchClients(s, ips);
    if (subscribers > 0) {
      readers = child('event-subscribers.js', [String(s.port), TOKEN, String(subscribers)]);
      await new Promise((resolve) => readers!.once('message', resolve));
    }
    if (withBoth) scraper = setInterval(() => void scrape(s.port), 1000);
    const label = withBoth ? `stream (${subscribers} subscribers) + metrics scraped 1/s` : 'without events and metrics plugins';
    const wol = await load({
      port: s.port,
      method: 'POST',
      path: '/wol',
      body: { clients: ips, type: 'unicast' },
      headers: { Authorization: TOKEN },
      connections: 4,
      seconds: 5,
    });
    const clients = await load({
      port: s.port,
      method: 'GET',
      path: '/clients',
      headers: { Authorization: TOKEN },
      connections: 8,
      seconds: 5,
    });
    return [
      {
        workload: `events: POST /wol 200 clients, ${label}`,
        figures: { rps: fmt(wol.rps), p50ms: fmt(wol.p50ms, 2), p99ms: fmt(wol.p99ms, 2), errors: wol.errors },
      },
      {
        workload: `events: GET /clients, ${label}`,
        figures: { rps: fmt(clients.rps), p50ms: fmt(clients.p50ms, 2), p99ms: fmt(clients.p99ms, 2), errors: clients.errors },
      },
    ];
  } finally {
    clearInterval(scraper);
    if (readers?.connected) readers.send('stop');
    await s.close();
    await udp.close();
  }
}

/** What Prometheus does each scrape interval: the service's metrics and the fleet's targets. */
async function scrape(port: number): Promise<void> {
  const headers = { Authorization: `Bearer ${TOKEN}` };
  for (const target of ['/metrics', '/metrics/targets']) {
    const answer = await fetch(`http://127.0.0.1:${port}${target}`, { headers });
    if (!answer.ok) throw new Error(`GET ${target}: ${answer.status}`);
    await answer.arrayBuffer();
  }
}

/** CPU time of this process (the server and its in-process load), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A server whose webhooks are a healthy receiver, a hanging one and a failing one, each in a child process. */
async function hookedServer(queue: number): Promise<{ hub: EventHub; healthy: WebhookReceiver; close(): Promise<void> }> {
  const receivers = [await startWebhookReceiver('healthy'), await startWebhookReceiver('hanging'), await startWebhookReceiver('failing')];
  const secret = 'a-webhook-secret-of-enough-length';
  const s = await startServer({
    config: {
      log: { level: 'error' },
      events: { webhooks: receivers.map((r) => ({ url: r.url, secret })), webhook_queue: queue, webhook_retry_s: 0.1 },
    },
  });
  return {
    hub: s.app.container.resolve(EventHub),
    healthy: receivers[0]!,
    async close() {
      await s.close();
      for (const r of receivers) r.close();
    },
  };
}

/** How many of the events from `first` on the receiver has, and whether in order, once it has `count` or after `ms`. */
async function received(r: WebhookReceiver, first: number, count: number, ms: number): Promise<{ received: number; inOrder: boolean }> {
  const deadline = Date.now() + ms;
  while ((await r.count()) < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const ids = (await r.ids()).filter((id) => id >= first);
  return { received: ids.length, inOrder: ids.every((id, i) => i === 0 || id > ids[i - 1]!) };
}

/** `count` events published at once (the queue holds them all): how fast the healthy hook gets them. */
async function webhookBurst(count: number): Promise<BenchRow> {
  const x = await hookedServer(count);
  try {
    const t0 = Date.now();
    const first = x.hub.publish('bench.burst', { i: 0 }).id;
    for (let i = 1; i < count; i++) x.hub.publish('bench.burst', { i, client: addressOf(i % 1000) });
    const got = await received(x.healthy, first, count, 120_000);
    const seconds = (Date.now() - t0) / 1000;
    return {
      workload: `events: webhook burst of ${count}, beside a hanging and a failing hook`,
      figures: {
        received: got.received,
        in_order: String(got.inOrder),
        seconds: fmt(seconds, 2),
        delivered_per_s: fmt(count / seconds, 0),
      },
    };
  } finally {
    await x.close();
  }
}

/** `rate` events a second for `seconds` through a queue of half a second's worth: what reaches the healthy hook. */
async function webhookSteady(rate: number, seconds: number): Promise<BenchRow> {
  const x = await hookedServer(rate / 2);
  try {
    const perTick = rate / 20;
    const published = rate * seconds;
    const first = x.hub.figures.published + 1;
    for (let tick = 0; tick < seconds * 20; tick++) {
      const due = Date.now() + 50;
      for (let i = 0; i < perTick; i++) x.hub.publish('bench.steady', { i, client: addressOf(i) });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    }
    const got = await received(x.healthy, first, published, 10_000);
    return {
      workload: `events: webhook at ${rate} events/s for ${seconds} s, queue ${rate / 2}`,
      figures: { published, received: got.received, in_order: String(got.inOrder), lost: published - got.received },
    };
  } finally {
    await x.close();
  }
}

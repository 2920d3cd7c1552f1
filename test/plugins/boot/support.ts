import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { TestServer } from '../../support/server';
import { addCenter, addClient, addRoom } from '../../support/fixtures';

/** An answer read whole, as bytes. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** A GET (or `method`) as a PC sends it: no key; `from` picks the 127.x source address. */
export function pcGet(
  port: number,
  urlPath: string,
  options: { headers?: Record<string, string>; from?: string; method?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        agent: false,
        headers: options.headers,
        localAddress: options.from,
        method: options.method,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/**
 * A transfer held open: the answer's head is read, its body is not (the socket stops reading,
 * so a large file cannot finish); `cut()` closes the connection, as a PC switched off would;
 * `readRest()` reads on until the server ends it and says how many body bytes came in all.
 */
export function holdTransfer(port: number, urlPath: string): Promise<{ status: number; cut(): void; readRest(): Promise<number> }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
      res.pause();
      let bytes = 0;
      const readRest = () =>
        new Promise<number>((done) => {
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.once('close', () => done(bytes));
          res.resume();
        });
      resolve({ status: res.statusCode ?? 0, cut: () => req.destroy(), readRest });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
  });
}

/**
 * A connection that sends one GET and reads nothing at all, not even the answer's head (its
 * socket paused at once), as a stuck or hostile client; `read()` takes what is left, up to the
 * end the server gives it, and says how many bytes that was.
 */
export function silentGet(port: number, urlPath: string, headers: Record<string, string> = {}): { read(): Promise<number> } {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  socket.pause();
  socket.write(requestText(urlPath, headers));
  return {
    read: () =>
      new Promise((resolve) => {
        let bytes = 0;
        socket.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        socket.once('close', () => resolve(bytes));
        socket.resume();
      }),
  };
}

/**
 * A connection that sends one GET, reads the answer's head and keeps the connection open
 * without a further word; resolves with the status line once the head came, or `closed` when
 * the server closed the connection without one.
 */
export function lingeringGet(
  port: number,
  urlPath: string,
  headers: Record<string, string> = {},
): Promise<{ statusLine: string; close(): void }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) resolve({ statusLine: received.split('\r\n', 1)[0]!, close: () => socket.destroy() });
    });
    socket.once('close', () => resolve({ statusLine: 'closed', close: () => {} }));
    socket.write(requestText(urlPath, headers));
  });
}

/** A GET as it goes on the wire, headers as given (HTTP/1.1: the connection stays open). */
function requestText(urlPath: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `GET ${urlPath} HTTP/1.1\r\nHost: pc\r\n${lines.join('')}\r\n`;
}

/** The value of one of the server's metrics (with these labels), as GET /metrics would say it. */
export async function metricValue(s: TestServer, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = s.app.metrics.registry.getSingleMetric(name);
  assert.ok(metric, `no metric ${name}`);
  const { values } = await metric.get();
  const found = values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value));
  return found?.value ?? 0;
}

/** Wait, a bounded number of turns, until `check` holds (something the server does after answering). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`never happened: ${what}`);
}

/** A client in a room with every network setting and a repository (as pxe-modes' tests make it). */
export async function labClient(s: TestServer, ip = '192.168.1.10', mac = 'aa:bb:cc:dd:ee:01'): Promise<void> {
  const center = await addCenter(s);
  const room = await addRoom(s, center, 'Aula 1', '255.255.255.0', { gateway: '192.168.1.1', ntp: '192.168.1.2', dns: '192.168.1.3' });
  const repo = await s.post('/repository/add', { name: 'repo', ip: '192.168.1.4' });
  assert.equal(repo.status, 200, `repository/add: ${repo.text}`);
  await addClient(s, room, ip, mac, { name: 'pc-1', netiface: 'eth0', repo_id: repo.body.id });
}

import assert from 'node:assert/strict';
import http from 'node:http';
import type { TestServer } from '../../support/server';
import { addCenter, addClient, addRoom } from '../../support/fixtures';

/** An answer read whole, as bytes. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** A GET as a PC sends it: no key; `from` picks the 127.x source address. */
export function pcGet(
  port: number,
  urlPath: string,
  options: { headers?: Record<string, string>; from?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: urlPath, agent: false, headers: options.headers, localAddress: options.from },
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
 * so a large file cannot finish); `cut()` closes the connection, as a PC switched off would.
 */
export function holdTransfer(port: number, urlPath: string): Promise<{ status: number; cut(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
      res.pause();
      resolve({ status: res.statusCode ?? 0, cut: () => req.destroy() });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
  });
}

/** Wait, a bounded number of turns, until `check` holds (something the server does after answering). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
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

import assert from 'node:assert/strict';
import type { TestServer } from './server';

/** Small helpers that build inventory through the REST interface, asserting each step. */
export async function addCenter(s: TestServer, name = 'Center'): Promise<number> {
  const r = await s.post('/center/add', { name });
  assert.equal(r.status, 200, `center/add: ${r.text}`);
  return r.body.id;
}

export async function addRoom(
  s: TestServer,
  center: number,
  name = 'Room',
  netmask = '255.255.255.0',
  extra: Record<string, unknown> = {},
): Promise<number> {
  const r = await s.post('/room/add', { center, name, netmask, ...extra });
  assert.equal(r.status, 200, `room/add: ${r.text}`);
  return r.body.id;
}

export async function addClient(
  s: TestServer,
  room: number,
  ip: string,
  mac: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const r = await s.post('/client/add', { name: `pc-${ip}`, ip, mac, room, ...extra });
  assert.equal(r.status, 200, `client/add: ${r.text}`);
  return r.body.id;
}

/** A MAC derived from a number, for tests that need many distinct ones. */
export function macFor(n: number): string {
  return n.toString(16).padStart(12, '0');
}

import assert from 'node:assert/strict';
import type { DependencyContainer } from 'tsyringe';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { Inventory } from '../../plugins/inventory';
import { bulkInsert } from '../support/bulk';
import type { FakeAgent, FakeAgentOptions } from '../support/fake-agent';
import { addCenter, addClient, addRoom, macFor } from '../support/fixtures';
import { addresses, startLab } from '../support/lab';
import { TOKEN, type TestServer } from '../support/server';
import { UdpReceiver } from '../support/udp-receiver';

export const helloPlugin = path.resolve(__dirname, '../../../examples/hello-complete');

/**
 * The plugins of a console site: every bundled one that has a page (auth too, as by
 * default, with the tokens it requires) and the example plugin. Not events: the console polls, unless a test adds it.
 */
export const consolePlugins = [
  'inventory',
  'agents',
  'pxe-modes',
  'live',
  'wol',
  'stats',
  'shell',
  'images',
  'cache',
  'groups',
  'scheduler',
  'audit',
  'tokens',
  'auth',
  'console',
  'jobs',
  'transfers',
  'boot',
  helloPlugin,
];

export interface ConsoleSite {
  s: TestServer;
  url: string;
  /** Receives the Wake-on-LAN packets: the clients' directed broadcast, 127.255.255.255. */
  wol: UdpReceiver;
  center: number;
  room: number;
  /** Clients 127.0.1.1 ... in room `room` (netmask 255.0.0.0, so their broadcast is 127.255.255.255). */
  ips: string[];
  connect(ip: string, options?: Partial<FakeAgentOptions>): Promise<FakeAgent>;
  close(): Promise<void>;
}

/**
 * A real server with every bundled plugin (the scheduler too), the example plugin with its
 * console view, a repository, `count` clients on loopback and a UDP receiver for wake packets.
 */
export async function consoleSite(
  count = 3,
  config: Record<string, unknown> = {},
  /** Parent of the server's container: test replacements (a clock) registered here. */
  container?: DependencyContainer,
): Promise<ConsoleSite> {
  const wol = await UdpReceiver.bind('127.255.255.255');
  try {
    const lab = await startLab({
      ips: addresses('127.0.1', count),
      server: { config: { plugins: consolePlugins, wol: { port: wol.port }, ...config }, container },
      async populate(s, ips) {
        const center = await addCenter(s, 'School');
        const room = await addRoom(s, center, 'Lab 1', '255.0.0.0');
        const repo = await s.post('/repository/add', { name: 'main', ip: '127.0.1.250' });
        assert.equal(repo.status, 200, `repository/add: ${repo.text}`);
        for (const [i, ip] of ips.entries()) {
          await addClient(s, room, ip, macFor(i + 1), { name: `pc${String(i + 1).padStart(2, '0')}`, repo_id: repo.body.id });
        }
        return { center, room };
      },
    });
    return {
      ...lab,
      url: `http://127.0.0.1:${lab.s.port}`,
      wol,
      connect: (ip, options) => lab.connect(ip, options),
      async close() {
        await lab.close();
        await wol.close();
      },
    };
  } catch (error) {
    await wol.close();
    throw error;
  }
}

/** `count` more clients written straight to the database (rooms of 100), for the large-fleet tests. */
export async function bulkClients(site: { s: TestServer; center: number }, count: number, firstId = 1000): Promise<void> {
  const rooms = Math.ceil(count / 100);
  const roomIds: number[] = [];
  for (let r = 0; r < rooms; r++)
    roomIds.push(await addRoom(site.s, site.center, `Room ${String(r + 1).padStart(3, '0')}`, '255.255.255.0'));
  const rows = Array.from({ length: count }, (_, i) => {
    const n = firstId + i;
    return [
      n,
      `host${String(i).padStart(5, '0')}`,
      `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      macFor(0x100000 + n),
      roomIds[Math.floor(i / 100)],
    ];
  });
  await bulkInsert(site.s.app.database, 'clients', ['id', 'name', 'ip', 'mac', 'room_id'], rows);
  // Written around the inventory: tell it, as a writer through it would.
  site.s.app.container.resolve(Inventory).tablesChanged();
}

/**
 * Open the console and sign in with the test key (the second way offered, the only one
 * without the auth plugin); resolves once signed in (the header's sign-out button is there),
 * so that a navigation that follows is not undone by the sign-in.
 */
export async function signIn(page: Page, url: string, key = TOKEN): Promise<void> {
  await page.goto(`${url}/`);
  const keyWay = page.getByRole('radio', { name: /Key or token|Clave o token/ });
  const keyField = page.getByLabel(/API key|Clave de la API/);
  // The ways appear together once GET /auth/providers has answered.
  await keyWay.or(keyField).first().waitFor();
  if ((await keyWay.count()) > 0) await keyWay.check();
  await keyField.fill(key);
  await page.getByRole('button', { name: /Sign in|Entrar/ }).click();
  await page.getByRole('button', { name: /Sign out|Cerrar sesión/ }).waitFor();
  await openFleet(page);
}

/** From the landing page (the dashboard) to the fleet, where most tests begin. */
export async function openFleet(page: Page): Promise<void> {
  await page.getByRole('link', { name: /^(Fleet|Equipos)$/ }).click();
  await page.locator('section.tree').waitFor();
}

/** Open the console and sign in with a user name and password (the way offered first). */
export async function signInAs(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByRole('radio', { name: /User name and password|Usuario y contraseña/ }).check();
  await page.getByLabel(/^(User name|Usuario)$/).fill(username);
  await page.getByLabel(/^(Password|Contraseña)$/).fill(password);
  await page.getByRole('button', { name: /Sign in|Entrar/ }).click();
}

/** The tree row of a client (by address) or of a center, room or folder (by name). */
export const clientRow = (page: Page, ip: string) => page.locator(`li.row.computer[data-ip="${ip}"]`);
export const groupRow = (page: Page, name: string) => page.locator('li.row.group', { has: page.locator('.name', { hasText: name }) });

import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import type { Permission } from '../../../core/access';
import { freePort } from '../../support/child-server';
import { TOKEN, type TestServer, send, startServer } from '../../support/server';
import { addUser, signIn } from '../auth/people';

const helloPlugin = path.resolve(__dirname, '../../../../examples/hello-complete');

/** What each role holds, written down here: core's three, and the agents' `image` for imagers and admins. */
const roles: Record<string, readonly Permission[]> = {
  reader: ['read'],
  operator: ['read', 'operate'],
  imager: ['read', 'operate', 'image'],
  admin: ['read', 'operate', 'image', 'admin'],
};

/**
 * What each route needs, written down here rather than read from the routes: a route added
 * without an entry, or declaring another permission than this table, fails the first test.
 */
const expected: Record<string, Permission | 'public'> = {
  'GET /version': 'read',
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /openapi.json': 'public',
  'GET /scopes': 'read',
  'GET /site': 'read',
  'GET /center/info': 'read',
  'POST /center/add': 'admin',
  'POST /center/update': 'admin',
  'POST /center/delete': 'admin',
  'GET /room/info': 'read',
  'POST /room/add': 'admin',
  'POST /room/update': 'admin',
  'POST /room/delete': 'admin',
  'POST /folder/add': 'admin',
  'POST /folder/update': 'admin',
  'POST /folder/delete': 'admin',
  'GET /client/info': 'read',
  'GET /client/setup': 'read',
  'GET /client/addresses': 'read',
  'POST /client/add': 'admin',
  'POST /client/import': 'admin',
  'POST /client/import-dhcpd': 'admin',
  'POST /client/update': 'admin',
  'POST /client/delete': 'admin',
  'POST /client/move': 'admin',
  'POST /client/repo': 'admin',
  'POST /client/server': 'admin',
  'GET /repositories': 'read',
  'POST /repository/add': 'admin',
  'POST /repository/update': 'admin',
  'POST /repository/delete': 'admin',
  'GET /server': 'read',
  'POST /server': 'admin',
  'DELETE /server': 'admin',
  'GET /clients': 'read',
  'GET /client/timeline': 'read',
  'GET /jobs/:id/output': 'read',
  'POST /users/update': 'admin',
  'GET /cluster': 'read',
  'GET /console-views': 'read',
  'GET /console-access': 'read',
  'POST /clients': 'operate',
  'POST /poweroff': 'operate',
  'POST /reboot': 'operate',
  'POST /stop': 'operate',
  'POST /refresh': 'operate',
  'POST /hardware': 'operate',
  'GET /hardware': 'read',
  'POST /session': 'operate',
  'GET /session': 'read',
  'POST /software': 'operate',
  'GET /software': 'read',
  'POST /setup': 'image',
  'GET /mode': 'read',
  'POST /mode': 'operate',
  'GET /boot/next': 'read',
  'POST /boot/next': 'operate',
  'GET /efi': 'read',
  'GET /live/list': 'read',
  'POST /live/set': 'operate',
  'GET /oglive/list': 'read',
  'POST /oglive/set': 'operate',
  'POST /live/add': 'admin',
  'POST /live/delete': 'admin',
  'GET /live/isos': 'admin',
  'POST /live/install': 'admin',
  'POST /live/default': 'admin',
  'POST /live/remove': 'admin',
  'POST /wol': 'operate',
  'GET /wol/runs': 'read',
  'GET /wol/failed': 'read',
  'GET /wol/runs/:id': 'read',
  'DELETE /wol/runs/:id': 'operate',
  'GET /stats': 'read',
  'POST /shell/run': 'shell',
  'GET /shell/output': 'shell',
  'POST /shell/output': 'shell',
  'GET /shell/list': 'read',
  'GET /images': 'read',
  'GET /image/clients': 'read',
  'POST /image/create': 'image',
  'POST /image/restore': 'image',
  'POST /image/update': 'image',
  'POST /image/delete': 'image',
  'GET /image/restrict': 'read',
  'POST /image/restrict': 'image',
  'POST /image/check': 'image',
  'POST /image/recover': 'image',
  'POST /image/pull': 'image',
  'GET /image/pulls': 'read',
  'GET /image/versions': 'read',
  'GET /image/trash': 'read',
  'GET /images/transfers': 'read',
  'GET /images/repository': 'read',
  'GET /images/files/*': 'public',
  'HEAD /images/files/*': 'public',
  'GET /cache/list': 'read',
  'POST /cache/delete': 'operate',
  'POST /cache/fetch': 'operate',
  'POST /events/ticket': 'read',
  'GET /events': 'read',
  'GET /metrics': 'read',
  'GET /metrics/targets': 'read',
  'GET /tokens': 'admin',
  'POST /tokens': 'admin',
  'DELETE /tokens': 'admin',
  'GET /audit': 'admin',
  'GET /client/history': 'read',
  'GET /boot/timeline': 'read',
  'GET /boot/stages': 'read',
  'GET /reports/hardware': 'read',
  'GET /reports/software': 'read',
  'GET /jobs': 'read',
  'GET /jobs/:id': 'read',
  'GET /energy': 'read',
  'GET /energy/now': 'read',
  'GET /groups': 'read',
  'POST /groups': 'admin',
  'GET /groups/:id': 'read',
  'POST /groups/:id': 'admin',
  'DELETE /groups/:id': 'admin',
  'GET /power/calendars': 'read',
  'POST /power/calendars': 'admin',
  'GET /power/calendars/:id': 'read',
  'POST /power/calendars/:id': 'admin',
  'DELETE /power/calendars/:id': 'admin',
  'GET /power/calendar/preview': 'read',
  'GET /dhcp/status': 'read',
  'POST /dhcp/sync': 'admin',
  'GET /dhcp/backups': 'read',
  'POST /dhcp/restore': 'admin',
  'GET /discovered': 'read',
  'POST /discovered/assign': 'admin',
  'POST /discovered/forget': 'admin',
  'POST /discovered/confirm': 'admin',
  'GET /multicast/sessions': 'read',
  'GET /multicast/sessions/:id': 'read',
  'DELETE /multicast/sessions/:id': 'image',
  'POST /multicast/sessions/:id/retry': 'image',
  'POST /auth/login': 'public',
  'GET /auth/providers': 'public',
  'GET /boot/ipxe': 'public',
  'GET /boot/ipxe/:mac': 'public',
  'GET /boot/files/*': 'public',
  'HEAD /boot/files/*': 'public',
  'POST /auth/logout': 'read',
  'GET /auth/me': 'read',
  'GET /auth/tokens': 'read',
  'POST /auth/tokens': 'read',
  'DELETE /auth/tokens': 'read',
  'GET /users': 'admin',
  'POST /users': 'admin',
  'DELETE /users': 'admin',
  'POST /users/disable': 'admin',
  'POST /users/enable': 'admin',
  'POST /users/password': 'admin',
  'POST /procedure/add': 'admin',
  'POST /procedure/update': 'admin',
  'POST /procedure/delete': 'admin',
  'POST /procedure/run': 'admin',
  'POST /task/add': 'admin',
  'POST /task/run': 'admin',
  'POST /schedule/command': 'admin',
  'POST /schedule/create': 'admin',
  'POST /schedule/update': 'admin',
  'POST /schedule/delete': 'admin',
  'POST /schedule/get': 'read',
  'POST /run/schedule': 'admin',
  'GET /procedures': 'read',
  'GET /tasks': 'read',
  'GET /hello': 'read',
  'POST /hello/wave': 'shell',
};

/**
 * Routes that need more than `read` but change nothing: kept out of the audit log. Every
 * other route that is not a GET and needs more than `read` is audited.
 */
const notAudited = new Set(['POST /clients', 'POST /shell/output']);
/** Routes every signed-in caller may call that change something all the same: a person's own tokens. */
const auditedReads = ['POST /auth/tokens', 'DELETE /auth/tokens'];

/** The status line only: an allowed event stream would stay open. */
function statusOf(port: number, method: string, urlPath: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent: false, headers }, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

async function everyPluginServer() {
  const defaults = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../config/default.json'), 'utf8')) as { plugins: string[] };
  // dhcp, enrol and multicast are off by default: on here, dhcp's Control Agent a closed loopback port.
  const dhcp = { control_agent: `http://127.0.0.1:${await freePort()}/` };
  return startServer({ config: { plugins: [...defaults.plugins, 'dhcp', 'enrol', 'multicast', helloPlugin], dhcp } });
}

test('every route of every bundled plugin declares the permission this table expects', async () => {
  const s = await everyPluginServer();
  try {
    const declared = Object.fromEntries(s.app.routeTable.map((r) => [`${r.method} ${r.path}`, r.public ? 'public' : r.permission]));
    assert.deepEqual(declared, expected);
  } finally {
    await s.close();
  }
});

test('the audited routes are exactly those that change something or reach an agent or the network', async () => {
  const s = await everyPluginServer();
  try {
    const audited = s.app.routeTable.filter((r) => r.audit).map((r) => `${r.method} ${r.path}`);
    const changing = Object.entries(expected)
      .filter(([route, permission]) => !route.startsWith('GET ') && permission !== 'read' && permission !== 'public')
      .map(([route]) => route)
      .filter((route) => !notAudited.has(route))
      .concat(auditedReads);
    assert.deepEqual(audited.sort(), changing.sort());
  } finally {
    await s.close();
  }
});

/** Each role's credentials, and an operator's with the shell: tokens, or people signed in (cookie and CSRF token). */
type Credentials = Record<string, Record<string, string>>;

async function tokensOf(s: TestServer): Promise<Credentials> {
  const keys: Credentials = { api_token: { Authorization: TOKEN } };
  for (const [role, shell] of rolesToTry) {
    const name = `${role}${shell ? '-shell' : ''}`;
    const made = await s.post('/tokens', { name, role, shell });
    assert.equal(made.status, 200, made.text);
    keys[name] = { Authorization: made.body.secret };
  }
  return keys;
}

async function peopleOf(s: TestServer): Promise<Credentials> {
  const people: Credentials = {};
  for (const [role, shell] of rolesToTry) {
    const name = `${role}${shell ? '-shell' : ''}`;
    await addUser(s, name, role, { shell });
    const person = await signIn(s.port, name);
    people[name] = { Cookie: person.cookie, 'X-CSRF-Token': person.csrf };
  }
  return people;
}

const rolesToTry = [...Object.keys(roles).map((r) => [r, false] as const), ['operator', true] as const];

for (const [kind, credentialsOf] of [
  ['tokens', tokensOf],
  ['people', peopleOf],
] as const) {
  test(`${kind}: each role gets exactly its permissions on every route (403 naming the permission otherwise); the configured key gets all`, async () => {
    const s = await everyPluginServer();
    try {
      const credentials = await credentialsOf(s);
      const refusal = await send(s.port, 'POST', '/image/create', {}, credentials.operator!);
      assert.equal(refusal.status, 403);
      assert.equal(refusal.body.error, 'forbidden');
      const who = kind === 'tokens' ? 'operator' : 'operator@local';
      assert.match(refusal.body.message, new RegExp(`needs the 'image' permission, which the key '${who}' \\(operator\\) does not have`));
      const allowed = (name: string, permission: Permission): boolean => {
        if (name === 'api_token') return true;
        if (permission === 'shell') return name.endsWith('-shell');
        return roles[name.replace(/-shell$/, '')]!.includes(permission);
      };
      const wrong: string[] = [];
      // Signing out last: it ends the session the other requests are sent with.
      const routes = [...s.app.routeTable].sort((a, b) => Number(a.path === '/auth/logout') - Number(b.path === '/auth/logout'));
      for (const route of routes) {
        if (route.public) continue;
        for (const [name, headers] of Object.entries(credentials)) {
          const status = await statusOf(s.port, route.method, route.path, headers);
          const refused = status === 403;
          if (status === 401 || refused === allowed(name, route.permission!))
            wrong.push(`${name} ${route.method} ${route.path}: ${status} (needs ${route.permission})`);
        }
      }
      assert.deepEqual(wrong, []);
    } finally {
      await s.close();
    }
  });
}

test.run();

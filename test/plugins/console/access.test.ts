// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { addCenter, addRoom } from '../../support/fixtures';
import { TOKEN, send, withServer } from '../../support/server';

const as = (secret: string) => ({ Authorization: secret });

/**
 * GET /console-access lists the routes a caller may call, so that the console offers only
 * the buttons that will not be refused: each listed route is let past the permission and
 * scope checks, each one left out is refused with 403, whatever body it is sent.
 */
test('GET /console-access: the routes each caller is let through, and only those', () =>
  withServer(async (s) => {
    const room = await addRoom(s, await addCenter(s, 'A'), 'A1', '255.0.0.0');
    const callers: Record<string, string> = { admin: TOKEN };
    for (const [name, body] of Object.entries({
      operator: { role: 'operator' },
      reader: { role: 'reader' },
      roomOperator: { role: 'operator', rooms: [room] },
    })) {
      const made = await s.post('/tokens', { name, ...body });
      assert.equal(made.status, 200, made.text);
      callers[name] = made.body.secret;
    }
    const every = s.app.routeTable.map((r) => `${r.method} ${r.path}`);
    const lists: Record<string, string[]> = {};
    for (const [name, secret] of Object.entries(callers)) {
      const r = await send(s.port, 'GET', '/console-access', undefined, as(secret));
      assert.equal(r.status, 200, r.text);
      lists[name] = r.body.routes;
      for (const route of every) {
        if (route.includes(':') || route.endsWith('*') || route.startsWith('GET /events')) continue;
        const [method, path] = route.split(' ') as [string, string];
        const answer = await send(s.port, method, path, method === 'GET' ? undefined : {}, as(secret));
        const refused = answer.status === 403 && answer.body?.error === 'forbidden';
        assert.equal(refused, !lists[name]!.includes(route), `${name}: ${route} answered ${answer.status} ${answer.text.slice(0, 120)}`);
      }
    }
    assert.deepEqual(new Set(lists.admin), new Set(every), 'the configured key may call every route');
    assert.ok(lists.operator!.includes('POST /wol') && !lists.operator!.includes('POST /client/delete'), 'an operator wakes, not deletes');
    assert.ok(!lists.reader!.includes('POST /wol') && lists.reader!.includes('GET /scopes'), 'a reader reads');
    const open = new Set(s.app.routeTable.filter((r) => r.scoped || r.permission === undefined).map((r) => `${r.method} ${r.path}`));
    assert.deepEqual(
      lists.roomOperator!.filter((route) => !open.has(route)),
      [],
      'a token limited to a room: only the routes open to such a token',
    );
    assert.ok(
      lists.operator!.some((route) => !open.has(route) && !lists.roomOperator!.includes(route)),
      'which leaves out some an operator over the whole fleet has',
    );
  }));

test.run();

// Engine-independent: runs once, on SQLite.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { send, startServer } from '../support/server';

test('GET /healthz and /readyz answer without the key, and say nothing else', async () => {
  const s = await startServer();
  try {
    for (const headers of [{}, { Authorization: 'wrong' }] as Record<string, string>[]) {
      const alive = await send(s.port, 'GET', '/healthz', undefined, headers);
      assert.is(alive.status, 200);
      assert.equal(alive.body, { status: 'ok' });
      const ready = await send(s.port, 'GET', '/readyz', undefined, headers);
      assert.is(ready.status, 200);
      assert.equal(ready.body, { status: 'ready' });
    }
    assert.is((await send(s.port, 'POST', '/healthz')).status, 401, 'only GET is public');
    assert.is((await send(s.port, 'GET', '/version')).status, 401, 'other routes still need the key');
  } finally {
    await s.close();
  }
});

test('GET /readyz is a 503 naming no secret when the database does not answer', async () => {
  const s = await startServer();
  try {
    await s.app.database.orm.close(true);
    const ready = await send(s.port, 'GET', '/readyz');
    assert.is(ready.status, 503);
    assert.equal(ready.body, { error: 'not_ready', message: 'the database does not answer' });
    assert.is((await send(s.port, 'GET', '/healthz')).status, 200, 'still alive');
  } finally {
    await s.close().catch(() => undefined);
  }
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { TOKEN, send } from '../../support/server';
import { jobsSite } from './helpers';

/** Bad input gets a 400 with a JSON body naming the field; an unknown job a 404. */

test('bad addresses, states, rooms, limits, parameters and ids: each a 400 naming its field; an unknown job 404', async () => {
  const x = await jobsSite({}, ['127.0.12.1'], ['127.0.13.1']);
  try {
    const cases: [string, string, RegExp][] = [
      ['/jobs?client=10.1.2', 'client', /^client: '10\.1\.2' is not an IPv4 address$/],
      ['/jobs?state=busy', 'state', /^state: must be one of sent, done, failed, timed_out, skipped$/],
      ['/jobs?room=x', 'room', /^room: must be a whole number/],
      ['/jobs?limit=0', 'limit', /^limit: must be a whole number from 1 to 500$/],
      ['/jobs?limit=501', 'limit', /1 to 500/],
      ['/jobs?before=-1', 'before', /^before: must be a whole number/],
      [`/jobs?who=${'x'.repeat(256)}`, 'who', /^who: 1 to 255 characters$/],
      ['/jobs?page=2', 'page', /^page: not a parameter of GET \/jobs/],
      ['/jobs/abc', 'id', /^id: must be a whole number/],
      ['/jobs/1.5', 'id', /^id: must be a whole number/],
    ];
    for (const [path, field, message] of cases) {
      const r = await send(x.s.port, 'GET', path, undefined, { Authorization: TOKEN });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.equal(r.headers['content-type'], 'application/json', path);
      assert.deepEqual([r.body.error, r.body.field], ['invalid_field', field], `${path}: ${r.text}`);
      assert.match(r.body.message, message, path);
    }
    const unknown = await x.s.get('/jobs/99');
    assert.deepEqual([unknown.status, unknown.body.error, unknown.body.message], [404, 'not_found', 'no job with id 99']);
    assert.equal((await send(x.s.port, 'GET', '/jobs')).status, 401, 'no key, no jobs');
  } finally {
    await x.close();
  }
});

test.run();

// Engine-independent: runs once, on SQLite.
import assert from 'node:assert/strict';
import { test } from 'uvu';
import { TOKEN, send } from '../../support/server';
import { historySite } from './helpers';

/** Bad input gets a 400 with a JSON body naming the field, before anything is read. */

test('bad addresses, dates, limits, kinds, reports and formats; an unknown client: each a clear 400 naming its field', async () => {
  const x = await historySite(1, {}, '127.0.9');
  try {
    const ip = x.ips[0]!;
    const cases: [string, string, string, RegExp][] = [
      ['/client/history', 'client', 'missing_field', /^client: the address of the client is required$/],
      ['/client/history?client=10.1.2', 'client', 'invalid_field', /^client: '10\.1\.2' is not an IPv4 address$/],
      ['/client/history?client=999.1.1.1', 'client', 'invalid_field', /not an IPv4 address/],
      ['/client/history?client=10.9.9.9', 'client', 'unknown_id', /^client: no client with ip 10\.9\.9\.9$/],
      [`/client/history?client=${ip}&from=yesterday`, 'from', 'invalid_field', /^from: 'yesterday' is not an ISO 8601 date or time/],
      [`/client/history?client=${ip}&to=2026-13-45`, 'to', 'invalid_field', /^to: '2026-13-45' is not/],
      [`/client/history?client=${ip}&from=2026-02-01&to=2026-01-01`, 'to', 'invalid_field', /^to: must not be before from$/],
      [`/client/history?client=${ip}&limit=0`, 'limit', 'invalid_field', /^limit: must be a whole number from 1 to 1000$/],
      [`/client/history?client=${ip}&limit=5000`, 'limit', 'invalid_field', /1 to 1000/],
      [`/client/history?client=${ip}&before=x`, 'before', 'invalid_field', /^before: must be a whole number/],
      [`/client/history?client=${ip}&kind=firmware`, 'kind', 'invalid_field', /^kind: must be 'hardware' or 'software'$/],
      [`/client/history?client=${ip}&page=2`, 'page', 'invalid_field', /^page: not a parameter of GET \/client\/history/],
      ['/reports/hardware?by=floor', 'by', 'invalid_field', /^by: must be 'center' or 'room'$/],
      ['/reports/hardware?format=xml', 'format', 'invalid_field', /^format: must be 'json' or 'csv'/],
      ['/reports/software', 'name', 'missing_field', /^name: the package name \(or part of it\) is required$/],
      ['/reports/software?name=%20', 'name', 'missing_field', /required/],
      [`/reports/software?name=${'x'.repeat(256)}`, 'name', 'invalid_field', /^name: at most 255 characters$/],
      ['/reports/software?name=vim&format=pdf', 'format', 'invalid_field', /^format: must be 'json' or 'csv'/],
    ];
    for (const [path, field, error, message] of cases) {
      const r = await send(x.s.port, 'GET', path, undefined, { Authorization: TOKEN });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.equal(r.headers['content-type'], 'application/json', path);
      assert.equal(r.body.field, field, `${path}: ${r.text}`);
      assert.equal(r.body.error, error, path);
      assert.match(r.body.message, message, path);
    }
    const body = await send(x.s.port, 'GET', `/client/history?client=${ip}`, { client: [ip] }, { Authorization: TOKEN });
    assert.equal(body.status, 400, 'the query says it all: a body is refused');
    assert.equal((await send(x.s.port, 'GET', `/client/history?client=${ip}`)).status, 401, 'no key, no history');
  } finally {
    await x.close();
  }
});

test.run();

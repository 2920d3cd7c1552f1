// Engine-independent: runs once, on SQLite.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/child-server';
import { send, startServer } from '../../support/server';

const helloPlugin = path.resolve(__dirname, '../../../../examples/hello-complete');

async function validate(document: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  return new Validator().validate(document as Record<string, unknown>);
}

test("GET /openapi.json: a valid OpenAPI 3.1 document of every route, the example plugin's included; public", async () => {
  const defaults = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../config/default.json'), 'utf8')) as { plugins: string[] };
  // dhcp and enrol are off by default: on here, dhcp's Control Agent a closed loopback port.
  const plugins = [...defaults.plugins, 'dhcp', 'enrol', helloPlugin];
  const s = await startServer({ config: { plugins, dhcp: { control_agent: `http://127.0.0.1:${await freePort()}/` } } });
  try {
    const r = await send(s.port, 'GET', '/openapi.json');
    assert.is(r.status, 200, 'no key needed: it describes the interface, not data');
    const document = r.body;
    const result = await validate(document);
    assert.ok(result.valid, `valid OpenAPI 3.1: ${JSON.stringify(result.errors)?.slice(0, 2000)}`);
    assert.is(document.openapi, '3.1.0');

    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    // Path parameters in OpenAPI's templating: `:mac` is `{mac}`, a trailing `*` `{path}`.
    const templated = (p: string) => p.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
    const registered = s.app.routeTable.map((route) => `${route.method} ${templated(route.path)}`);
    assert.equal([...documented].sort(), [...registered].sort(), 'exactly the routes of the table');
    for (const route of ['GET /hello', 'POST /wol', 'GET /clients', 'POST /client/add', 'GET /events', 'GET /metrics', 'GET /healthz'])
      assert.ok(documented.includes(route), route);

    const wol = document.paths['/wol'].post;
    assert.equal(wol.tags, ['wol']);
    assert.is(wol.requestBody.required, true);
    assert.equal(Object.keys(wol.requestBody.content['application/json'].schema.properties).sort(), ['clients', 'type']);
    assert.equal(wol.security, [{ key: [] }, { bearer: [] }]);
    assert.equal(
      [wol['x-ogserve-permission'], wol['x-ogserve-scoped']],
      ['operate', 'clients'],
      'what a key needs, and how a limited one is cut',
    );
    for (const route of s.app.routeTable.filter((r) => !r.public)) {
      const operation = document.paths[templated(route.path)][route.method.toLowerCase()];
      assert.equal(operation['x-ogserve-permission'], route.permission, `${route.method} ${route.path}`);
    }
    assert.equal(document.paths['/healthz'].get['x-ogserve-permission'], undefined, 'a public route needs none');
    assert.ok(wol.responses['401'] && wol.responses['400']);
    assert.equal(document.paths['/healthz'].get.security, [], 'public');
    assert.equal(document.paths['/healthz'].get.responses['200'].content['application/json'].schema.properties.status.const, 'ok');
    assert.ok(document.paths['/events'].get.responses['200'].content['text/event-stream']);
    assert.ok(
      document.paths['/hello'].get.requestBody.content['application/json'].schema.properties.client,
      'a third-party request schema',
    );
    assert.equal(Object.keys(document.components.securitySchemes).sort(), ['bearer', 'key']);
  } finally {
    await s.close();
  }
});

test('every route that answers JSON declares the schema of its answer, in every bundled plugin and the example', async () => {
  const defaults = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../config/default.json'), 'utf8')) as { plugins: string[] };
  // dhcp and enrol are off by default: on here, dhcp's Control Agent a closed loopback port.
  const plugins = [...defaults.plugins, 'dhcp', 'enrol', helloPlugin];
  const s = await startServer({ config: { plugins, dhcp: { control_agent: `http://127.0.0.1:${await freePort()}/` } } });
  try {
    const undeclared = s.app.routeTable
      .filter((route) => route.responseType.startsWith('application/json') && !route.stream && !route.response)
      .map((route) => `${route.owner}: ${route.method} ${route.path}`);
    assert.equal(undeclared, [], 'routes without a response schema');
    const document = (await send(s.port, 'GET', '/openapi.json')).body;
    const result = await validate(document);
    assert.ok(result.valid, `valid with the scheduler's routes too: ${JSON.stringify(result.errors)?.slice(0, 2000)}`);
    const scopes = document.paths['/scopes'].get.responses['200'].content['application/json'].schema;
    assert.is(scopes.properties.scope.items.$id, 'ScopeNode', 'the recursive tree keeps its own name');
  } finally {
    await s.close();
  }
});

test('/docs/ is a readable API page served by this install, nothing from elsewhere', async () => {
  const s = await startServer();
  try {
    const page = await send(s.port, 'GET', '/docs/');
    assert.is(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 3, page.text);
    for (const asset of assets) {
      assert.not.match(asset, /^(https?:)?\/\//, `${asset} is local`);
      const served = await send(s.port, 'GET', `/docs/${asset}`);
      assert.is(served.status, 200, asset);
    }
    const script = await send(s.port, 'GET', '/docs/docs.js');
    assert.match(script.text, /openapi\.json/);
  } finally {
    await s.close();
  }
});

test("a 200 answer outside its route's declared schema fails the test that gets it", async () => {
  const s = await startServer();
  try {
    const route = s.app.routeTable.find((r) => r.method === 'GET' && r.path === '/healthz')!;
    assert.ok(route.response, 'declares its answer');
    const declared = route.response;
    // The check the test server runs on every answer, against a schema the route does not meet.
    (route as { response: unknown }).response = Type.Object({ other: Type.String() });
    try {
      await s.get('/healthz');
      assert.unreachable('the answer should have been refused');
    } catch (error) {
      assert.match((error as Error).message, /GET \/healthz answered outside its declared response schema/);
    } finally {
      (route as { response: unknown }).response = declared;
    }
    assert.is((await s.get('/healthz')).status, 200);
  } finally {
    await s.close();
  }
});

test.run();

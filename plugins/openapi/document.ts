import type { TSchema } from '@sinclair/typebox';
import type { Route } from 'ogserve';

/** Every error the service writes: `{error, message[, field]}`. */
const errorSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', description: 'a stable code: unauthorized, invalid_field, unknown_id, ...' },
    message: { type: 'string' },
    field: { type: 'string', description: 'the request field at fault, when there is one' },
  },
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** A TypeBox schema as plain JSON Schema: its symbol-keyed markers are not data. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}

/**
 * A route's path in OpenAPI's templating: polka's `:mac` is `{mac}`, and its `*` (the rest of
 * the path) `{path}`, each a parameter in the path.
 */
function templated(route: string): { path: string; parameters: object[] } {
  const names: string[] = [];
  const path = route.replace(/:([A-Za-z0-9_]+)|\*/g, (_, param: string | undefined) => {
    const name = param ?? 'path';
    names.push(name);
    return `{${name}}`;
  });
  return { path, parameters: names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) };
}

/**
 * The OpenAPI 3.1 document of the routes registered (core's and every enabled plugin's,
 * third-party ones included): request schemas as the service validates them, the answer
 * each route declares, the errors it can give and how to authenticate. Made from the route
 * table itself, so it cannot describe a route that is not there or miss one that is.
 */
export function openApiDocument(routes: readonly Route[], version: string): object {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const hasBody = route.body !== undefined && route.policy !== 'ignored' && route.policy !== 'forbidden';
    const responses: Record<string, unknown> = {
      200: {
        description: 'the answer',
        content: { [route.responseType]: route.response ? { schema: plain(route.response) } : {} },
      },
    };
    if (hasBody || route.policy === 'forbidden')
      responses[400] = errorResponse('the request (body, field or value) is refused; `field` names what');
    if (!route.public) responses[401] = errorResponse('no API key, or a wrong one');
    responses[500] = errorResponse('the service failed; nothing was left half-done');
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      tags: [route.owner],
      security: route.public ? [] : [{ key: [] }, { bearer: [] }],
      responses,
    };
    if (route.summary) operation.summary = route.summary;
    // What a key must be allowed, and how a key limited to centers or rooms may call it.
    if (route.permission) operation['x-ogserve-permission'] = route.permission;
    if (route.scoped) operation['x-ogserve-scoped'] = route.scoped;
    if (hasBody)
      operation.requestBody = { required: route.policy === 'required', content: { 'application/json': { schema: plain(route.body!) } } };
    const { path, parameters } = templated(route.path);
    if (parameters.length > 0) operation.parameters = parameters;
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'ogserve',
      version,
      description: 'Fleet imaging and network-boot management: the REST interface of the OpenGnsys ogServer, and more.',
    },
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'the API key as the header value (as the reference)' },
        bearer: { type: 'http', scheme: 'bearer', description: 'the API key as a bearer token (as Prometheus sends it)' },
      },
    },
  };
}

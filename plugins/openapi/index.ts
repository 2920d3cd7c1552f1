import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { Reply, definePlugin, release } from 'ogserve';
import { openApiDocument } from './document';

/**
 * The API described: GET /openapi.json (OpenAPI 3.1, made from the route table of the
 * enabled plugins) and a readable page of it at /docs/ (Swagger UI, served from this
 * install). Both are public: they describe the interface, never data.
 */
/** What GET /openapi.json answers, as far as a reader relies on it. */
const OpenApiDocument = Type.Object({
  openapi: Type.String(),
  info: Type.Object({ title: Type.String(), version: Type.String() }),
  paths: Type.Record(Type.String(), Type.Object({})),
});

export default definePlugin({
  name: 'openapi',
  config: Type.Object({}, { additionalProperties: false }),
  register(ctx) {
    let document: Reply | undefined;
    const spec = { bodyPolicy: 'ignored', log: false, public: true, summary: 'this document', response: OpenApiDocument } as const;
    ctx.router.get('/openapi.json', spec, () => {
      // Every plugin registered before the first request: the table no longer changes.
      // Uncapped: it grows with the plugins, and it is the same for everyone.
      document ??= Reply.json(openApiDocument(ctx.routes, release), { uncapped: true });
      return document;
    });
    ctx.files('/docs', path.join(__dirname, 'public'));
  },
});

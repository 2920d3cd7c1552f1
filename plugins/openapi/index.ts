import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../core/plugin';
import { release } from '../../core/version';
import { openApiDocument } from './document';

/**
 * The API described: GET /openapi.json (OpenAPI 3.1, made from the route table of the
 * enabled plugins) and a readable page of it at /docs/ (Swagger UI, served from this
 * install). Both are public: they describe the interface, never data.
 */
export default definePlugin({
  name: 'openapi',
  config: Type.Object({}, { additionalProperties: false }),
  register(ctx) {
    let document: string | undefined;
    ctx.router.get(
      '/openapi.json',
      { bodyPolicy: 'ignored', log: false, public: true, stream: true, summary: 'this document' },
      ({ res }) => {
        // Every plugin registered before the first request: the table no longer changes.
        document ??= JSON.stringify(openApiDocument(ctx.routes, release));
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(document) });
        res.end(document);
      },
    );
    ctx.files('/docs', path.join(__dirname, 'public'));
  },
});

import { Type } from '@sinclair/typebox';
import { IntLike, type PluginContext, toInt } from 'ogserve';
import { ImageName } from '../../agents';
import type { ImagePuller } from '../pull/puller';

const Pull = Type.Object({
  name: Type.String(),
  url: Type.String(),
  state: Type.String({ description: 'running, done or failed' }),
  bytes: Type.Integer(),
  size: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  started: Type.String(),
  ended: Type.Union([Type.String(), Type.Null()]),
  image: Type.Union([Type.Integer(), Type.Null()], { description: "the new image's id once done" }),
});

/** POST /image/pull (start pulling an image from another site) and GET /image/pulls (how they go). */
export function pullRoutes(ctx: PluginContext<unknown>, puller: ImagePuller): void {
  ctx.router.post(
    '/image/pull',
    {
      permission: 'image',
      body: Type.Object({
        /** An image file of another ogserve: http(s)://<site>/images/files/<name>.img. */
        url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s?#]+\\.img$' }),
        name: ImageName(),
        repository_id: Type.Optional(IntLike({ minimum: 1 })),
      }),
      response: Pull,
      summary: "Pull an image from another ogserve's /images/files (resumed, checked against its sha256)",
    },
    async ({ body }) =>
      puller.start({
        url: body.url,
        name: body.name,
        repositoryId: body.repository_id === undefined ? undefined : toInt(body.repository_id),
      }),
  );
  ctx.router.get(
    '/image/pulls',
    {
      permission: 'read',
      scoped: 'open',
      bodyPolicy: 'forbidden',
      response: Type.Object({ pulls: Type.Array(Pull) }),
      summary: 'The pulls since the start, newest first',
    },
    async () => ({ pulls: puller.list() }),
  );
}

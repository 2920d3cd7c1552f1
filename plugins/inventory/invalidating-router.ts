import type { Handler, RouteRegistrar } from '../../core/http/routes';

/** A router whose POST and DELETE handlers call `changed` once they finish, whatever their outcome. */
export function invalidating(router: RouteRegistrar, changed: () => void): RouteRegistrar {
  const wrap =
    <B>(handler: Handler<B>): Handler<B> =>
    async (ctx) => {
      try {
        return await handler(ctx);
      } finally {
        changed();
      }
    };
  return {
    get: router.get,
    post: (path, spec, handler) => router.post(path, spec, wrap(handler)),
    delete: (path, spec, handler) => router.delete(path, spec, wrap(handler)),
  };
}

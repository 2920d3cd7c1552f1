import type { Handler, RequestContext, RouteRegistrar } from 'ogserve';

/**
 * A router for the inventory's writes: each POST and DELETE handler calls `changed` once it
 * finishes, whatever its outcome (the scope tree may have moved), and `succeeded` after it
 * answered without an error (to announce what it changed).
 */
export function invalidating(
  router: RouteRegistrar,
  changed: (method: string, path: string) => void,
  succeeded: (method: string, path: string, ctx: RequestContext<unknown>, result: unknown) => void,
): RouteRegistrar {
  const wrap =
    <B>(method: string, path: string, handler: Handler<B>): Handler<B> =>
    async (ctx) => {
      let result: unknown;
      try {
        result = await handler(ctx);
      } finally {
        changed(method, path);
      }
      succeeded(method, path, ctx as RequestContext<unknown>, result);
      return result;
    };
  return {
    get: router.get,
    post: (path, spec, handler) => router.post(path, spec, wrap('POST', path, handler)),
    delete: (path, spec, handler) => router.delete(path, spec, wrap('DELETE', path, handler)),
  };
}

import type { Handler, RequestContext, RouteRegistrar } from 'ogserve';

/** What the router does around each write: before it runs, whatever its outcome, and once it succeeded. */
export interface WriteSteps {
  /** Before the handler: what it returns is given to `succeeded` (the records the write is about to change). */
  before(method: string, path: string, ctx: RequestContext<unknown>): Promise<unknown>;
  /** Once the handler finished, whatever its outcome (the scope tree may have moved). */
  changed(method: string, path: string): void;
  /** After it answered without an error, before the answer is sent (to announce what it changed). */
  succeeded(method: string, path: string, ctx: RequestContext<unknown>, result: unknown, before: unknown): Promise<void>;
}

/** A router for the inventory's writes: each POST and DELETE handler runs between `steps`. */
export function invalidating(router: RouteRegistrar, steps: WriteSteps): RouteRegistrar {
  const wrap =
    <B>(method: string, path: string, handler: Handler<B>): Handler<B> =>
    async (ctx) => {
      const request = ctx as RequestContext<unknown>;
      const before = await steps.before(method, path, request);
      let result: unknown;
      try {
        result = await handler(ctx);
      } finally {
        steps.changed(method, path);
      }
      await steps.succeeded(method, path, request, result, before);
      return result;
    };
  return {
    get: router.get,
    post: (path, spec, handler) => router.post(path, spec, wrap('POST', path, handler)),
    delete: (path, spec, handler) => router.delete(path, spec, wrap('DELETE', path, handler)),
  };
}

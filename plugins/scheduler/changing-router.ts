import type { Handler, RouteRegistrar } from '../../core/http/routes';

/** POST routes of the scheduler that only read. */
const reads = new Set(['/schedule/get']);

/**
 * A router for the scheduler's routes: after each one that writes answered without an
 * error, `changed` runs (the instance that runs the schedules reads them again).
 */
export function changing(router: RouteRegistrar, changed: () => void): RouteRegistrar {
  const wrap =
    <B>(path: string, handler: Handler<B>): Handler<B> =>
    async (ctx) => {
      const result = await handler(ctx);
      if (!reads.has(path)) changed();
      return result;
    };
  return {
    get: router.get,
    post: (path, spec, handler) => router.post(path, spec, wrap(path, handler)),
    delete: (path, spec, handler) => router.delete(path, spec, wrap(path, handler)),
  };
}

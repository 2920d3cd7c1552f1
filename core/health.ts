import { Type } from '@sinclair/typebox';
import { HttpError } from './errors';
import type { Database } from './database';
import type { RouteRegistrar } from './http/routes';

/**
 * Health checks for load balancers, systemd and orchestrators, answered without the key:
 * GET /healthz says the process answers; GET /readyz that it can serve: every listener
 * open (the service finished starting), the database answering (its tables migrated at
 * start). Neither says anything else.
 */
export function healthRoutes(router: RouteRegistrar, db: Database, started: () => boolean): void {
  const common = { bodyPolicy: 'ignored', log: false, public: true } as const;
  router.get('/healthz', { ...common, summary: 'the process answers', response: Type.Object({ status: Type.Literal('ok') }) }, () => ({
    status: 'ok',
  }));
  router.get(
    '/readyz',
    { ...common, summary: 'ready to serve (503 otherwise)', response: Type.Object({ status: Type.Literal('ready') }) },
    async () => {
      if (!started()) throw new HttpError(503, 'not_ready', 'the service is starting or stopping');
      try {
        await db.query('select 1');
      } catch {
        throw new HttpError(503, 'not_ready', 'the database does not answer');
      }
      return { status: 'ready' };
    },
  );
}

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
  router.get('/healthz', { bodyPolicy: 'ignored', log: false, public: true }, () => ({ status: 'ok' }));
  router.get('/readyz', { bodyPolicy: 'ignored', log: false, public: true }, async () => {
    if (!started()) throw new HttpError(503, 'not_ready', 'the service is starting or stopping');
    try {
      await db.query('select 1');
    } catch {
      throw new HttpError(503, 'not_ready', 'the database does not answer');
    }
    return { status: 'ready' };
  });
}

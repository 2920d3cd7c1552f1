import { collectDefaultMetrics, Counter, Histogram, type Registry } from 'prom-client';
import type { Database, PluginHooks } from 'ogserve';
import { RequestDurations } from './request-durations';

/**
 * What this plugin measures beyond what each plugin counts: process and Node figures, every
 * REST request by method, route template and status ("unrouted": refused before routing, a
 * static file, no such endpoint), every refusal and failure by its error code, and every SQL
 * statement. With the plugin off, none of it is collected.
 */
export function collectServiceMetrics(registry: Registry, hooks: PluginHooks, db: Database): void {
  collectDefaultMetrics({ register: registry, prefix: 'ogserve_' });
  const requests = new RequestDurations(
    'ogserve_http_request_duration_seconds',
    'REST requests by method, route template ("unrouted": refused before routing, static files) and status',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registry,
  );
  // A request cut off before its answer has no status: it is not counted.
  hooks.onResponse(
    ({ route, req, status, ms }) => {
      if (status !== undefined) requests.observe(req.method ?? '', route?.path ?? 'unrouted', String(status), ms / 1000);
    },
    { global: true },
  );
  // By code, which says why (unauthorized, too_many_attempts, invalid_field...): a set the plugins fix, not the callers.
  const errors = new Counter({
    name: 'ogserve_http_errors_total',
    help: 'REST refusals and failures by status and error code',
    labelNames: ['status', 'error'],
    registers: [registry],
  });
  hooks.onError((error) => errors.inc({ status: String(error.status), error: error.code }), { global: true });
  const queries = new Histogram({
    name: 'ogserve_db_query_duration_seconds',
    help: 'SQL statements, from sent to answered',
    labelNames: ['outcome'],
    buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry],
  });
  db.onQuery((seconds, ok) => queries.observe({ outcome: ok ? 'ok' : 'error' }, seconds));
}

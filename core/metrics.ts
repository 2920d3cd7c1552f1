import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Cluster } from './cluster';
import type { Database } from './database';
import type { EventBus } from './events';
import { RequestDurations } from './request-durations';

export { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The service's Prometheus registry, shared by core and every plugin (`ctx.metrics`): core
 * measures what it does (requests, database queries, process and Node figures); each plugin
 * adds its own. A plugin serves them (GET /metrics).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: RequestDurations;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'ogserve_' });
    this.requests = new RequestDurations(
      'ogserve_http_request_duration_seconds',
      'REST requests by method, route template ("unrouted": refused before routing, static files) and status',
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      this.registry,
    );
  }

  /** Time one request from its start to its last byte, labelled with the route that took it. */
  timeRequest(req: IncomingMessage, res: ServerResponse, route: (req: IncomingMessage) => string): void {
    const started = performance.now();
    res.once('finish', () => {
      this.requests.observe(req.method ?? '', route(req), String(res.statusCode), (performance.now() - started) / 1000);
    });
  }

  countListenerFailures(bus: EventBus): void {
    new Counter({
      name: 'ogserve_event_listener_failures_total',
      help: 'Event bus listeners that threw or rejected',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(bus.failures);
      },
    });
  }

  countClusterSendFailures(cluster: Cluster): void {
    new Counter({
      name: 'ogserve_cluster_send_failures_total',
      help: 'Messages to the other instances that the cluster backend did not take',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(cluster.sendFailures);
      },
    });
  }

  /** Time every SQL statement the database runs (MikroORM's queries and raw ones alike). */
  timeQueries(db: Database): void {
    const histogram = new Histogram({
      name: 'ogserve_db_query_duration_seconds',
      help: 'SQL statements, from sent to answered',
      labelNames: ['outcome'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers: [this.registry],
    });
    db.onQuery((seconds, ok) => histogram.observe({ outcome: ok ? 'ok' : 'error' }, seconds));
  }
}

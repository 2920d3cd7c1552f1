import { Counter, Registry } from 'prom-client';
import type { Cluster } from './cluster';
import type { EventBus } from './events';

export { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The service's Prometheus registry, shared by core and every plugin (`ctx.metrics`): each
 * plugin adds its own metrics; core counts its failures (listeners, cluster messages). The
 * metrics plugin serves them, and measures requests, queries and the process: with it off,
 * nothing is timed.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  constructor(bus: EventBus, cluster: Cluster) {
    this.counted('ogserve_event_listener_failures_total', 'Event bus listeners that threw or rejected', () => bus.failures);
    this.counted(
      'ogserve_cluster_send_failures_total',
      'Messages to the other instances that the cluster backend did not take',
      () => cluster.sendFailures,
    );
  }

  /** A counter whose value is what `count` says when the registry is read. */
  private counted(name: string, help: string, count: () => number): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(count());
      },
    });
  }
}

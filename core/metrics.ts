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
}

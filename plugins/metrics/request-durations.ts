import type { Metric, Registry } from 'prom-client';

interface Series {
  labels: Record<string, string>;
  /** Observations per bucket, not cumulative; the last counts those above every bound. */
  counts: number[];
  sum: number;
}

/**
 * A histogram of request durations by method, route and status that costs a map lookup and
 * an increment per request. prom-client's Histogram builds and hashes a label object on
 * every observation, which showed as a sizeable share of a small request's CPU. The
 * registry reads it through prom-client's metric interface (`get`), so /metrics prints it
 * as any histogram.
 */
export class RequestDurations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    // prom-client's types name only its own classes; its registry needs no more than
    // name, help, type, aggregator, get and reset, which this has.
    registry.registerMetric(this as unknown as Metric);
  }

  observe(method: string, route: string, status: string, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.series.get(key);
    if (!series) {
      series = { labels: { method, route, status }, counts: new Array(this.bounds.length + 1).fill(0), sum: 0 };
      this.series.set(key, series);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values: MetricValue[] = [];
    for (const { labels, counts, sum } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += counts[i]!;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      const count = cumulative + counts[this.bounds.length]!;
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series = new Map();
  }
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'ogserve';
import type { EventHub } from './hub';
import type { WebhookSender } from './webhook';

/** The stream's and webhooks' Prometheus figures, read from their own counts at each scrape. */
export function eventMetrics(registry: Registry, hub: EventHub, webhooks: { url: string; sender: WebhookSender }[]): void {
  new Gauge({
    name: 'ogserve_event_subscribers',
    help: 'GET /events streams open',
    registers: [registry],
    collect() {
      this.set(hub.subscriberCount);
    },
  });
  new Counter({
    name: 'ogserve_events_published_total',
    help: 'Events published on the stream',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(hub.figures.published);
    },
  });
  new Counter({
    name: 'ogserve_event_subscribers_dropped_total',
    help: 'Streams dropped because their reader stalled',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(hub.figures.stalled);
    },
  });
  new Counter({
    name: 'ogserve_webhook_events_total',
    help: 'Webhook deliveries by hook (its place in events.webhooks and its host) and outcome (delivered, failed, dropped)',
    labelNames: ['hook', 'host', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      // The host only: a URL may carry credentials, which must not reach a scrape.
      for (const [hook, { url, sender }] of webhooks.entries()) {
        const host = new URL(url).host;
        for (const [outcome, count] of Object.entries(sender.figures)) this.inc({ hook: String(hook), host, outcome }, count);
      }
    },
  });
}

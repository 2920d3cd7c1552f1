import { Type } from '@sinclair/typebox';
import { definePlugin, ErrorCode, HttpError, queryOf } from 'ogserve';
import { FleetScope, Inventory } from '../inventory';
import { EventFilter } from './filter';
import { EventHub } from './hub';
import { eventMetrics } from './metrics';
import { EventsConfig } from './schemas';
import { openStream } from './stream-route';
import { Tickets } from './tickets';
import { WebhookSender } from './webhook';
import { forwardEvents } from './forwarding';
import { EventRules } from './reader';

/** How often open streams are checked for an access that no longer holds, besides at each event. */
const accessCheckMs = 1000;

export { EventHub } from './hub';
export type { FleetEvent } from './event-log';
export { signature } from './webhook';

/**
 * The fleet's live events: GET /events (Server-Sent Events, resumable with Last-Event-ID,
 * filtered by type, client or room), single-use tickets for browsers, and webhooks.
 * Provides `EventHub` so that other plugins can publish their own events.
 */
export default definePlugin({
  name: 'events',
  requires: ['inventory'],
  config: EventsConfig,
  register(ctx) {
    const { config } = ctx;
    const inventory = ctx.use(Inventory);
    const hub = ctx.make(EventHub);
    const tickets = ctx.make(Tickets);
    const webhooks = config.webhooks.map(
      (hook) =>
        new WebhookSender(
          {
            url: hook.url,
            secret: hook.secret,
            filter: new EventFilter(hook.types),
            queueSize: config.webhook_queue,
            attempts: config.webhook_attempts,
            retryMs: config.webhook_retry_s * 1000,
            timeoutMs: config.webhook_timeout_s * 1000,
          },
          ctx.log,
        ),
    );
    for (const webhook of webhooks) hub.onEvent((event) => webhook.offer(event));
    eventMetrics(
      ctx.metrics,
      hub,
      webhooks.map((sender, i) => ({ url: config.webhooks[i]!.url, sender })),
    );
    // Every event of every plugin, third-party ones included, goes to the stream.
    const forward = forwardEvents(ctx.cluster, hub);
    ctx.events.onAny((type, data) => {
      hub.publish(type, data as Record<string, unknown>);
      forward(type, data as Record<string, unknown>);
    });
    ctx.provide(EventHub, hub);

    // Who may read which event, from the route table once every route is in it.
    let rules: EventRules | undefined;
    ctx.router.post(
      '/events/ticket',
      {
        permission: 'read',
        // The ticket carries the key's scope to the stream.
        scoped: 'open',
        bodyPolicy: 'ignored',
        summary: 'a single-use ticket that opens one event stream (GET /events?ticket=)',
        response: Type.Object({ ticket: Type.String({ minLength: 32 }), expires_in: Type.Number() }),
      },
      ({ access }) => tickets.issue(access!),
    );
    ctx.router.get(
      '/events',
      {
        permission: 'read',
        scoped: 'filtered',
        bodyPolicy: 'ignored',
        stream: true,
        responseType: 'text/event-stream',
        summary: 'the live event stream (Server-Sent Events)',
        credential: (req) => {
          const ticket = queryOf(req).get('ticket');
          return ticket === null ? undefined : tickets.redeem(ticket);
        },
      },
      (request) =>
        openStream(request, hub, (rules ??= new EventRules(ctx.routes)), async (room) => {
          const scope = request.access?.scope;
          if (scope instanceof FleetScope && !(await scope.includesRoom(room)))
            throw new HttpError(
              403,
              ErrorCode.forbidden,
              `room ${room} is outside what the key '${request.access?.name}' may reach (${scope.description})`,
            );
          return (await inventory.clientsInRoom(room))?.map((c) => c.ip);
        }),
    );

    let heartbeat: NodeJS.Timeout | undefined;
    let accessCheck: NodeJS.Timeout | undefined;
    ctx.onStart(() => {
      heartbeat = setInterval(() => hub.heartbeat(), config.heartbeat_s * 1000);
      heartbeat.unref();
      // A quiet stream whose token was revoked or expired ends too, within a second or so.
      accessCheck = setInterval(() => hub.checkAccess(), accessCheckMs);
      accessCheck.unref();
    });
    ctx.onStop(() => {
      clearInterval(heartbeat);
      clearInterval(accessCheck);
      hub.close();
      // What a hook had not received is written down: which events, so that they can be resent.
      for (const [i, webhook] of webhooks.entries()) {
        const left = webhook.stop();
        if (left.length === 0) continue;
        const url = config.webhooks[i]!.url;
        const [first, last] = [left[0]!.id, left[left.length - 1]!.id];
        ctx.log.warn(
          { url, undelivered: left.length, first_event: first, last_event: last },
          `webhook ${url}: ${left.length} event(s) not delivered at stop (ids ${first} to ${last})`,
        );
      }
    });
  },
});

import { type Static, Type } from '@sinclair/typebox';

export const Webhook = Type.Object(
  {
    /** Where each event is POSTed as JSON. */
    url: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048 }),
    /** Event types sent to it; every type when absent or empty. */
    types: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { default: [] }),
    /** Key of the HMAC-SHA256 signature in the `X-Ogserve-Signature` header. */
    secret: Type.String({ minLength: 16, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const EventsConfig = Type.Object(
  {
    /** Events kept in memory for `Last-Event-ID` resumes; a subscriber further behind gets `reset`. */
    buffer_size: Type.Integer({ default: 10_000, minimum: 1, maximum: 1_000_000 }),
    /**
     * Bytes a subscriber may have waiting unsent for up to `subscriber_stall_s` (it is reading
     * a burst) before it is dropped as stalled; 16 times as many drop it at once.
     */
    subscriber_buffer_bytes: Type.Integer({ default: 1_048_576, minimum: 4096 }),
    subscriber_stall_s: Type.Number({ default: 10, exclusiveMinimum: 0 }),
    /** Events wait at most this long to be written to readers, in one write per reader. */
    flush_ms: Type.Integer({ default: 50, minimum: 0, maximum: 1000 }),
    /** Streams open at once; one more is refused with 503. */
    max_subscribers: Type.Integer({ default: 2000, minimum: 1, maximum: 100_000 }),
    /** A comment line sent this often keeps idle streams open through proxies. */
    heartbeat_s: Type.Number({ default: 15, exclusiveMinimum: 0 }),
    /** How long a ticket from POST /events/ticket may be used (once). */
    ticket_ttl_s: Type.Integer({ default: 30, minimum: 1, maximum: 3600 }),
    webhooks: Type.Array(Webhook, { default: [] }),
    /** Events waiting per webhook; when full the oldest is dropped (and counted). */
    webhook_queue: Type.Integer({ default: 10_000, minimum: 1 }),
    /** Delivery attempts per event before it is given up (and logged). */
    webhook_attempts: Type.Integer({ default: 6, minimum: 1, maximum: 20 }),
    /** First retry delay; each retry doubles it, up to 5 minutes. */
    webhook_retry_s: Type.Number({ default: 1, exclusiveMinimum: 0 }),
    /** A webhook answer slower than this counts as a failure. */
    webhook_timeout_s: Type.Number({ default: 10, exclusiveMinimum: 0 }),
  },
  { additionalProperties: false },
);

/** GET /events query: comma-separated lists. */
export const StreamQuery = Type.Object({
  types: Type.Optional(Type.String()),
  clients: Type.Optional(Type.String()),
  room: Type.Optional(Type.String()),
  ticket: Type.Optional(Type.String()),
});

/** The validated `events` config section. */
export type EventsSettings = Static<typeof EventsConfig>;

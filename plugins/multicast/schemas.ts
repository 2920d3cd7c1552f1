import { Type } from '@sinclair/typebox';
import { Port } from 'ogserve';
import { clientStates } from './entities/session-client';
import { sessionStates } from './entities/session';

/**
 * `multicast`: how sessions' senders are run. Off by default (the plugin is not in the
 * default list); every key has a default.
 */
export const MulticastConfig = Type.Object(
  {
    /** The sender program: Debian's udpcast `udp-sender`, or a path (a wrapper that runs it). */
    udp_sender: Type.String({ default: 'udp-sender', minLength: 1 }),
    /** Each session's sender log and the records of running senders (relative: in the state directory). */
    directory: Type.String({ default: 'multicast', path: true }),
    /** PCs the stream waits for before it starts; 0: every PC of the request that is up (sent the restore). At most those. */
    min_receivers: Type.Integer({ minimum: 0, maximum: 65535, default: 0 }),
    /** Seconds a sender waits for the rest once one PC joined, and for the first one to join (then the session fails). */
    max_wait_s: Type.Integer({ minimum: 1, maximum: 86400, default: 120 }),
    /** udp-sender's --max-bitrate ('600m': 600 Mb/s, 'k', 'm', 'g'); '' for none. */
    max_bitrate: Type.String({ default: '', pattern: '^([1-9][0-9]{0,8}[kmgKMG]?)?$' }),
    /** udp-sender's --retries-until-drop: unanswered retries before a PC is dropped and the others go on. */
    retries_until_drop: Type.Integer({ minimum: 1, maximum: 100000, default: 30 }),
    /** Ports sessions take, two each (udp-sender's portbase and the next). */
    ports: Type.Object({ from: Port(), to: Port() }, { additionalProperties: false, default: { from: 9000, to: 9199 } }),
    /** Per room id: the interface (name or address) its streams leave from, where the room's network alone does not say it. */
    interfaces: Type.Record(Type.String({ pattern: '^[1-9][0-9]*$' }), Type.String({ minLength: 1, maxLength: 64 }), { default: {} }),
  },
  { additionalProperties: false },
);

const Time = () => Type.String({ description: 'ISO 8601' });
const OptionalTime = () => Type.Union([Time(), Type.Null()]);
const Counts = Type.Object(Object.fromEntries(clientStates.map((s) => [s, Type.Optional(Type.Integer())])), {
  description: 'PCs by state, of those the caller may see',
});

const summary = {
  id: Type.Integer(),
  image: Type.Object({ id: Type.Integer(), name: Type.String() }),
  room: Type.Object({ id: Type.Integer(), name: Type.String() }),
  job: Type.Union([Type.Integer(), Type.Null()], { description: "the restore's job" }),
  state: Type.Union(sessionStates.map((s) => Type.Literal(s))),
  reason: Type.String({ description: 'why it failed or was cancelled' }),
  port: Type.Integer(),
  address: Type.String({ description: "the server's address the stream leaves from" }),
  interface: Type.String(),
  min_receivers: Type.Integer(),
  expected: Type.Integer({ description: 'PCs sent the restore' }),
  joined: Type.Integer({ description: 'PCs that joined the stream' }),
  size: Type.Number({ description: 'bytes of the image file' }),
  bytes: Type.Number({ description: 'bytes of the stream sent so far' }),
  retransmits: Type.Integer({ description: "udp-sender's retransmitted blocks" }),
  rate: Type.Number({ description: 'bytes per second: lately while it sends, the whole stream once done' }),
  who: Type.String(),
  created: Time(),
  started: OptionalTime(),
  finished: OptionalTime(),
  states: Counts,
};

export const SessionsList = Type.Object({
  sessions: Type.Array(Type.Object(summary)),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'the `before` of the next page; null on the last' }),
});

export const SessionDetail = Type.Object({
  ...summary,
  clients: Type.Array(
    Type.Object({
      addr: Type.String(),
      state: Type.Union(clientStates.map((s) => Type.Literal(s))),
      reason: Type.String({ description: "why it was dropped ('timeout'), skipped or failed" }),
      bytes: Type.Number({ description: 'bytes of the stream that reached it' }),
      slow: Type.Integer({ description: 'times udp-sender waited for its acknowledgement' }),
      joined: OptionalTime(),
      ended: OptionalTime(),
      job: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
});

/** The restore methods a dropped PC is sent the image again by. */
export const RetryBody = Type.Object({
  type: Type.Optional(
    Type.String({ minLength: 1, maxLength: 32, description: "a restore type other than MULTICAST; 'UNICAST' by default" }),
  ),
  clients: Type.Optional(Type.Array(Type.String({ format: 'ipv4', maxLength: 15 }), { maxItems: 65535 })),
});

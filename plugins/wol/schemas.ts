import { type Static, Type } from '@sinclair/typebox';
import { runClientStates } from './run';

/**
 * POST /wol. `clients` takes any strings: a malformed address is skipped and reported,
 * not an error (the spec). `type` is one of the two words; anything else is a 400.
 */
export const WolBody = Type.Object({
  clients: Type.Array(Type.String(), { maxItems: 4096 }),
  type: Type.Union([Type.Literal('broadcast'), Type.Literal('unicast')]),
});

/** How a wake run sends: `batch` clients per burst, `interval_ms` between bursts, `repeats` packets each spaced by `repeat_ms`. */
const pacing = {
  /** Clients per burst; 0: every client at once (the reference). */
  batch: Type.Integer({ minimum: 0, maximum: 100000 }),
  /** Milliseconds from one burst to the next. */
  interval_ms: Type.Integer({ minimum: 0, maximum: 3600000 }),
  /** Magic packets each client is sent per wake (1: the reference's one). */
  repeats: Type.Integer({ minimum: 1, maximum: 20 }),
  /** Milliseconds between a client's repeated packets. */
  repeat_ms: Type.Integer({ minimum: 0, maximum: 60000 }),
};

/** A room's or center's own pacing: what it sets replaces the site's (a room on one electrical circuit). */
export const PacingOverride = Type.Partial(Type.Object(pacing), { additionalProperties: false });

export const WolConfig = Type.Object(
  {
    batch: Type.Integer({ ...pacing.batch, default: 0 }),
    interval_ms: Type.Integer({ ...pacing.interval_ms, default: 0 }),
    repeats: Type.Integer({ ...pacing.repeats, default: 1 }),
    repeat_ms: Type.Integer({ ...pacing.repeat_ms, default: 1000 }),
    /** Pacing of the clients of a room, by room id ({"12": {"batch": 5, "interval_ms": 2000}}): its own bursts. */
    rooms: Type.Record(Type.String(), PacingOverride, { default: {} }),
    /** Pacing of the clients of a center, by center id, for rooms `rooms` does not name. */
    centers: Type.Record(Type.String(), PacingOverride, { default: {} }),
    /** Seconds after its last packet a woken client's agent has to connect; 0: not checked. */
    verify_s: Type.Number({ minimum: 0, maximum: 86400, default: 300 }),
    /** How many times a client whose agent did not connect is woken again before it is marked wake_failed. */
    retries: Type.Integer({ minimum: 0, maximum: 10, default: 0 }),
    /** Finished wake runs kept in memory for GET /wol/runs. */
    runs_kept: Type.Integer({ minimum: 1, maximum: 10000, default: 50 }),
    /** As the reference: broadcast-type packets also go to this interface's broadcast address. */
    interface: Type.String({ default: '' }),
    /** UDP port of magic packets (the reference's 9, "discard"). */
    port: Type.Integer({ default: 9, minimum: 1, maximum: 65535 }),
    /** How long a woken client is shown WOL_SENT when its agent does not connect. */
    pending_timeout_s: Type.Number({ default: 60, exclusiveMinimum: 0 }),
    /**
     * Send to 255.255.255.255 where the reference would (no usable `interface`). Off by
     * default: the limited broadcast leaves through whichever interface routes by default.
     */
    limited_broadcast: Type.Boolean({ default: false }),
    /**
     * With several instances (cluster.enabled): the networks this instance's packets reach,
     * e.g. ["10.1.0.0/16"]. A client is woken by an instance that lists its network, or by
     * every instance when none does.
     */
    networks: Type.Array(Type.String(), { default: [] }),
  },
  { additionalProperties: false },
);

/** The validated `wol` config section. */
export type WolSettings = Static<typeof WolConfig>;

const Addresses = Type.Array(Type.String());

/** POST /wol: who was woken, and every address that was not, by reason; the wake run that sends the packets. */
export const WolAnswer = Type.Object({
  run: Type.Union([Type.Integer(), Type.Null()], { description: 'the wake run (GET /wol/runs/<id>); null when no client is woken' }),
  sent: Addresses,
  skipped: Type.Object({
    malformed: Addresses,
    not_found: Addresses,
    connected: Addresses,
    invalid_record: Addresses,
    send_failed: Addresses,
  }),
});

const Time = () => Type.String({ description: 'ISO 8601' });
const RunState = Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('cancelled')]);
const ClientState = Type.Union(runClientStates.map((s) => Type.Literal(s)));
const runSummary = {
  id: Type.Integer(),
  type: Type.Union([Type.Literal('broadcast'), Type.Literal('unicast')]),
  who: Type.Union([Type.String(), Type.Null()], { description: "who asked: a token's or a person's name, 'scheduler'" }),
  source: Type.Union([Type.String(), Type.Null()]),
  state: RunState,
  created: Time(),
  finished: Type.Union([Time(), Type.Null()], { description: 'null while it runs' }),
  total: Type.Integer({ description: 'its clients (those the caller may see)' }),
  states: Type.Record(Type.String(), Type.Integer(), { description: 'clients by state' }),
};

const Reason = Type.Union([Type.Literal('never_seen'), Type.Literal('room_network'), Type.Literal('mac'), Type.Literal('no_agent')]);

/** GET /wol/runs. */
export const RunsList = Type.Object({ runs: Type.Array(Type.Object(runSummary)) });

/** GET /wol/runs/:id. */
export const RunDetail = Type.Object({
  ...runSummary,
  clients: Type.Array(
    Type.Object({
      addr: Type.String(),
      room: Type.Integer(),
      state: ClientState,
      tries: Type.Integer({ description: 'wakes begun: 1, then one per retry' }),
      packets: Type.Integer({ description: 'magic packets that left for it' }),
      sent: Type.Union([Time(), Type.Null()], { description: 'when its last packet left' }),
      ended: Type.Union([Time(), Type.Null()]),
      reason: Type.Union(
        [Type.Literal('never_seen'), Type.Literal('room_network'), Type.Literal('mac'), Type.Literal('no_agent'), Type.Null()],
        {
          description: 'why a wake_failed client is thought not to have woken',
        },
      ),
      outcome: Type.String({ description: 'the reason in words' }),
    }),
  ),
});

/** DELETE /wol/runs/:id. */
export const RunCancelled = Type.Object({ id: Type.Integer(), state: Type.Literal('cancelled') });

/** GET /wol/failed. */
export const WakeFailures = Type.Object({
  clients: Type.Array(
    Type.Object({
      addr: Type.String(),
      run: Type.Integer({ description: 'the run that marked it wake_failed' }),
      reason: Reason,
      outcome: Type.String({ description: 'the reason in words' }),
      ended: Time(),
    }),
  ),
});

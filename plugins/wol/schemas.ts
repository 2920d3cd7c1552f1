import { type Static, Type } from '@sinclair/typebox';

/**
 * POST /wol. `clients` takes any strings: a malformed address is skipped and reported,
 * not an error (the spec). `type` is one of the two words; anything else is a 400.
 */
export const WolBody = Type.Object({
  clients: Type.Array(Type.String(), { maxItems: 4096 }),
  type: Type.Union([Type.Literal('broadcast'), Type.Literal('unicast')]),
});

export const WolConfig = Type.Object(
  {
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

/** POST /wol: who was woken, and every address that was not, by reason. */
export const WolAnswer = Type.Object({
  sent: Addresses,
  skipped: Type.Object({
    malformed: Addresses,
    not_found: Addresses,
    connected: Addresses,
    invalid_record: Addresses,
    send_failed: Addresses,
  }),
});

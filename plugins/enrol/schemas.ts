import { type Static, Type } from '@sinclair/typebox';
import { Ipv4, IntLike, Mac, Text } from 'ogserve';

/** `10.1.3.0/24`. */
const Network = () => Type.String({ pattern: '^[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}$', maxLength: 18 });

/** A name pattern: `{n}`, `{nn}`, `{nnn}` the PC's number (as many digits at least), `{mac}` its MAC. */
export const NamePattern = () => Text(100);

/** Where new clients' addresses come from: the one each PC has now, or free ones from this address up in the room's network. */
const Addresses = () => Type.Union([Type.Literal('current'), Ipv4()]);

/** A rule: what a PC must match (all that it gives), and the room, names and mode it is put in without a click. */
const Rule = Type.Object(
  {
    /** The PC's address is in this network. */
    network: Type.Optional(Network()),
    /** Shorthand for `hardware: {"mod": ...}`: its make and model holds this text (any case). */
    model: Type.Optional(Text(100)),
    /** For each hardware type code (`mod`, `cpu`, `mem`...), a text one of its components of that type holds (any case). */
    hardware: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z]{3}$' }), Text(100))),
    room: Type.Integer({ minimum: 1 }),
    names: Type.Optional(NamePattern()),
    addresses: Type.Optional(Addresses()),
    mode: Type.Optional(Text(64)),
  },
  { additionalProperties: false },
);

export const EnrolConfig = Type.Object(
  {
    /** The most PCs kept discovered and not assigned; past it the oldest are forgotten. */
    max_pending: Type.Integer({ default: 500, minimum: 1, maximum: 100_000 }),
    /** Agents of discovered PCs taken per network and minute (more wait for the next minute: the agent retries). */
    agents_per_minute: Type.Integer({ default: 60, minimum: 1 }),
    /** An agent from a discovered PC's address is taken for it this long after its discovery boot or its agent's last connection. */
    boot_window_s: Type.Integer({ default: 1800, minimum: 10 }),
    /** The live image the discovery boot starts. */
    livedir: Type.String({ default: 'ogLive', pattern: '^[A-Za-z0-9._-]{1,64}$' }),
    /** How long a restore asked with an assignment waits for the PCs' agents to come up as clients. */
    restore_wait_s: Type.Integer({ default: 600, minimum: 1 }),
    /** PCs that match a rule are assigned as soon as their hardware is read (the first rule that matches). */
    rules: Type.Array(Rule, { default: [], maxItems: 256 }),
  },
  { additionalProperties: false },
);

export type EnrolSettings = Static<typeof EnrolConfig>;
export type EnrolRule = Static<typeof Rule>;

const Macs = () => Type.Array(Mac(), { minItems: 1, maxItems: 1000 });

export const AssignBody = Type.Object({
  macs: Macs(),
  room: IntLike({ minimum: 1 }),
  names: Type.Optional(NamePattern()),
  /** The first number `{n}` takes (names clients have already are skipped): 1 by default. */
  start: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999 })),
  /** Numbers and addresses go to the PCs by arrival (their first discovery boot, the default) or by MAC. */
  order: Type.Optional(Type.Union([Type.Literal('arrival'), Type.Literal('mac')])),
  addresses: Type.Optional(Addresses()),
  /** Their boot mode (one GET /mode lists); the inventory's default when absent. */
  mode: Type.Optional(Text(64)),
  /** An image to restore once their agents are up as clients: POST /image/restore's body without `clients`. */
  restore: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** Reboot them at once into their own mode (the default); false lets their agents connect again as they are. */
  reboot: Type.Optional(Type.Boolean()),
  /** Answer what would be done (names, addresses), writing nothing. */
  dry_run: Type.Optional(Type.Boolean()),
});
export type AssignRequest = Static<typeof AssignBody>;

export const ForgetBody = Type.Object({
  macs: Macs(),
  /** Switch them off first (those whose agent is connected). */
  poweroff: Type.Optional(Type.Boolean()),
});

export const ConfirmBody = Type.Object({ macs: Macs() });

const Component = Type.Object({
  type: Type.String({ description: 'the reference type code: mod, cpu, mem, dis...' }),
  description: Type.String(),
});

export const DiscoveredPcView = Type.Object({
  mac: Type.String({ description: 'aa:bb:cc:dd:ee:ff' }),
  ip: Type.String({ description: 'the address it came from' }),
  network: Type.String({ description: 'the network it came from, 10.1.3.0/24' }),
  state: Type.Union([Type.Literal('booted'), Type.Literal('discovered')], {
    description: 'booted: the discovery live image was served, no hardware yet; discovered: its agent reported its hardware',
  }),
  connected: Type.Boolean({ description: 'its agent is connected now (to this instance)' }),
  first_seen: Type.String(),
  booted_at: Type.String({ description: 'its last discovery boot' }),
  agent_at: Type.Union([Type.String(), Type.Null()]),
  discovered_at: Type.Union([Type.String(), Type.Null()], { description: 'when its hardware was read' }),
  serial_number: Type.String(),
  model: Type.String({ description: "its make and model (the 'mod' component), '' when not reported" }),
  hardware: Type.Array(Component),
  disks: Type.Array(Type.Object({ disk: Type.Integer(), size: Type.Integer({ description: 'bytes' }) })),
  moved: Type.Union([Type.Object({ id: Type.Integer(), ip: Type.String(), name: Type.String(), mac: Type.String() }), Type.Null()], {
    description: 'the client whose serial number it reported: the same PC with another MAC or address, to confirm',
  }),
});
export type DiscoveredPcAnswer = Static<typeof DiscoveredPcView>;

export const DiscoveredList = Type.Object({ discovered: Type.Array(DiscoveredPcView) });

export const AssignAnswer = Type.Object({
  clients: Type.Array(Type.Object({ mac: Type.String(), ip: Type.String(), name: Type.String() })),
  dry_run: Type.Boolean(),
  warnings: Type.Optional(Type.Array(Type.String())),
  /** The restore waits for these PCs' agents (it starts as a job once they are up). */
  restore_waiting: Type.Optional(Type.Array(Type.String())),
});

export const ForgetAnswer = Type.Object({ forgotten: Type.Array(Type.String({ description: 'aa:bb:cc:dd:ee:ff' })) });

export const ConfirmAnswer = Type.Object({
  clients: Type.Array(Type.Object({ mac: Type.String(), ip: Type.String(), name: Type.String() })),
  warnings: Type.Optional(Type.Array(Type.String())),
});

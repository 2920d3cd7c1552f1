import { Type } from '@sinclair/typebox';
import { HostIpv4, IntLike, IpList, Ipv4, Mac, Name, Netmask, Text } from 'ogserve';

/** Request bodies of the inventory endpoints. Unknown keys are ignored, as the reference does. */
const OptionalIpv4 = () => Type.Union([Ipv4(), Type.Literal('')]);

export const IdBody = Type.Object({ id: IntLike() });

export const CenterAdd = Type.Object({ name: Name(100), comment: Type.Optional(Text(1000, { multiline: true })) });
export const CenterUpdate = Type.Object({
  id: IntLike(),
  name: Name(100),
  comment: Type.Optional(Text(1000, { multiline: true })),
});

const roomFields = {
  netmask: Netmask(),
  gateway: Type.Optional(OptionalIpv4()),
  location: Type.Optional(Text(255)),
  ntp: Type.Optional(Text(64)),
  dns: Type.Optional(Text(64)),
  remote: Type.Optional(Type.Boolean()),
  folder_id: Type.Optional(IntLike()),
  /** The reference's older name of folder_id. */
  group: Type.Optional(IntLike()),
};

export const RoomAdd = Type.Object({ center: IntLike({ minimum: 1 }), name: Name(100), ...roomFields });
export const RoomUpdate = Type.Object({
  id: IntLike(),
  name: Type.Optional(Name(100)),
  ...roomFields,
  netmask: Type.Optional(Netmask()),
});

export const FolderAdd = Type.Object({
  name: Name(100),
  center: Type.Optional(IntLike({ minimum: 1 })),
  room: Type.Optional(IntLike({ minimum: 1 })),
  folder_id: Type.Optional(IntLike({ minimum: 1 })),
});
export const FolderUpdate = Type.Object({ id: IntLike(), name: Name(100) });

const clientFields = {
  name: Type.Optional(Name(100, { empty: true })),
  serial_number: Type.Optional(Text(64)),
  netmask: Type.Optional(Type.Union([Netmask(), Type.Literal('')])),
  boot: Type.Optional(Text(64)),
  netiface: Type.Optional(Type.String({ maxLength: 16, pattern: '^[A-Za-z0-9._-]*$' })),
  netdriver: Type.Optional(Text(64)),
  livedir: Type.Optional(Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9._-]*$' })),
  hardware_id: Type.Optional(IntLike()),
  repo_id: Type.Optional(IntLike()),
  server_id: Type.Optional(IntLike()),
  folder_id: Type.Optional(IntLike()),
  remote: Type.Optional(Type.Boolean()),
  maintenance: Type.Optional(Type.Boolean()),
};

export const ClientAdd = Type.Object({ ip: HostIpv4(), mac: Mac(), room: IntLike({ minimum: 1 }), ...clientFields });
export const ClientUpdate = Type.Object({
  id: IntLike(),
  ip: Type.Optional(HostIpv4()),
  mac: Type.Optional(Mac()),
  room: Type.Optional(IntLike({ minimum: 1 })),
  ...clientFields,
});
export const ClientsBody = Type.Object({ clients: IpList() });
export const ClientQuery = Type.Object({ client: IpList({ minItems: 1 }) });
export const ClientMove = Type.Object({ clients: IpList(), room: IntLike({ minimum: 1 }), folder_id: Type.Optional(IntLike()) });
export const ClientAssign = Type.Object({ clients: IpList(), id: IntLike() });
/** A CSV file of clients (the request size cap, rest.max_request_bytes, is the real limit of its length). */
export const ClientImport = Type.Object({ csv: Text(16 * 1024 * 1024, { multiline: true }), dry_run: Type.Optional(Type.Boolean()) });

const Addresses = () => Type.Union([Ipv4(), Type.Array(Ipv4(), { minItems: 1, maxItems: 16 })]);
export const RepositoryAdd = Type.Object({ name: Name(100), ip: Addresses() });
export const RepositoryUpdate = Type.Object({
  repo_id: IntLike(),
  name: Name(100),
  ip: Addresses(),
  center: Type.Optional(IntLike()),
});
export const RepositoryQuery = Type.Object({ id: Type.Optional(IntLike()) });

export const ServerAdd = Type.Object({ ip: Ipv4(), port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })) });

/** Answers of the inventory's routes (the OpenAPI document publishes them; the tests check them). */
export const Created = Type.Object({ id: Type.Integer({ minimum: 1 }) });
export const Done = Type.Object({});
/**
 * What went wrong after a client's record was written (its boot files not written): the
 * record stands, the answer is 200, and the caller is told. Absent when all went well.
 */
const Warnings = Type.Optional(Type.Array(Type.String()));
export const ClientSaved = Type.Object({ id: Type.Integer({ minimum: 1 }), warnings: Warnings });
export const ClientUpdated = Type.Object({ warnings: Warnings });
/** One row of an imported file, by the line it begins on: taken, or refused naming the field at fault. */
const ImportedRow = Type.Object({
  line: Type.Integer(),
  ip: Type.String(),
  name: Type.String(),
  ok: Type.Boolean(),
  error: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});
/** POST /client/import's answer; a refused file is a 400 whose body carries the same fields. */
export const ClientImported = Type.Object({
  rows: Type.Array(ImportedRow),
  added: Type.Integer({ minimum: 0 }),
  refused: Type.Integer({ minimum: 0 }),
  dry_run: Type.Boolean(),
  warnings: Warnings,
});

/** An ISC dhcpd.conf whose host blocks become clients (its size is bounded by rest.max_request_bytes, as a CSV's). */
export const DhcpdImport = Type.Object({
  conf: Text(16 * 1024 * 1024, { multiline: true }),
  dry_run: Type.Optional(Type.Boolean()),
  /** Every host in this room (and computer folder), as a room's own import does; without it, each in the room whose network holds it. */
  room: Type.Optional(IntLike({ minimum: 1 })),
  folder_id: Type.Optional(IntLike()),
});
/** One host of an imported dhcpd.conf (or a statement refused on its own, an include), by its line; `room` where one holds its address. */
const ImportedHost = Type.Object({
  line: Type.Integer(),
  name: Type.String(),
  ip: Type.String(),
  mac: Type.String(),
  room: Type.Optional(Type.Integer()),
  room_name: Type.Optional(Type.String()),
  ok: Type.Boolean(),
  error: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});
/** POST /client/import-dhcpd's answer: the hosts taken are stored even when others are refused. */
export const DhcpdImported = Type.Object({
  rows: Type.Array(ImportedHost),
  added: Type.Integer({ minimum: 0 }),
  refused: Type.Integer({ minimum: 0 }),
  dry_run: Type.Boolean(),
  warnings: Warnings,
});

export const CenterInfo = Type.Object({ id: Type.Integer(), name: Type.String(), comment: Type.String() });

export const RoomInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  center: Type.Integer(),
  netmask: Type.String(),
  gateway: Type.String(),
  location: Type.String(),
  ntp: Type.String(),
  dns: Type.String(),
  remote: Type.Boolean(),
  folder_id: Type.Integer(),
});

export const ClientInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  serial_number: Type.String(),
  ip: Type.String(),
  mac: Type.String(),
  room: Type.Integer(),
  center: Type.Integer(),
  folder_id: Type.Integer(),
  hardware_id: Type.Integer(),
  repo_id: Type.Integer(),
  server_id: Type.Integer(),
  netmask: Type.String(),
  netiface: Type.String(),
  netdriver: Type.String(),
  livedir: Type.String(),
  boot: Type.String(),
  remote: Type.Boolean(),
  maintenance: Type.Boolean(),
});

export const ClientSetup = Type.Object({
  partitions: Type.Array(
    Type.Object({
      disk: Type.Integer(),
      partition: Type.Integer(),
      disk_type: Type.String(),
      code: Type.Integer(),
      size: Type.Number({ description: 'bytes (KiB with inventory.setup_size_unit)' }),
      used_size: Type.Number(),
      free_size: Type.Number(),
      filesystem: Type.Integer(),
      filesystem_name: Type.String(),
      os: Type.String(),
      image: Type.Integer(),
      software: Type.Integer(),
    }),
  ),
});

export const RepositoryList = Type.Object({
  repositories: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      center: Type.Integer(),
      ip: Type.String(),
      addresses: Type.Array(Type.String()),
    }),
  ),
});

export const ServerList = Type.Object({
  servers: Type.Array(Type.Object({ id: Type.Integer(), ip: Type.String(), port: Type.Integer() })),
});

export const ClientAddresses = Type.Object({ clients: Type.Array(Type.Object({ ip: Type.String(), mac: Type.String() })) });

/**
 * GET /scopes: centers hold rooms and room folders, rooms hold computer folders and
 * computers; a computer has its `ip` and an empty `scope`.
 */
const ScopeNode = Type.Recursive(
  (Node) =>
    Type.Object({
      name: Type.String(),
      type: Type.Union([Type.Literal('center'), Type.Literal('room'), Type.Literal('folder'), Type.Literal('computer')]),
      id: Type.Integer(),
      scope: Type.Array(Node),
      ip: Type.Optional(Type.String()),
    }),
  { $id: 'ScopeNode' },
);
export const ScopesAnswer = Type.Object({ scope: Type.Array(ScopeNode) });

/** GET /site: the site's own settings every page shows. */
export const SiteAnswer = Type.Object({
  time_zone: Type.String({ description: "the IANA zone of the site's times: site.time_zone, else the system's" }),
  source: Type.Union([Type.Literal('site.time_zone'), Type.Literal('system')], {
    description: 'where it comes from: the config key, or the system because the key is empty',
  }),
});

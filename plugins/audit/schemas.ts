import { Type } from '@sinclair/typebox';

const Value = Type.Union([
  Type.String(),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
  Type.Object({ id: Type.Integer(), name: Type.String() }),
]);

/** One field of one record a request changed: `before` absent for an add, `after` for a delete. */
const Change = Type.Object({
  entity: Type.String(),
  id: Type.Integer(),
  name: Type.Optional(Type.String()),
  field: Type.String(),
  before: Type.Optional(Value),
  after: Type.Optional(Value),
});

/** The command a request sent to agents: its job (null when none was recorded) and its PCs (`count` of them, the first 100 named). */
const Command = Type.Object({
  job: Type.Union([Type.Integer(), Type.Null()]),
  kind: Type.String(),
  count: Type.Integer(),
  clients: Type.Array(Type.Object({ ip: Type.String(), id: Type.Optional(Type.Integer()), name: Type.Optional(Type.String()) })),
});

const AuditView = Type.Object({
  id: Type.Integer(),
  time: Type.String(),
  token: Type.String(),
  address: Type.String(),
  method: Type.String(),
  path: Type.String(),
  clients: Type.Array(Type.String()),
  status: Type.Union([Type.Integer(), Type.Null()]),
  ms: Type.Number(),
  changes: Type.Optional(Type.Array(Change)),
  changes_omitted: Type.Optional(Type.Integer()),
  command: Type.Optional(Command),
  dry_run: Type.Optional(
    Type.Literal(true, { description: "the request only checked what it would do (an import's dry_run): nothing was written" }),
  ),
});

/** GET /audit: a page, newest first; `next` is the `before` of the following page. */
export const AuditPage = Type.Object({
  entries: Type.Array(AuditView),
  next: Type.Union([Type.Integer(), Type.Null()]),
});

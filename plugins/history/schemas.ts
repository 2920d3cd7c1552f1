import { Type } from '@sinclair/typebox';

const Nullable = () => Type.Union([Type.String(), Type.Null()]);

export const HistoryEntrySchema = Type.Object({
  id: Type.Integer(),
  time: Type.String(),
  kind: Type.Union([Type.Literal('hardware'), Type.Literal('software')]),
  change: Type.String({ description: 'hardware: added, removed, changed; software: installed, removed, updated, os_changed' }),
  type: Type.Optional(Type.String({ description: "the component's type code (mem, dis, cpu...)" })),
  type_name: Type.Optional(Type.String({ description: 'what GET /hardware calls that type' })),
  disk: Type.Optional(Type.Integer()),
  partition: Type.Optional(Type.Integer()),
  package: Type.Optional(Type.String({ description: "the package's name ('' for the OS line)" })),
  before: Nullable(),
  after: Nullable(),
  alerts: Type.Array(Type.String(), { description: 'the alert rules this change met' }),
});

export const HistoryPage = Type.Object({
  client: Type.String(),
  changes: Type.Array(HistoryEntrySchema),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'the `before` of the next page; null on the last' }),
});

const Counts = Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }));
const countsFields = {
  clients: Type.Integer(),
  reported: Type.Integer(),
  cpu: Counts,
  memory: Counts,
  disk: Counts,
  firmware: Counts,
};

export const HardwareReportSchema = Type.Object({
  by: Type.Union([Type.Literal('center'), Type.Literal('room')]),
  names: Type.Object({ cpu: Type.String(), memory: Type.String(), disk: Type.String(), firmware: Type.String() }),
  groups: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), center: Type.Optional(Type.String()), ...countsFields })),
  total: Type.Object(countsFields),
});

export const SoftwareReportSchema = Type.Object({
  name: Type.String(),
  clients: Type.Integer(),
  packages: Type.Array(
    Type.Object({
      name: Type.String(),
      version: Type.String(),
      count: Type.Integer(),
      clients: Type.Array(
        Type.Object({ ip: Type.String(), name: Type.String(), room: Type.String(), disk: Type.Integer(), partition: Type.Integer() }),
      ),
    }),
  ),
});

export const TimelinePage = Type.Object({
  client: Type.String(),
  entries: Type.Array(
    Type.Object({
      time: Type.String({ description: 'ISO 8601' }),
      kind: Type.String({
        description:
          'job (a command or a wake run), power (a power state), boot (a network boot), change (an inventory), audit (a change of its record)',
      }),
      summary: Type.String({ description: 'what happened, in English' }),
      who: Nullable(),
      source: Nullable(),
      state: Nullable(),
      job: Type.Union([Type.Integer(), Type.Null()]),
      data: Type.Record(Type.String(), Type.Unknown()),
    }),
  ),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'the `before` (ms) of the next page; null on the last' }),
  missing: Type.Array(Type.String(), { description: 'plugins whose records could not be read this time' }),
});

import { Type, type Static } from '@sinclair/typebox';
import { IntLike, IpList, Name, Text } from 'ogserve';

/**
 * Request bodies of the scheduling endpoints, in the reference's shapes: ids as numeric
 * strings or integers. Which kind a step is, and what its params hold, is checked in code
 * so that errors name the step (`steps[2].procedure`).
 */
const maxSteps = 1000;

const Step = Type.Object({
  command: Type.Optional(Type.String({ maxLength: 32 })),
  params: Type.Optional(Type.Unknown()),
  procedure: Type.Optional(IntLike()),
  task: Type.Optional(IntLike()),
});
export type StepBody = Static<typeof Step>;

const Description = () => Text(10_000, { multiline: true });

export const ProcedureAdd = Type.Object({
  center: IntLike(),
  name: Name(100),
  description: Type.Optional(Description()),
  steps: Type.Optional(Type.Array(Step, { maxItems: maxSteps })),
});
export const ProcedureUpdate = Type.Object({ ...ProcedureAdd.properties, procedure: IntLike() });
export const ProcedureRun = Type.Object({ clients: IpList({ minItems: 1 }), procedure: IntLike() });
export const IdBody = Type.Object({ id: IntLike() });

/** A center, a room, one computer ("client"), or a saved group (the groups plugin's: its PCs when the task runs). */
export const ScopeBody = Type.Object({
  type: Type.Union([Type.Literal('center'), Type.Literal('room'), Type.Literal('client'), Type.Literal('group')]),
  id: IntLike(),
});

export const TaskAdd = Type.Object({
  center: IntLike(),
  name: Name(100),
  description: Type.Optional(Description()),
  steps: Type.Optional(Type.Array(Step, { maxItems: maxSteps })),
  /** Not in the reference (its tasks target no computer): the computers the task's procedures run on. */
  scope: Type.Optional(ScopeBody),
});
export const TaskRun = Type.Object({ task: IntLike() });

/**
 * `years` is a year (2010-9999), a list of years, or the reference's 16-bit mask (bit i =
 * 2010 + i); the other keys are the reference's masks.
 */
export const WhenBody = Type.Object({
  years: Type.Union([Type.Integer({ minimum: 0 }), Type.Array(Type.Integer(), { minItems: 1, maxItems: 1000 })]),
  months: Type.Integer({ minimum: 0, maximum: 2 ** 12 - 1 }),
  weeks: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 6 - 1 })),
  week_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 7 - 1 })),
  days: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 }),
  hours: Type.Integer({ minimum: 0, maximum: 2 ** 12 - 1 }),
  am_pm: Type.Integer({ minimum: 0, maximum: 1 }),
  minutes: Type.Integer({ minimum: 0, maximum: 59 }),
});
export type WhenRequest = Static<typeof WhenBody>;

const Kind = () => Type.Union([Type.Literal('task'), Type.Literal('procedure'), Type.Literal('command')]);

/**
 * Not in the reference's requests (its `suspendida` column is only read): a suspended
 * schedule never fires. 1 or true suspends, 0 or false resumes; left out, create writes 0
 * and update keeps what is stored.
 */
const Suspended = () => Type.Optional(Type.Union([Type.Boolean(), Type.Literal(0), Type.Literal(1)]));

export const ScheduleCreate = Type.Object({
  task: IntLike(),
  name: Name(100),
  type: Kind(),
  when: Type.Optional(WhenBody),
  suspended: Suspended(),
});
export const ScheduleUpdate = Type.Object({
  id: IntLike(),
  task: IntLike(),
  name: Name(100),
  type: Type.Optional(Kind()),
  when: Type.Optional(WhenBody),
  suspended: Suspended(),
});
export const ScheduleGet = Type.Object({ task: Type.Optional(IntLike()), id: Type.Optional(IntLike()) });
export const ScheduleCommand = Type.Object({
  clients: IpList({ minItems: 1 }),
  command: Type.String({ maxLength: 32 }),
  params: Type.Optional(Type.Unknown()),
  when: Type.Optional(WhenBody),
});
export const RunSchedule = Type.Object({ clients: IpList({ minItems: 1 }) });

/** Answers of the scheduler routes (the OpenAPI document publishes them; the tests check them). */
export const SessionAnswer = Type.Object({ session: Type.Integer() });
export const ScheduledCommand = Type.Object({ id: Type.Integer(), session: Type.Integer() });

/** POST /schedule/get: each schedule in the reference's keys; `next` is when it fires next (ms since 1970), while it does. */
export const ScheduleListing = Type.Object({
  schedule: Type.Array(
    Type.Object({
      id: Type.Integer(),
      task: Type.Integer(),
      name: Type.String(),
      type: Kind(),
      years: Type.Array(Type.Integer()),
      months: Type.Integer(),
      weeks: Type.Integer(),
      week_days: Type.Integer(),
      days: Type.Integer(),
      hours: Type.Integer(),
      am_pm: Type.Integer(),
      minutes: Type.Integer(),
      suspended: Type.Integer(),
      session: Type.Integer(),
      next: Type.Optional(Type.Integer()),
    }),
  ),
});

/** GET /procedures: every procedure with its steps, in order. */
export const ProcedureListing = Type.Object({
  procedures: Type.Array(
    Type.Object({
      id: Type.Integer(),
      center: Type.Integer(),
      name: Type.String(),
      description: Type.String(),
      steps: Type.Array(
        Type.Union([
          Type.Object({ command: Type.String(), params: Type.Record(Type.String(), Type.Unknown()) }),
          Type.Object({ procedure: Type.Integer() }),
        ]),
      ),
    }),
  ),
});

/** GET /tasks: every task with its steps, in order, and its scope (null: none). */
export const TaskListing = Type.Object({
  tasks: Type.Array(
    Type.Object({
      id: Type.Integer(),
      center: Type.Integer(),
      name: Type.String(),
      description: Type.String(),
      scope: Type.Union([Type.Object({ type: Type.String(), id: Type.Integer() }), Type.Null()]),
      steps: Type.Array(Type.Union([Type.Object({ procedure: Type.Integer() }), Type.Object({ task: Type.Integer() })])),
    }),
  ),
});

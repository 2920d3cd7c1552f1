import { Type } from '@sinclair/typebox';

const Hours = Type.Object(
  { off: Type.Number(), idle: Type.Number(), session: Type.Number(), busy: Type.Number(), unknown: Type.Number() },
  { description: 'hours in each state; unknown: not recorded (the server down, a PC not yet added)' },
);
const Kwh = Type.Object(
  { off: Type.Number(), idle: Type.Number(), session: Type.Number(), busy: Type.Number(), total: Type.Number() },
  { description: 'estimated kWh in each state (energy.watts, by room and model)' },
);
const figures = { clients: Type.Integer(), hours: Hours, kwh: Kwh };

export const EnergyReportSchema = Type.Object({
  from: Type.String(),
  to: Type.String({ description: 'the end asked, or now if that is earlier' }),
  by: Type.Union([Type.Literal('client'), Type.Literal('room'), Type.Literal('center'), Type.Literal('day')]),
  groups: Type.Array(
    Type.Object({
      id: Type.Integer({ description: 'the client, room or center id; by day, days since 1970' }),
      name: Type.String({ description: 'by day, the UTC date' }),
      ip: Type.Optional(Type.String()),
      room: Type.Optional(Type.String()),
      center: Type.Optional(Type.String()),
      ...figures,
    }),
  ),
  total: Type.Object(figures),
});

export const EnergyNowSchema = Type.Object({
  rooms: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      center: Type.String(),
      counts: Type.Object({ off: Type.Integer(), idle: Type.Integer(), session: Type.Integer(), busy: Type.Integer() }),
      pcs: Type.Array(
        Type.Object({
          ip: Type.String(),
          name: Type.String(),
          state: Type.Union([Type.Literal('off'), Type.Literal('idle'), Type.Literal('session'), Type.Literal('busy')]),
          since: Type.Union([Type.String(), Type.Null()], { description: 'null: off since a time not recorded' }),
        }),
        { description: 'by state (off, idle, session, busy), longest in it first' },
      ),
    }),
  ),
});

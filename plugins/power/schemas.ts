import { Type } from '@sinclair/typebox';
import { weekdays } from '../inventory';

/** "07:45": hours 00-23, minutes 00-59. */
const LocalTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'local time HH:MM' });
const LocalDate = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'local date YYYY-MM-DD' });

const Day = Type.Object(
  { on: Type.Optional(LocalTime), off: Type.Optional(LocalTime) },
  { additionalProperties: false, description: 'what happens that weekday: power on, power off, both or neither' },
);

export const Target = Type.Object(
  {
    type: Type.Union([Type.Literal('center'), Type.Literal('room'), Type.Literal('folder'), Type.Literal('group')]),
    id: Type.Integer({
      minimum: 1,
      description: "a center's or room's id, a computer folder's id as GET /scopes shows it, a saved group's id (GET /groups)",
    }),
  },
  { additionalProperties: false },
);

export const Holiday = Type.Object(
  {
    from: LocalDate,
    to: LocalDate,
    label: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false, description: 'a range of local dates, both included, in which the calendar does nothing' },
);

export const Week = Type.Object(Object.fromEntries(weekdays.map((d) => [d, Type.Optional(Day)])), { additionalProperties: false });

export const CalendarBody = Type.Object({
  target: Target,
  week: Week,
  holidays: Type.Optional(Type.Array(Holiday, { maxItems: 500 })),
  force_off: Type.Optional(Type.Boolean({ description: 'power off PCs with a user session or a running command too' })),
});

export const CalendarView = Type.Object({
  id: Type.Integer(),
  target: Target,
  week: Week,
  holidays: Type.Array(Holiday),
  force_off: Type.Boolean(),
});

export const CalendarList = Type.Object({
  time_zone: Type.String({ description: "the calendars' zone: power.time_zone when set, else the site's" }),
  time_zone_source: Type.Union([Type.Literal('power.time_zone'), Type.Literal('site.time_zone'), Type.Literal('system')], {
    description: "where that zone comes from: power's override, the site's key, or the system",
  }),
  site_time_zone: Type.String({ description: "the site's zone (site.time_zone, else the system's)" }),
  calendars: Type.Array(CalendarView),
});

export const Deleted = Type.Object({ id: Type.Integer() });

export const Preview = Type.Object({
  time_zone: Type.String(),
  actions: Type.Array(
    Type.Object({
      at: Type.String({ description: 'ISO 8601 local time with its offset' }),
      action: Type.Union([Type.Literal('on'), Type.Literal('off')]),
      calendar: Type.Integer(),
      target: Target,
      clients: Type.Array(Type.String(), { description: 'the PCs this calendar governs now' }),
    }),
  ),
});

export const PowerConfig = Type.Object(
  {
    /** IANA time zone of the calendars' times, overriding the site's (site.time_zone); '' follows the site. */
    time_zone: Type.String({ default: '' }),
  },
  { additionalProperties: false },
);

import { Type } from '@sinclair/typebox';
import { type PowerState, type StateTimes, powerStates } from './states';

const Watt = () => Type.Number({ minimum: 0, maximum: 10000 });

/** Watts drawn in each state; in `rooms` and `models` any state may be left out (the next rule gives it). */
export const StateWatts = Type.Object(
  { off: Watt(), idle: Watt(), session: Watt(), busy: Watt() },
  { additionalProperties: false, default: { off: 1, idle: 60, session: 80, busy: 70 } },
);
export const SomeWatts = Type.Partial(StateWatts, { additionalProperties: false });

export type Watts = Record<PowerState, number>;

export interface WattsConfig {
  watts: Watts;
  /** By room id. */
  rooms: Record<string, Partial<Watts>>;
  /** By the PC's make and model as its hardware inventory reports it (`mod`), `*` any text, case ignored. */
  models: Record<string, Partial<Watts>>;
}

function pattern(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
}

/** The watts of a PC, state by state: its room's, else its model's (the first pattern that matches), else the default. */
export class WattsRules {
  private readonly models: { match: RegExp; watts: Partial<Watts> }[];

  constructor(private readonly config: WattsConfig) {
    this.models = Object.entries(config.models).map(([glob, watts]) => ({ match: pattern(glob), watts }));
  }

  /** Whether a PC's model matters (models are read only then). */
  get byModel(): boolean {
    return this.models.length > 0;
  }

  of(room: number, model: string | undefined): Watts {
    const byRoom = this.config.rooms[String(room)];
    const byModel = model === undefined ? undefined : this.models.find((m) => m.match.test(model))?.watts;
    const watts = { ...this.config.watts };
    for (const state of powerStates) watts[state] = byRoom?.[state] ?? byModel?.[state] ?? watts[state];
    return watts;
  }
}

/** Kilowatt-hours of time in each state at these watts. */
export function kwhOf(times: StateTimes, watts: Watts): StateTimes {
  const kwh = { off: 0, idle: 0, session: 0, busy: 0 };
  for (const state of powerStates) kwh[state] = (times[state] / 3_600_000) * (watts[state] / 1000);
  return kwh;
}

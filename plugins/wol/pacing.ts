import type { Static } from '@sinclair/typebox';
import { StartupError } from 'ogserve';
import type { PacingOverride, WolSettings } from './schemas';

/** How a lane of a wake run sends: `batch` clients per burst (0: all), `interval_ms` apart, `repeats` packets each `repeat_ms` apart. */
export interface Pacing {
  batch: number;
  interval_ms: number;
  repeats: number;
  repeat_ms: number;
}

type Override = Static<typeof PacingOverride>;

/** A lane: the clients paced together (a room or center with its own pacing, or the rest of the site). */
export interface Lane {
  key: string;
  pacing: Pacing;
}

/**
 * Which pacing each client of a wake run follows: its room's entry in `wol.rooms`, else its
 * center's in `wol.centers`, else the site's (`wol.batch`...). A room or center with an
 * entry is a lane of its own (a room on one electrical circuit gets its own bursts, beside
 * the others'); every other client shares the site's lane.
 */
export class PacingTable {
  private readonly site: Lane;
  private readonly rooms: Map<number, Made>;
  private readonly centers: Map<number, Made>;

  constructor(config: Pick<WolSettings, 'batch' | 'interval_ms' | 'repeats' | 'repeat_ms' | 'rooms' | 'centers'>) {
    const site: Pacing = { batch: config.batch, interval_ms: config.interval_ms, repeats: config.repeats, repeat_ms: config.repeat_ms };
    this.site = { key: 'site', pacing: site };
    this.centers = lanes('centers', config.centers, site);
    this.rooms = lanes('rooms', config.rooms, site);
  }

  laneOf(room: { id: number; centerId: number }): Lane {
    const own = this.rooms.get(room.id);
    const center = this.centers.get(room.centerId);
    // A room's entry sets what it names; the rest comes from its center's, then the site's.
    if (own && center) return { key: own.lane.key, pacing: { ...center.lane.pacing, ...own.override } };
    return own?.lane ?? center?.lane ?? this.site;
  }
}

interface Made {
  lane: Lane;
  /** What the entry names. */
  override: Override;
}

/** The lanes of `wol.rooms` or `wol.centers`, by id; a key that is no id stops the start, naming it. */
function lanes(section: 'rooms' | 'centers', entries: Record<string, Override>, site: Pacing): Map<number, Made> {
  const out = new Map<number, Made>();
  const kind = section === 'rooms' ? 'room' : 'center';
  for (const [id, override] of Object.entries(entries)) {
    if (!/^[1-9][0-9]{0,9}$/.test(id)) throw new StartupError(`wol.${section}: '${id}' is not a ${kind} id (a whole number)`);
    out.set(Number(id), { lane: { key: `${kind} ${id}`, pacing: { ...site, ...override } }, override });
  }
  return out;
}

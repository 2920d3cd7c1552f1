import { Counter, Gauge, type Registry } from 'ogserve';
import { type PowerState, powerStates } from './states';

/** PCs in each power state now, and the hours they spent in each (counted as each stretch ends). */
export class EnergyMetrics {
  private readonly hours: Counter<'state'>;

  constructor(registry: Registry, current: () => Iterable<PowerState>) {
    new Gauge({
      name: 'ogserve_energy_pcs',
      help: 'PCs in each power state (off, idle, session, busy), as this instance knows them',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const counts = new Map<PowerState, number>(powerStates.map((s) => [s, 0]));
        for (const state of current()) counts.set(state, counts.get(state)! + 1);
        for (const [state, n] of counts) this.set({ state }, n);
      },
    });
    this.hours = new Counter({
      name: 'ogserve_energy_hours_total',
      help: 'Hours PCs spent in each power state, counted as each stretch in one state ends',
      labelNames: ['state'],
      registers: [registry],
    });
  }

  ended(state: PowerState, ms: number): void {
    if (ms > 0) this.hours.inc({ state }, ms / 3_600_000);
  }
}

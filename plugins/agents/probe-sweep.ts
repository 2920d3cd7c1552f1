/**
 * The periodic probe (`agents.probe_interval_s`), spread over its interval. Probing every
 * agent at once makes all their answers arrive together: with 10,000 agents the soak saw
 * the event loop stall for most of a second each time. Here each interval is cut into
 * `slices` ticks and each tick probes the next share of the agents connected when the
 * round began, so every agent is still probed once per interval, in smaller bursts.
 * Agents that connect during a round wait for the next one.
 */
export class ProbeSweep {
  private timer?: NodeJS.Timeout;
  private round: string[] = [];
  private share = 0;
  private tickInRound = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly connectedIps: () => string[],
    private readonly probe: (ips: string[]) => void,
    readonly slices = 10,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs / this.slices);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One slice: starts a new round every `slices` ticks. */
  tick(): void {
    if (this.tickInRound === 0) {
      this.round = this.connectedIps();
      this.share = Math.ceil(this.round.length / this.slices);
    }
    const from = this.tickInRound * this.share;
    const batch = this.round.slice(from, from + this.share);
    this.tickInRound = (this.tickInRound + 1) % this.slices;
    if (batch.length > 0) this.probe(batch);
  }
}

/**
 * Seconds each test file took, so that a run shows where CI's time goes (CI has a fixed
 * budget). uvu queues every file's tests before running any; each queued runner is wrapped
 * to add its time to its file.
 */
type Runner = () => Promise<unknown>;

/** The slowest files of a run, printed after uvu's totals. */
const shown = 12;

export class SuiteTiming {
  private readonly seconds = new Map<string, number>();

  /** Wrap the runners uvu queued for each file (`UVU_QUEUE`: one group per file, its name first). */
  wrap(queue: unknown[][]): void {
    for (const group of queue) {
      const name = String(group[0]);
      for (let i = 1; i < group.length; i++) {
        const run = group[i] as Runner;
        group[i] = async () => {
          const started = process.hrtime.bigint();
          try {
            return await run();
          } finally {
            this.seconds.set(name, (this.seconds.get(name) ?? 0) + Number(process.hrtime.bigint() - started) / 1e9);
          }
        };
      }
    }
  }

  /** The slowest files, one per line, with their share of the whole run. */
  report(): string {
    const total = [...this.seconds.values()].reduce((a, b) => a + b, 0);
    const slowest = [...this.seconds].sort((a, b) => b[1] - a[1]).slice(0, shown);
    const lines = slowest.map(([name, s]) => `  ${s.toFixed(1).padStart(7)} s  ${name}`);
    return `  Slowest files (${total.toFixed(0)} s in all):\n${lines.join('\n')}\n`;
  }
}

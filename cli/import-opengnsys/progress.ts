/**
 * Progress of long steps on the terminal. Only tables of at least `threshold` rows are
 * shown: on a terminal one line rewritten in place, elsewhere (a log, a pipe) a line per
 * tenth done, so that a redirected run still shows it is moving.
 */
export interface Progress {
  /** `done` of `total` rows of `what` handled (`what` names the step: "reading ordenadores"). */
  advance(what: string, done: number, total: number): void;
}

export class StreamProgress implements Progress {
  private lastTenth = new Map<string, number>();
  private lastDraw = 0;

  constructor(
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly threshold = 1000,
  ) {}

  advance(what: string, done: number, total: number): void {
    if (total < this.threshold) return;
    const line = `${what}: ${done}/${total}`;
    if (this.stream.isTTY) {
      const now = Date.now();
      if (done < total && now - this.lastDraw < 100) return;
      this.lastDraw = now;
      this.stream.write(`\r${line}${done >= total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done * 10) / total);
    if (tenth === this.lastTenth.get(what)) return;
    this.lastTenth.set(what, tenth);
    this.stream.write(`${line}\n`);
  }
}

/** For callers that show nothing. */
export const silentProgress: Progress = { advance: () => undefined };

import { type Clock, SystemClock } from './clock';
import type { PluginCluster } from './cluster';
import type { Logger } from './log';

export interface ElectedWork {
  /** The role one instance of several holds (`history-prune`). */
  role: string;
  everyMs: number;
  /** Whose time counts; the system's unless a test gives its own. */
  clock?: Clock;
  log: Logger;
  /** The log line of a run that failed (`history changes not pruned`): the next run comes all the same. */
  failed: string;
  run(): Promise<void>;
}

/**
 * Work one instance does for all (pruning old rows): once when it gains `role`, then every
 * `everyMs` until it loses the role or the app stops. Audit, history and jobs prune this way.
 */
export function electedEvery(cluster: PluginCluster, work: ElectedWork): () => void {
  const clock = work.clock ?? new SystemClock();
  let cancel: (() => void) | undefined;
  let held = false;
  const once = () => work.run().catch((error: unknown) => work.log.error({ err: error }, work.failed));
  const next = (): void => {
    cancel = clock.setTimer(clock.now() + work.everyMs, async () => {
      await once();
      if (held) next();
    });
  };
  const stop = (): void => {
    held = false;
    cancel?.();
  };
  cluster.elected(
    work.role,
    async () => {
      held = true;
      await once();
      if (held) next();
    },
    stop,
  );
  return stop;
}

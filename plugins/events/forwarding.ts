import type { PluginCluster } from 'ogserve';
import type { EventHub } from './hub';

type Forwarded = [type: string, data: Record<string, unknown>][];

/** Events are gathered this long before they go to the other instances in one message. */
const gatherMs = 50;

/**
 * With several instances, a console connected to any of them sees the whole fleet: each
 * instance streams the others' events besides its own. Webhooks hear an event only where it
 * happened, so each is delivered once.
 */
export function forwardEvents(
  cluster: Pick<PluginCluster, 'shared' | 'broadcast' | 'on'>,
  hub: EventHub,
): (type: string, data: Record<string, unknown>) => void {
  let gathered: Forwarded = [];
  let timer: NodeJS.Timeout | undefined;
  cluster.on<Forwarded>('events.forward', (events) => {
    for (const [type, data] of events) hub.publish(type, data, false);
  });
  return (type, data) => {
    if (!cluster.shared) return;
    gathered.push([type, data]);
    timer ??= setTimeout(() => {
      const events = gathered;
      gathered = [];
      timer = undefined;
      cluster.broadcast('events.forward', events);
    }, gatherMs);
    timer.unref();
  };
}

import type { Database, Logger } from 'ogserve';
import type { Asker } from '../agents';
import type { Skipped, WakeReport, Waker } from '../wol';
import type { Clock } from './clock';
import { wakeType } from './commands';
import { ActionEntity, type ActionResult } from './entities/action';

export interface WakeAction {
  id: number;
  ip: string;
  /** The step's stored JSON params. */
  params: string;
}

/** Who asks for a scheduled wake: its run (and job) says so. */
const scheduler: Asker = { name: 'scheduler', source: 'scheduler' };

/** Why a client was not woken, as the action's note. */
const notes: Record<keyof Skipped, string> = {
  malformed: 'not an IPv4 address',
  not_found: 'no client has this address any more',
  connected: 'already awake: its agent is connected',
  invalid_record: "its MAC or its room's netmask cannot address a magic packet",
  send_failed: 'the magic packet could not be sent',
};

/**
 * `wol` steps. A client to wake is off, so its agent cannot be asked for anything: the
 * packets leave as soon as the step is queued (reference-behaviour.md 7.4), before the
 * run/schedule that starts the other steps. Unlike the reference, which marks every wake
 * a success, the action says whether the packet left.
 */
export class WakeSteps {
  constructor(
    private readonly db: Database,
    private readonly waker: Pick<Waker, 'wake'>,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  async send(actions: WakeAction[]): Promise<void> {
    if (actions.length === 0) return;
    const byType = new Map<'broadcast' | 'unicast', WakeAction[]>();
    for (const action of actions) {
      const type = wakeType(JSON.parse(action.params) as Record<string, unknown>);
      byType.set(type, [...(byType.get(type) ?? []), action]);
    }
    for (const [type, group] of byType) {
      let outcome: (ip: string) => { result: ActionResult; note: string };
      try {
        const report = await this.waker.wake(
          group.map((a) => a.ip),
          type,
          scheduler,
        );
        outcome = outcomeOf(report);
      } catch (error) {
        this.log.error({ err: error }, 'scheduled wake-on-LAN failed');
        outcome = () => ({ result: 'failure', note: (error as Error).message.slice(0, 200) });
      }
      await this.finish(group, outcome);
    }
  }

  /** One update per distinct (result, note): a lab woken at once is a handful of statements. */
  private async finish(actions: WakeAction[], outcome: (ip: string) => { result: ActionResult; note: string }): Promise<void> {
    const groups = new Map<string, { result: ActionResult; note: string; ids: number[] }>();
    for (const action of actions) {
      const o = outcome(action.ip);
      const key = `${o.result}\n${o.note}`;
      const group = groups.get(key) ?? { ...o, ids: [] };
      group.ids.push(action.id);
      groups.set(key, group);
    }
    const finishedAt = this.clock.now();
    await this.db.transactional(async (em) => {
      for (const { result, note, ids } of groups.values()) {
        await em.nativeUpdate(ActionEntity, { id: { $in: ids } }, { state: 'done', result, note, finishedAt });
      }
    });
  }
}

function outcomeOf(report: WakeReport): (ip: string) => { result: ActionResult; note: string } {
  const reasons = new Map<string, keyof Skipped>();
  for (const [reason, ips] of Object.entries(report.skipped) as [keyof Skipped, string[]][]) for (const ip of ips) reasons.set(ip, reason);
  return (ip) => {
    const reason = reasons.get(ip);
    if (reason === undefined) return { result: 'success', note: '' };
    // An awake client needs no packet: the step did what it is for.
    return { result: reason === 'connected' ? 'success' : 'failure', note: notes[reason] };
  };
}

import type { EntityManager } from '@mikro-orm/core';
import type { PluginContext } from 'ogserve';
import { SessionClientEntity } from './entities/session-client';
import { SessionEntity, liveStates } from './entities/session';
import { endLeftSenders } from './leftovers';
import type { MulticastSettings } from './sessions';

/**
 * At start: the senders a killed ogserve left are ended (their records say which processes),
 * and the sessions they ran fail saying so, with their PCs still in the stream `failed` and
 * those not joined yet `missing` (the jobs plugin fails their job lines: no answer can come).
 * Alone, every session the database still shows running is one this ogserve ran; of several
 * instances, only those whose sender was recorded on this machine are.
 */
export async function endLeftovers(ctx: PluginContext<MulticastSettings>, given?: EntityManager): Promise<void> {
  const left = await endLeftSenders(ctx.config.directory);
  for (const sender of left.filter((l) => l.ended))
    ctx.log.warn(
      { session: sender.session, pid: sender.pid, port: sender.port },
      `multicast session ${sender.session}: ended udp-sender (pid ${sender.pid}) that ogserve left running when it was stopped`,
    );
  const ids = left.map((l) => l.session);
  if (ctx.cluster.shared && ids.length === 0) return;
  const em = ctx.db.unit(given);
  const where = ctx.cluster.shared ? { id: { $in: ids }, state: { $in: [...liveStates] } } : { state: { $in: [...liveStates] } };
  const rows = await em.find(SessionEntity, where);
  const now = Date.now();
  for (const row of rows) {
    const sender = left.find((l) => l.session === row.id);
    const reason = sender?.ended
      ? `ogserve stopped without ending its sender (pid ${sender.pid}), which its next start ended`
      : 'ogserve stopped during the session';
    await em.nativeUpdate(SessionEntity, { id: row.id }, { state: 'failed', reason, finishedAt: now });
    await em.nativeUpdate(SessionClientEntity, { sessionId: row.id, state: 'joined' }, { state: 'failed', reason, endedAt: now });
    await em.nativeUpdate(SessionClientEntity, { sessionId: row.id, state: 'expected' }, { state: 'missing', reason, endedAt: now });
  }
  if (rows.length > 0)
    ctx.log.warn(
      { sessions: rows.map((r) => r.id) },
      `${rows.length} multicast session(s) running when ogserve last stopped marked failed`,
    );
}

import { StartupError, definePlugin } from 'ogserve';
import { AgentCommands, AgentLink } from '../agents';
import { RestoreMethods } from '../images';
import type { ClientState } from './entities/session-client';
import { SessionClientEntity } from './entities/session-client';
import { type SessionState, SessionEntity } from './entities/session';
import { endLeftovers } from './leftover-sessions';
import { MulticastMetrics } from './metrics';
import { sessionRoutes } from './routes';
import { MulticastConfig } from './schemas';
import { MulticastSessions } from './sessions';

declare module 'ogserve' {
  interface EventMap {
    /** A session's sender started, began sending, or the session ended (done, failed, cancelled). */
    'multicast.session': {
      session: number;
      image: number;
      name: string;
      room: number;
      state: SessionState;
      reason: string;
      job: number | null;
      clients: string[];
      bytes: number;
      rate: number;
    };
    /** A PC's part in a session changed: joined, done, dropped ('timeout'), missing, cancelled, failed. */
    'multicast.client': { session: number; job: number | null; client: string; state: ClientState; reason: string; bytes: number };
  }
}

export { MulticastSessions } from './sessions';
export type { ClientState } from './entities/session-client';
export type { SessionState } from './entities/session';

/**
 * Multicast restores that ogserve runs and watches: `POST /image/restore` of type MULTICAST
 * starts one udp-sender per image and room on the room's network, reads what it says into
 * each PC's part (joined, bytes, dropped, done) on the restore's job, and ends its senders with
 * itself, and at its next start any a killed ogserve left. Off by default.
 */
export default definePlugin({
  name: 'multicast',
  requires: ['inventory', 'agents', 'images'],
  schemaVersion: 1,
  entities: [SessionEntity, SessionClientEntity],
  config: MulticastConfig,
  register(ctx) {
    const from = Number(ctx.config.ports.from);
    const to = Number(ctx.config.ports.to);
    if (to <= from) throw new StartupError(`multicast.ports: 'to' (${to}) must be above 'from' (${from}): each session takes two ports`);
    ctx.make(MulticastMetrics);
    const sessions = ctx.make(MulticastSessions);
    ctx.provide(MulticastSessions, sessions);
    ctx.use(RestoreMethods).add(sessions);
    ctx.onStart(() => endLeftovers(ctx));
    ctx.onStop(() => sessions.stop());
    sessionRoutes(ctx, sessions, ctx.use(AgentLink), ctx.use(AgentCommands));
  },
});

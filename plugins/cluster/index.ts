import { hostname } from 'node:os';
import { Type } from '@sinclair/typebox';
import { StartupError, definePlugin } from 'ogserve';
import { ClusterInstanceEntity, ClusterMessageEntity } from './entities';

/** GET /cluster. */
const ClusterAnswer = Type.Object({
  enabled: Type.Boolean(),
  instance: Type.String(),
  instances: Type.Array(Type.String()),
  roles: Type.Array(Type.String()),
});

/**
 * Several instances on one PostgreSQL database (`cluster.enabled`): they learn of each
 * other, pass messages and elect the one that runs once-only work, all through the
 * database they already share. Off by default: one instance needs none of it.
 */
export default definePlugin({
  name: 'cluster',
  entities: [ClusterInstanceEntity, ClusterMessageEntity],
  // Its instances and messages are the state of running processes, not of the site.
  backup: { transient: true },
  config: Type.Object(
    {
      enabled: Type.Boolean({ default: false }),
      /** This instance's name among the others; by default the host's name and the REST port. */
      instance: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,48}$' })),
      /** How often each instance says it is alive and checks the others. */
      heartbeat_s: Type.Number({ default: 1, exclusiveMinimum: 0, maximum: 60 }),
      /** An instance silent this long is gone (one killed outright is gone at once: its session ends). */
      expiry_s: Type.Number({ default: 5, exclusiveMinimum: 0, maximum: 600 }),
    },
    { additionalProperties: false },
  ),
  async register(ctx) {
    ctx.router.get(
      '/cluster',
      {
        permission: 'read',
        scoped: 'open',
        bodyPolicy: 'ignored',
        log: false,
        summary: 'this instance, the instances alive, and the once-only work this one does',
        response: ClusterAnswer,
      },
      () => ({ enabled: ctx.config.enabled, instance: ctx.cluster.self, instances: [...ctx.cluster.members()], roles: ctx.cluster.held() }),
    );
    if (!ctx.config.enabled) return;
    const { database } = ctx.settings;
    if (database.type !== 'postgresql')
      throw new StartupError(`cluster.enabled needs database.type 'postgresql' (it is '${database.type}')`);
    if (ctx.config.expiry_s <= ctx.config.heartbeat_s)
      throw new StartupError('cluster.expiry_s must be longer than cluster.heartbeat_s, or live instances would be taken for gone');
    // Two instances on one host differ by their REST port.
    const name = ctx.config.instance ?? `${hostname()}-${ctx.settings.rest.port}`.replace(/[^A-Za-z0-9._-]/g, '-').slice(-48);
    // Loaded only here: an instance on its own never needs the pg driver in memory.
    const { PgClusterBackend } = await import('./pg-backend.js');
    ctx.cluster.connect(
      new PgClusterBackend(
        {
          name,
          heartbeatMs: ctx.config.heartbeat_s * 1000,
          expiryMs: ctx.config.expiry_s * 1000,
          connection: {
            host: database.ip,
            port: Number(database.port),
            database: database.name,
            user: database.user,
            password: database.pass || undefined,
          },
        },
        ctx.log,
      ),
    );
  },
});

import { Type } from '@sinclair/typebox';
import { Counter, definePlugin, electedEvery } from 'ogserve';
import { AuditEntryEntity } from './entities/entry';
import { type EntryDetails, RequestDetails } from './entry-details';
import { pruneEntries } from './prune';
import { findEntries, parseAuditQuery } from './query';
import { type Action, AuditRecorder } from './recorder';
import { AuditPage } from './schemas';
import { auditTimeline } from './timeline';

declare module 'ogserve' {
  interface EventMap {
    /** An audited request, once its entry is in the database. */
    'audit.recorded': Omit<Action, 'time' | 'details'> & EntryDetails & { time: string };
  }
}

export type { AuditChange, AuditCommand, AuditDetails, AuditValue } from './details';

const hourMs = 60 * 60 * 1000;

/**
 * The audit log: every request that changes something or reaches an agent or the network
 * (routes marked `audit`, core/http/routes.ts) is kept with who sent it, from where, the
 * clients it named, its status and duration, never a secret, and what the plugins that served
 * it tell of it (`audit.details`: the fields a write changed, the job and PCs of a command).
 * Entries are written in batches off the request path; GET /audit reads them, newest first.
 */
export default definePlugin({
  name: 'audit',
  // 2: `details` (a nullable column: the schema update adds it, older entries keep null).
  schemaVersion: 2,
  entities: [AuditEntryEntity],
  config: Type.Object(
    {
      /** Entries older than this many days are deleted (0: kept for ever). */
      retention_days: Type.Integer({ minimum: 0, maximum: 36500, default: 365 }),
      /** How often queued entries are written. */
      flush_ms: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
      /** Entries kept in memory while the database cannot take them. */
      max_queued: Type.Integer({ minimum: 100, maximum: 10_000_000, default: 100_000 }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const written = new Counter({ name: 'ogserve_audit_entries_total', help: 'Audit entries written', registers: [ctx.metrics] });
    const dropped = new Counter({
      name: 'ogserve_audit_dropped_total',
      help: 'Audit entries dropped because the queue was full while the database could not take them',
      registers: [ctx.metrics],
    });
    const recorder = new AuditRecorder(ctx.db, { batch: 500, maxQueued: ctx.config.max_queued }, ctx.log, {
      written(actions) {
        written.inc(actions.length);
        for (const { time, details, ...action } of actions)
          void ctx.events.emit('audit.recorded', { ...action, ...details, time: time.toISOString() });
      },
      dropped: () => dropped.inc(),
    });
    // What the plugins serving a request tell of it waits for its entry (a listener that only
    // stores: the teller goes on at once).
    const told = new RequestDetails();
    ctx.events.on('audit.details', (details) => told.add(details), 'keep the details of an audit entry');
    auditTimeline(ctx.events, ctx.db);
    // Every request to a route marked `audit` (by default those that change something or
    // reach an agent or the network), refusals included: who, from where, what, which clients.
    ctx.hooks.onResponse(
      ({ route, req, access, clients, time, status, ms }) => {
        const details = told.take(req);
        if (!route?.audit) return;
        const address = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
        const path = (req.url ?? '').split('?')[0]!;
        recorder.record({ time, token: access?.name ?? '', address, method: route.method, path, clients, status, ms, details });
      },
      { global: true },
    );

    ctx.router.get(
      '/audit',
      {
        permission: 'admin',
        bodyPolicy: 'forbidden',
        response: AuditPage,
        // Each entry is also an event: a stream sends it only to a reader this route answers.
        events: ['audit.recorded'],
        summary: 'Audited requests, newest first: ?from=&to=&token=&client=&path=&before=&limit=',
      },
      async ({ query: params, em }) => {
        const query = parseAuditQuery(params);
        // What was answered just before this read is in the answer.
        await recorder.flush();
        return findEntries(em, query);
      },
    );

    let flushTimer: NodeJS.Timeout | undefined;
    ctx.onStart(() => {
      flushTimer = setInterval(() => void recorder.flush(), ctx.config.flush_ms);
      flushTimer.unref();
    });
    ctx.onStop(async () => {
      clearInterval(flushTimer);
      await recorder.flush();
    });
    // Of several instances, one prunes, at start and every hour.
    if (ctx.config.retention_days === 0) return;
    const stop = electedEvery(ctx.cluster, {
      role: 'audit-prune',
      everyMs: hourMs,
      log: ctx.log,
      failed: 'audit entries not pruned',
      async run() {
        const removed = await pruneEntries(ctx.db, ctx.config.retention_days, Date.now());
        if (removed > 0) ctx.log.info({ removed }, `audit entries older than ${ctx.config.retention_days} days deleted`);
      },
    });
    ctx.onStop(stop);
  },
});

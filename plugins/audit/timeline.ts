import type { Database, PluginEvents } from 'ogserve';
import type { TimelineEntry } from '../history';
import { findEntries } from './query';

/**
 * The audit log's part of a PC's timeline (the history plugin asks; neither requires the
 * other): each change made to the PC's record or settings, with who made it and what it
 * changed. A command sent to it is left to its job, and a wake to its wake run's job (the jobs
 * plugin says them, with their outcome); reads and refused requests are left out. Only callers who may read the audit log
 * (`admin`) are told.
 */
export function auditTimeline(events: Pick<PluginEvents, 'on'>, db: Database): void {
  events.on(
    'client.timeline',
    async (question) => {
      if (!question.permissions.has('admin')) return;
      const { entries } = await findEntries(db.fork(), {
        client: question.client.ip,
        clientId: question.client.id,
        to: question.before - 1,
        limit: question.limit * 2,
      });
      question.add(
        entries
          // A command is its job's entry, a wake its wake run's (a job too): not said twice.
          .filter((e) => e.method !== 'GET' && e.status !== null && e.status < 400 && !e.command && e.path !== '/wol')
          .slice(0, question.limit)
          .map(
            (e): TimelineEntry => ({
              time: e.time,
              kind: 'audit',
              summary: `${e.method} ${e.path}`,
              who: e.token,
              source: null,
              state: null,
              job: null,
              data: {
                method: e.method,
                path: e.path,
                changes: (e.changes ?? []).filter(
                  (c) => c.entity !== 'client' || c.name === question.client.name || c.id === question.client.id,
                ),
              },
            }),
          ),
      );
    },
    'add the changes made to the PC to its timeline',
  );
}

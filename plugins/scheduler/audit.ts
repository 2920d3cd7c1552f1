import type { AuditChange, AuditValue } from '../audit';
import type { PluginContext } from 'ogserve';

/** The scheduler's writes: the record each is about, and what it does to it. */
const writes: Record<string, { entity: string; does: 'add' | 'update' | 'delete' | 'run' }> = {
  '/procedure/add': { entity: 'procedure', does: 'add' },
  '/procedure/update': { entity: 'procedure', does: 'update' },
  '/procedure/delete': { entity: 'procedure', does: 'delete' },
  '/procedure/run': { entity: 'procedure', does: 'run' },
  '/task/add': { entity: 'task', does: 'add' },
  '/task/run': { entity: 'task', does: 'run' },
  '/schedule/create': { entity: 'schedule', does: 'add' },
  '/schedule/command': { entity: 'schedule', does: 'add' },
  '/schedule/update': { entity: 'schedule', does: 'update' },
  '/schedule/delete': { entity: 'schedule', does: 'delete' },
};

/** A body's value as the audit log keeps it: lists and sections as their JSON. */
const auditValue = (value: unknown): AuditValue =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value);

/** The record's id: what the write answered (`id`), else what it named. */
function idOf(body: Record<string, unknown>, result: unknown): number {
  const answered = (result as { id?: unknown } | undefined)?.id;
  for (const candidate of [answered, body.id, body.procedure, body.task])
    if (candidate !== undefined && Number.isSafeInteger(Number(candidate))) return Number(candidate);
  return 0;
}

/**
 * Each scheduler write tells the audit log what it did (nobody listens without the audit
 * plugin): an add or update its fields as sent, a delete the record it removed, a run the
 * clients it queued for. The audit log showed nothing under "What it did" for them.
 */
export function auditSchedulerWrites(ctx: Pick<PluginContext, 'hooks' | 'events'>): void {
  ctx.hooks.onSend(async ({ route, req, body }, result) => {
    const write = writes[route.path];
    if (!write) return;
    const sent = (body ?? {}) as Record<string, unknown>;
    const id = idOf(sent, result);
    const name = typeof sent.name === 'string' ? sent.name : undefined;
    const base = { entity: write.entity, id, ...(name ? { name } : {}) };
    let changes: AuditChange[];
    if (write.does === 'delete') changes = [{ ...base, field: 'id', before: id }];
    else if (write.does === 'run')
      changes = [{ ...base, field: 'run', after: Array.isArray(sent.clients) ? sent.clients.join(', ') : auditValue(sent.scope ?? null) }];
    else
      changes = Object.entries(sent)
        .filter(([field, value]) => value !== undefined && field !== 'id')
        .map(([field, value]) => ({ ...base, field, after: auditValue(value) }));
    if (changes.length > 0) await ctx.events.tell('audit.details', { req, changes });
  });
}

import type { IncomingMessage } from 'node:http';
import type { PluginEvents } from 'ogserve';
import type { AuditChange } from '../audit';
import type { GroupRecord } from './service';

/**
 * What a write of a group did, told to the audit log (nobody listens without the audit plugin):
 * the name and filter as they were and are, or the group deleted.
 */
export async function auditGroup(
  events: Pick<PluginEvents, 'tell'>,
  req: IncomingMessage,
  before: GroupRecord | null,
  after: GroupRecord | null,
): Promise<void> {
  const group = after ?? before;
  if (!group) return;
  const base = { entity: 'group', id: group.id, name: group.name };
  let changes: AuditChange[];
  if (!after) changes = [{ ...base, field: 'id', before: group.id }];
  else {
    const fields = { name: [before?.name, after.name], filter: [before && JSON.stringify(before.filter), JSON.stringify(after.filter)] };
    changes = Object.entries(fields)
      .filter(([, [was, is]]) => was !== is)
      .map(([field, [was, is]]) => ({ ...base, field, ...(was === undefined || was === null ? {} : { before: was }), after: is }));
  }
  if (changes.length > 0) await events.tell('audit.details', { req, changes });
}

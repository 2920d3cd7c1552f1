import { t, type MessageKey } from '../i18n';
import { href } from '../router';
import type { AuditEntry } from '../types';
import { kindLabel } from './jobWords';

type Change = NonNullable<AuditEntry['changes']>[number];

/** A value as a reader says it: a reference by its record's name, nothing as "(none)". */
function shown(value: Change['before']): string {
  if (value === null || value === '') return t('audit.empty');
  if (typeof value === 'object') return value.name;
  if (typeof value === 'boolean') return t(value ? 'yes' : 'no');
  return String(value);
}

/** The kinds of record the bundled plugins name; a plugin's own are shown as it names them. */
const entities: Record<string, MessageKey> = {
  client: 'audit.entity.client',
  room: 'audit.entity.room',
  center: 'audit.entity.center',
  folder: 'audit.entity.folder',
  repository: 'audit.entity.repository',
  server: 'audit.entity.server',
  user: 'audit.entity.user',
  procedure: 'audit.entity.procedure',
  task: 'audit.entity.task',
  schedule: 'audit.entity.schedule',
};

/** The record a change is of: "PC front-desk", "room Lab 1". */
function recordOf(change: Change): string {
  const key = entities[change.entity];
  return `${key ? t(key) : change.entity} ${change.name || change.id}`;
}

/** One change as a line: "room: Lab 1 → Lab 2"; of a record added or removed, its value alone. */
function changeLine(change: Change): string {
  if (!('before' in change)) return `${change.field}: ${shown(change.after ?? null)}`;
  if (!('after' in change)) return `${change.field}: ${shown(change.before ?? null)}`;
  return `${change.field}: ${shown(change.before ?? null)} → ${shown(change.after ?? null)}`;
}

/** "PC pc07 (added)" when the entry made the record, "(removed)" when it took it away. */
function heading(changes: Change[], path: string): string {
  const record = recordOf(changes[0]!);
  if (/\/update$/.test(path)) return record;
  if (changes.every((c) => !('before' in c))) return `${record} (${t('audit.added')})`;
  if (changes.every((c) => !('after' in c))) return `${record} (${t('audit.removed')})`;
  return record;
}

/** Records listed at once; past them, the list opens on demand. */
const shownRecords = 3;

/** What an audit entry did: the fields it changed, record by record, and the job of its command. */
export function AuditDetails({ entry }: { entry: AuditEntry }) {
  const records = new Map<string, Change[]>();
  for (const change of entry.changes ?? []) {
    const key = `${change.entity}:${change.id}`;
    records.set(key, [...(records.get(key) ?? []), change]);
  }
  const { command } = entry;
  const list = records.size > 0 && (
    <ul class="audit-changes">
      {[...records].map(([key, changes]) => (
        <li key={key} data-record={key}>
          <strong>{heading(changes, entry.path ?? '')}</strong>
          {changes.map((change) => (
            <span key={change.field} class="audit-change" data-field={change.field}>
              {changeLine(change)}
            </span>
          ))}
        </li>
      ))}
    </ul>
  );
  return (
    <div class="audit-details">
      {/* A write of many records (an import, a room's delete) opens on demand: the log stays readable. */}
      {records.size > shownRecords ? (
        <details>
          <summary>{t('audit.records', { count: records.size })}</summary>
          {list}
        </details>
      ) : (
        list
      )}
      {entry.changes_omitted !== undefined && <p class="hint">{t('audit.omitted', { count: entry.changes_omitted })}</p>}
      {entry.dry_run && <p class="hint">{t('audit.dryRun')}</p>}
      {command && (
        <p class="audit-command" title={command.clients.map((c) => c.name || c.ip).join(', ')}>
          {command.job !== null && (
            <a href={href('job', String(command.job))} class="job-link">
              {t('runs.job', { id: command.job })}
            </a>
          )}{' '}
          {t('audit.command', {
            kind: kindLabel(command.kind),
            // A few PCs by name; more by their number (the first 100 named in the title).
            pcs: command.count <= 3 ? command.clients.map((c) => c.name || c.ip).join(', ') : t('audit.pcCount', { count: command.count }),
          })}
        </p>
      )}
    </div>
  );
}

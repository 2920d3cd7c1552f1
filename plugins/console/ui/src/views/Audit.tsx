import { dateTime, siteMidnight, siteZone } from '../format';
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { AuditEntry } from '../types';
import { TableScroll } from '../components/TableScroll';
import { AuditDetails } from './AuditDetails';

const filterNames = ['token', 'client', 'path', 'from', 'to'] as const;
type Filters = Record<(typeof filterNames)[number], string>;

/**
 * The audit log (GET /audit): newest first, filtered by token, client or path, a page at a
 * time; each entry with what it changed and the job of its command.
 */
export function Audit() {
  const [filters, setFilters] = useState<Filters>({ token: '', client: '', path: '', from: '', to: '' });
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);

  const load = async (before?: number) => {
    setError(null);
    const query = new URLSearchParams();
    for (const name of ['token', 'client', 'path'] as const) if (filters[name].trim()) query.set(name, filters[name].trim());
    // Dates are days on the site's clock: from its first millisecond to its last.
    if (filters.from) query.set('from', String(siteMidnight(filters.from)));
    if (filters.to) query.set('to', String(siteMidnight(filters.to, 1) - 1));
    if (before !== undefined) query.set('before', String(before));
    try {
      const page = await get<{ entries: AuditEntry[]; next: number | null }>(`/audit?${query}`);
      setEntries(before === undefined ? page.entries : [...(entries ?? []), ...page.entries]);
      setNext(page.next);
    } catch (e) {
      setError(e as Error);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const labels: Filters = {
    token: t('audit.token'),
    client: t('audit.client'),
    path: t('audit.path'),
    from: t('history.from'),
    to: t('history.to'),
  };
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">{t('nav.audit')}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <div class="form-grid">
          {filterNames.map((name) => (
            <Field
              key={name}
              label={labels[name]}
              name={name}
              value={filters[name]}
              onInput={(v) => setFilters({ ...filters, [name]: v })}
              error={error}
              type={name === 'from' || name === 'to' ? 'date' : undefined}
              hint={name === 'from' && siteZone() ? t('zone.forms', { zone: siteZone()! }) : undefined}
            />
          ))}
        </div>
        <ErrorNote error={error && !filterNames.includes(error.field as 'token') ? error : null} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('audit.filter')}
          </button>
        </div>
      </form>
      {entries && entries.length === 0 && <p class="hint">{t('audit.none')}</p>}
      {entries && entries.length > 0 && (
        <TableScroll>
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t('audit.time')}</th>
                <th scope="col">{labels.token}</th>
                <th scope="col">{t('audit.address')}</th>
                <th scope="col">{t('audit.request')}</th>
                <th scope="col">{t('audit.clients')}</th>
                <th scope="col">{t('audit.status')}</th>
                <th scope="col">{t('audit.details')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id} data-audit={entry.id}>
                  <td>{dateTime(entry.time)}</td>
                  <td>{entry.token}</td>
                  <td>{entry.address}</td>
                  <td>
                    {entry.method} {entry.path}
                  </td>
                  <td title={entry.clients.join(', ')}>
                    {entry.clients.length > 3 ? t('audit.clientCount', { count: entry.clients.length }) : entry.clients.join(', ')}
                  </td>
                  <td>{entry.status ?? t('audit.aborted')}</td>
                  <td>
                    <AuditDetails entry={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {next !== null && (
        <div class="buttons">
          <button type="button" onClick={() => void load(next)}>
            {t('audit.older')}
          </button>
        </div>
      )}
    </section>
  );
}

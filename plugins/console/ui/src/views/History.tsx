import { dateTime } from '../format';
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { HistoryEntry } from '../types';
import { hardwareName } from '../hardwareNames';
import { TableScroll } from '../components/TableScroll';

const filterNames = ['kind', 'from', 'to'] as const;
type Filters = Record<(typeof filterNames)[number], string>;

/** A client's History tab (GET /client/history): what changed in its hardware and software, newest first, a page at a time. */
export function ClientHistory(props: { ip: string }) {
  const [filters, setFilters] = useState<Filters>({ kind: '', from: '', to: '' });
  const [changes, setChanges] = useState<HistoryEntry[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);

  const load = async (before?: number) => {
    setError(null);
    const query = new URLSearchParams({ client: props.ip });
    for (const name of filterNames) if (filters[name].trim()) query.set(name, filters[name].trim());
    if (before !== undefined) query.set('before', String(before));
    try {
      const page = await get<{ changes: HistoryEntry[]; next: number | null }>(`/client/history?${query}`);
      setChanges(before === undefined ? page.changes : [...(changes ?? []), ...page.changes]);
      setNext(page.next);
    } catch (e) {
      setError(e as Error);
    }
  };
  useEffect(() => {
    void load();
  }, [props.ip]);

  const what = (c: HistoryEntry) =>
    c.kind === 'hardware'
      ? hardwareName(c.type ?? c.type_name ?? '')
      : c.package
        ? t('history.package', { name: c.package, disk: c.disk ?? 0, partition: c.partition ?? 0 })
        : t('history.os', { disk: c.disk ?? 0, partition: c.partition ?? 0 });
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">{t('history.title')}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <div class="form-grid">
          <Field
            label={t('history.kind')}
            name="kind"
            value={filters.kind}
            onInput={(v) => setFilters({ ...filters, kind: v })}
            options={[
              { value: '', label: t('history.all') },
              { value: 'hardware', label: t('history.hardware') },
              { value: 'software', label: t('history.software') },
            ]}
            error={error}
          />
          <Field
            label={t('history.from')}
            name="from"
            value={filters.from}
            onInput={(v) => setFilters({ ...filters, from: v })}
            error={error}
          />
          <Field label={t('history.to')} name="to" value={filters.to} onInput={(v) => setFilters({ ...filters, to: v })} error={error} />
        </div>
        <p class="hint">{t('history.dates')}</p>
        <ErrorNote error={error && !filterNames.includes(error.field as 'kind') ? error : null} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('audit.filter')}
          </button>
        </div>
      </form>
      {changes && changes.length === 0 && <p class="hint">{t('history.none')}</p>}
      {changes && changes.length > 0 && (
        <TableScroll>
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t('audit.time')}</th>
                <th scope="col">{t('history.what')}</th>
                <th scope="col">{t('history.change')}</th>
                <th scope="col">{t('history.before')}</th>
                <th scope="col">{t('history.after')}</th>
                <th scope="col">{t('history.alerts')}</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((c) => (
                <tr key={c.id} data-change={c.id} class={c.alerts.length > 0 ? 'alert' : undefined}>
                  <td>{dateTime(c.time)}</td>
                  <td>{what(c)}</td>
                  <td>{t(`history.change.${c.change}` as 'history.change.added')}</td>
                  <td>{c.before ?? '—'}</td>
                  <td>{c.after ?? '—'}</td>
                  <td>{c.alerts.join(', ')}</td>
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

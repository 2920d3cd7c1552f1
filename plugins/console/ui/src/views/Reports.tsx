import { hardwareName } from '../hardwareNames';
import { useState } from 'preact/hooks';
import { download, get } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { t } from '../i18n';
import { href } from '../router';
import type { HardwareReport as Hardware, SoftwareReport as Software } from '../types';
import { useAsync } from '../useAsync';
import { TableScroll } from '../components/TableScroll';

const categories = ['cpu', 'memory', 'disk', 'firmware'] as const;

/** The Hardware page (GET /reports/hardware): PCs counted by CPU, memory, disk and firmware, by center or room, and its CSV. */
export function HardwareReport() {
  const [by, setBy] = useState<'center' | 'room'>('center');
  const report = useAsync(() => get<Hardware>(`/reports/hardware?by=${by}`), [by]);
  const [error, setError] = useState<unknown>(null);
  const value = report.value;
  const groups = value ? [...value.groups, { id: 0, name: t('reports.total'), ...value.total }] : [];
  return (
    <section aria-labelledby="hardware-report-title">
      <h1 id="hardware-report-title">{t('nav.hardware')}</h1>
      <div class="form-grid">
        <Field
          label={t('reports.by')}
          name="by"
          value={by}
          onInput={(v) => setBy(v === 'room' ? 'room' : 'center')}
          options={[
            { value: 'center', label: t('reports.byCenter') },
            { value: 'room', label: t('reports.byRoom') },
          ]}
        />
      </div>
      <div class="buttons">
        <button type="button" onClick={() => download(`/reports/hardware?by=${by}&format=csv`, `hardware-by-${by}.csv`).catch(setError)}>
          {t('reports.csv')}
        </button>
      </div>
      <ErrorNote error={report.error ?? error} />
      {value && value.total.reported === 0 && <p class="hint">{t('reports.noHardware')}</p>}
      {groups
        .filter((g) => g.reported > 0)
        .map((g) => (
          <TableScroll>
            <table class="grid report" key={g.id} data-group={g.id}>
              <caption>
                {g.name}
                {'center' in g && g.center ? ` (${g.center})` : ''} · {t('reports.reported', { reported: g.reported, clients: g.clients })}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{t('reports.category')}</th>
                  <th scope="col">{t('reports.value')}</th>
                  <th scope="col">{t('reports.count')}</th>
                </tr>
              </thead>
              <tbody>
                {categories.flatMap((category) =>
                  g[category].map((c, i) => (
                    <tr key={`${category}-${c.value}`}>
                      <th scope="row">{i === 0 ? hardwareName(value!.names[category]) : ''}</th>
                      <td>{c.value}</td>
                      <td>{c.count}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </TableScroll>
        ))}
    </section>
  );
}

/** The Software page (GET /reports/software): which PCs have which versions of a package, and its CSV. */
export function SoftwareReport() {
  const [name, setName] = useState('');
  const [report, setReport] = useState<Software | null>(null);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const search = async () => {
    setError(null);
    try {
      setReport(await get<Software>(`/reports/software?name=${encodeURIComponent(name.trim())}`));
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <section aria-labelledby="software-report-title">
      <h1 id="software-report-title">{t('nav.software')}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void search();
        }}
      >
        <div class="form-grid">
          <Field label={t('reports.package')} name="name" value={name} onInput={setName} error={error} />
        </div>
        <ErrorNote error={error && error.field !== 'name' ? error : null} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('reports.search')}
          </button>
          {report && report.packages.length > 0 && (
            <button
              type="button"
              onClick={() =>
                download(`/reports/software?name=${encodeURIComponent(report.name)}&format=csv`, `software-${report.name}.csv`).catch(
                  setError,
                )
              }
            >
              {t('reports.csv')}
            </button>
          )}
        </div>
      </form>
      {report && report.packages.length === 0 && <p class="hint">{t('reports.noPackage', { name: report.name })}</p>}
      {report && report.packages.length > 0 && (
        <>
          <p>{t('reports.pcs', { count: report.clients })}</p>
          <TableScroll>
            <table class="grid">
              <thead>
                <tr>
                  <th scope="col">{t('reports.package')}</th>
                  <th scope="col">{t('reports.version')}</th>
                  <th scope="col">{t('reports.count')}</th>
                  <th scope="col">{t('audit.clients')}</th>
                </tr>
              </thead>
              <tbody>
                {report.packages.map((p) => (
                  <tr key={`${p.name} ${p.version}`} data-package={`${p.name} ${p.version}`}>
                    <td>{p.name}</td>
                    <td>{p.version}</td>
                    <td>{p.count}</td>
                    <td>
                      {p.clients.map((c, i) => (
                        <span key={`${c.ip}-${c.disk}-${c.partition}`}>
                          {i > 0 ? ', ' : ''}
                          <a href={href('client', c.ip)}>{c.name}</a>
                        </span>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </section>
  );
}

import { get } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { humanBytes, humanDuration } from '../format';
import { type MessageKey, t } from '../i18n';

/** Bundled plugins with a page or a part in the console: one that is off is said to be there, and how to turn it on. */
const available = ['dhcp', 'scheduler', 'jobs', 'history', 'energy', 'power', 'boot', 'events'];
import { enabled, useServer } from '../plugins';
import { useAsync } from '../useAsync';
import { TableScroll } from '../components/TableScroll';

interface Stats {
  time: { now: number; boot: number; start: number };
  memory: { size: number; free: number };
  swap: { size: number; free: number };
}

/** The server: release, database, enabled plugins and their schema versions, and GET /stats. */
export function Server() {
  const info = useServer();
  const stats = useAsync(() => (enabled(info, 'stats') ? get<Stats>('/stats') : Promise.resolve(null)));
  const s = stats.value;
  // time.start is an epoch second, or (stats.start: uptime) already the seconds since.
  const uptime = s ? (s.time.start > 1e9 ? s.time.now - s.time.start : s.time.start) : 0;
  return (
    <section aria-labelledby="server-title">
      <h1 id="server-title">{t('nav.server')}</h1>
      {info && (
        <dl class="facts">
          <dt>{t('server.version')}</dt>
          <dd>{info.version}</dd>
          <dt>{t('server.database')}</dt>
          <dd>{info.database}</dd>
        </dl>
      )}
      <ErrorNote error={stats.error} />
      {s && (
        <>
          <h2>{t('server.stats')}</h2>
          <dl class="facts">
            <dt>{t('server.uptime')}</dt>
            <dd>{humanDuration(uptime)}</dd>
            <dt>{t('server.boot')}</dt>
            <dd>{humanDuration(s.time.boot)}</dd>
            <dt>{t('server.memory')}</dt>
            <dd>{t('server.freeOf', { free: humanBytes(s.memory.free), total: humanBytes(s.memory.size) })}</dd>
            <dt>{t('server.swap')}</dt>
            <dd>
              {s.swap.size ? t('server.freeOf', { free: humanBytes(s.swap.free), total: humanBytes(s.swap.size) }) : t('server.noSwap')}
            </dd>
          </dl>
        </>
      )}
      {info && (
        <>
          <h2>{t('server.plugins')}</h2>
          <TableScroll>
            <table class="grid">
              <thead>
                <tr>
                  <th scope="col">{t('server.plugin')}</th>
                  <th scope="col">{t('server.schema')}</th>
                </tr>
              </thead>
              <tbody>
                {info.plugins.map((p) => (
                  <tr key={p.name} data-plugin={p.name}>
                    <td>{p.name}</td>
                    <td>{info.schema[p.name] ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          {available.some((name) => !enabled(info, name)) && (
            <section aria-labelledby="available-title">
              <h2 id="available-title">{t('server.available')}</h2>
              <p class="hint">{t('server.availableHint')}</p>
              <ul class="available-plugins">
                {available
                  .filter((name) => !enabled(info, name))
                  .map((name) => (
                    <li key={name} data-available={name}>
                      <strong>{name}</strong>: {t(`server.plugin.${name}` as MessageKey)}
                    </li>
                  ))}
              </ul>
            </section>
          )}
        </>
      )}
    </section>
  );
}

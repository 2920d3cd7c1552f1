import { timeOfDay } from '../../format';
import { runs } from '../../fleet/runs';
import { href } from '../../router';
import { t } from '../../i18n';
import { useStore } from '../../store';
import { TableScroll } from '../../components/TableScroll';

const shownRows = 300;

/** What each recent action answered per client, and the result once it arrived. */
export function RunsPanel() {
  const list = useStore(runs);
  if (list.length === 0) return null;
  return (
    <section class="runs" aria-label={t('runs.title')}>
      <h2>{t('runs.title')}</h2>
      {list.map((run, index) => {
        const tally = new Map<string, number>();
        for (const row of run.rows) tally.set(row.outcome, (tally.get(row.outcome) ?? 0) + 1);
        return (
          <details key={run.id} open={index === 0} class="run" data-run={run.id}>
            <summary>
              <strong>{run.title}</strong> <time>{timeOfDay(run.started)}</time>{' '}
              {run.job !== undefined && (
                <a href={href('job', String(run.job))} class="job-link">
                  {t('runs.job', { id: run.job })}
                </a>
              )}{' '}
              {[...tally].map(([outcome, n]) => (
                <span key={outcome} class={`outcome outcome-${outcome}`}>
                  {t(`outcome.${outcome}` as 'outcome.sent')} {n}
                </span>
              ))}
            </summary>
            <TableScroll>
              <table class="grid">
                <thead>
                  <tr>
                    <th scope="col">{t('client.ip')}</th>
                    <th scope="col">{t('runs.outcome')}</th>
                    <th scope="col">{t('runs.result')}</th>
                  </tr>
                </thead>
                <tbody>
                  {run.rows.slice(0, shownRows).map((row) => (
                    <tr key={row.ip} data-ip={row.ip}>
                      <td>{row.ip}</td>
                      <td class={`outcome outcome-${row.outcome}`}>{t(`outcome.${row.outcome}` as 'outcome.sent')}</td>
                      <td class="result-cell">
                        {row.result ? (
                          <span class={`result result-${row.result}`}>
                            {t(`result.${row.result}` as 'result.success')}
                            {row.retcode !== undefined && ` (${t('shell.retcode', { code: row.retcode })})`}
                          </span>
                        ) : row.outcome === 'sent' && run.watch !== 'none' ? (
                          <span class="waiting">{t('runs.waiting')}</span>
                        ) : null}
                        {row.output !== undefined && <pre class="output">{row.output}</pre>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
            {run.rows.length > shownRows && <p class="hint">{t('runs.more', { count: run.rows.length - shownRows })}</p>}
          </details>
        );
      })}
    </section>
  );
}

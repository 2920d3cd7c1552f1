import { useState } from 'preact/hooks';
import { TableScroll } from '../../components/TableScroll';

/** Files of up to this many rows list every row; longer ones their refused rows, the others on demand. */
const listedAll = 50;
import { t } from '../../i18n';

/** One row of an import's answer (POST /client/import, or a dhcpd.conf's host with its MAC and room). */
export interface ImportRow {
  line: number;
  ip: string;
  name: string;
  mac?: string;
  room_name?: string;
  ok: boolean;
  field?: string;
  message?: string;
}
export interface ImportAnswer {
  rows: ImportRow[];
  added: number;
  refused: number;
  dry_run: boolean;
}

/**
 * Each row of a checked (or done) import by its line: taken, or refused with its field and
 * why. `hosts`: a dhcpd.conf's, shown with MAC and room; once imported the caption counts
 * what was added, since the hosts taken are added while the refused ones stay out.
 */
export function ImportRows(props: { answer: ImportAnswer; hosts: boolean }) {
  const { answer, hosts } = props;
  const [showAll, setShowAll] = useState(false);
  // A long file lists what needs a look (the refused rows); the accepted ones on demand.
  const long = answer.rows.length > listedAll;
  const rows = long && !showAll ? answer.rows.filter((row) => !row.ok) : answer.rows;
  const hidden = answer.rows.length - rows.length;
  return (
    <>
      <TableScroll>
        <table class="grid">
          <caption>
            {answer.dry_run || !hosts
              ? t('csvImport.rows', { ok: answer.rows.length - answer.refused, refused: answer.refused })
              : t('dhcpdImport.done', { added: answer.added, refused: answer.refused })}
          </caption>
          <thead>
            <tr>
              <th scope="col">{t('csvImport.line')}</th>
              <th scope="col">IP</th>
              <th scope="col">{t('field.name')}</th>
              {hosts && <th scope="col">MAC</th>}
              {hosts && <th scope="col">{t('dhcpdImport.room')}</th>}
              <th scope="col">{t('csvImport.check')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.line} data-line={row.line} class={row.ok ? '' : 'alert'}>
                <td>{row.line}</td>
                <td>{row.ip}</td>
                <td>{row.name}</td>
                {hosts && <td>{row.mac}</td>}
                {hosts && <td>{row.room_name ?? ''}</td>}
                <td>{row.ok ? t('csvImport.ok') : `${row.field ? `${row.field}: ` : ''}${row.message}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {hidden > 0 && (
        <p class="hint">
          {t('csvImport.hiddenRows', { count: hidden })}{' '}
          <button type="button" class="link" onClick={() => setShowAll(true)}>
            {t('csvImport.showRows')}
          </button>
        </p>
      )}
    </>
  );
}

import { useState } from 'preact/hooks';
import { ApiError, post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { TableScroll } from '../../components/TableScroll';
import { loadTree } from '../../fleet/fleet';
import { t } from '../../i18n';

interface ImportRow {
  line: number;
  ip: string;
  name: string;
  ok: boolean;
  field?: string;
  message?: string;
}
interface ImportAnswer {
  rows: ImportRow[];
  added: number;
  refused: number;
  dry_run: boolean;
}

/**
 * Clients from a CSV file (POST /client/import): checked first (a dry run lists every row,
 * refused ones with their field and why), then stored all at once; the server stores none
 * while any row is refused.
 */
export function CsvImport(props: { done(): void }) {
  const [csv, setCsv] = useState('');
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const result = await post<ImportAnswer>('/client/import', { csv, dry_run: dryRun });
      setAnswer(result);
      if (!dryRun) {
        await loadTree();
        props.done();
      }
    } catch (e) {
      // A refused import is a 400 that still lists every row.
      const refused = e instanceof ApiError ? (e.answer as ImportAnswer | undefined) : undefined;
      setAnswer(refused?.rows ? refused : null);
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const checked = answer?.dry_run && answer.refused === 0;
  return (
    <form
      class="csv-import"
      onSubmit={(e) => {
        e.preventDefault();
        void send(!checked);
      }}
    >
      <p class="hint">{t('csvImport.hint')}</p>
      <label class="field">
        <span>{t('csvImport.file')}</span>
        <input
          type="file"
          accept=".csv,text/csv"
          onChange={async (e) => {
            const file = e.currentTarget.files?.[0];
            if (file) {
              setCsv(await file.text());
              setAnswer(null);
            }
          }}
        />
      </label>
      <label class="field">
        <span>{t('csvImport.text')}</span>
        <textarea
          name="csv"
          rows={6}
          value={csv}
          onInput={(e) => {
            setCsv(e.currentTarget.value);
            setAnswer(null);
          }}
        />
      </label>
      <ErrorNote error={error} />
      {answer && (
        <TableScroll>
          <table class="grid">
            <caption>{t('csvImport.rows', { ok: answer.rows.length - answer.refused, refused: answer.refused })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('csvImport.line')}</th>
                <th scope="col">IP</th>
                <th scope="col">{t('field.name')}</th>
                <th scope="col">{t('csvImport.check')}</th>
              </tr>
            </thead>
            <tbody>
              {answer.rows.map((row) => (
                <tr key={row.line} data-line={row.line} class={row.ok ? '' : 'alert'}>
                  <td>{row.line}</td>
                  <td>{row.ip}</td>
                  <td>{row.name}</td>
                  <td>{row.ok ? t('csvImport.ok') : `${row.field ? `${row.field}: ` : ''}${row.message}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy || csv.trim() === ''}>
          {checked ? t('csvImport.store', { count: answer!.rows.length }) : t('csvImport.checkButton')}
        </button>
      </div>
    </form>
  );
}

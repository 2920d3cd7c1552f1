import { useState } from 'preact/hooks';
import { ApiError, post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { loadTree } from '../../fleet/fleet';
import { t } from '../../i18n';
import { type ImportAnswer, ImportRows } from './ImportRows';

/**
 * A text holding a `host NAME {` block is an ISC dhcpd.conf (as the inventory's
 * looksLikeDhcpdConf tells it; the browser bundle cannot import the plugin's module).
 */
const isDhcpdConf = (text: string): boolean => /(^|[\s{;])host\s+[^\s{;]+\s*\{/m.test(text);

/**
 * Clients from a CSV file (POST /client/import): checked first (a dry run lists every row,
 * refused ones with their field and why), then stored all at once; the server stores none
 * while any row is refused. A pasted or chosen ISC dhcpd.conf goes to POST
 * /client/import-dhcpd instead: each host in the room whose network holds its address, the
 * refused hosts left out and the others added.
 */
export function CsvImport(props: { done(added: number): void }) {
  const [csv, setCsv] = useState('');
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [adding, setAdding] = useState<{ count: number; since: number; seconds: number } | null>(null);
  const dhcpd = isDhcpdConf(csv);
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    // Adding thousands takes a while: the dialog says so, and how long it has been.
    let timer: ReturnType<typeof setInterval> | undefined;
    if (!dryRun && answer) {
      const since = Date.now();
      setAdding({ count: answer.added, since, seconds: 0 });
      timer = setInterval(() => setAdding({ count: answer.added, since, seconds: Math.round((Date.now() - since) / 1000) }), 1000);
    }
    try {
      const result = dhcpd
        ? await post<ImportAnswer>('/client/import-dhcpd', { conf: csv, dry_run: dryRun })
        : await post<ImportAnswer>('/client/import', { csv, dry_run: dryRun });
      setAnswer(result);
      if (!dryRun) {
        await loadTree();
        // Hosts refused stay listed: the dialog closes once every one was added, saying how many.
        if (result.refused === 0) props.done(result.added);
      }
    } catch (e) {
      // A refused import is a 400 that still lists every row.
      const refused = e instanceof ApiError ? (e.answer as ImportAnswer | undefined) : undefined;
      setAnswer(refused?.rows ? refused : null);
      setError(e as Error);
    } finally {
      clearInterval(timer);
      setAdding(null);
      setBusy(false);
    }
  };
  // A dhcpd.conf adds the hosts taken even when others are refused; a CSV file, all or none.
  const checked = answer?.dry_run && (dhcpd ? answer.added > 0 : answer.refused === 0);
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
          accept=".csv,text/csv,.conf,text/plain"
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
      {dhcpd && <p class="hint dhcpd-format">{t('dhcpdImport.format')}</p>}
      <ErrorNote error={error} />
      {answer && <ImportRows answer={answer} hosts={dhcpd} />}
      {adding && (
        <p role="status" class="import-progress">
          <progress aria-label={t('csvImport.adding', { count: adding.count, seconds: adding.seconds })} />{' '}
          {t('csvImport.adding', { count: adding.count, seconds: adding.seconds })}
        </p>
      )}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy || csv.trim() === ''}>
          {checked ? t('csvImport.store', { count: answer!.added }) : dhcpd ? t('dhcpdImport.checkButton') : t('csvImport.checkButton')}
        </button>
      </div>
    </form>
  );
}

import { useState } from 'preact/hooks';
import { post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { Field } from '../../components/Field';
import { loadTree } from '../../fleet/fleet';
import { t } from '../../i18n';
import { type ImportAnswer, ImportRows } from './ImportRows';

/**
 * A room's (or computer folder's) own import: pasted dhcpd `host` blocks, every host into
 * it, through POST /client/import-dhcpd (the server's dhcpd.conf parser and POST
 * /client/add's rules): checked first, each host listed with its outcome, then the hosts
 * taken are added at once and the refused ones stay listed.
 */
export function RoomDhcpdImport(props: { room: number; folder: number; done(): Promise<void> }) {
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const target = props.folder ? { room: props.room, folder_id: props.folder } : { room: props.room };
      setAnswer(await post<ImportAnswer>('/client/import-dhcpd', { conf: text, dry_run: dryRun, ...target }));
      if (!dryRun) await loadTree();
    } catch (e) {
      setAnswer(null);
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const checked = answer?.dry_run && answer.added > 0;
  const imported = answer && !answer.dry_run;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (imported) void props.done();
        else void send(!checked);
      }}
    >
      <Field
        label={t('import.paste')}
        name="dhcpd"
        value={text}
        onInput={(value) => {
          setText(value);
          setAnswer(null);
        }}
        multiline
        placeholder={'host pc01 { hardware ethernet 00:11:22:33:44:55; fixed-address 10.0.0.11; }'}
      />
      <ErrorNote error={error} />
      {answer && <ImportRows answer={answer} hosts />}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy || text.trim() === ''}>
          {imported ? t('close') : checked ? t('import.run', { count: answer.added }) : t('dhcpdImport.checkButton')}
        </button>
      </div>
    </form>
  );
}

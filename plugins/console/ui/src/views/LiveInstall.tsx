import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { LiveImage } from '../types';
import { useAsync } from '../useAsync';

/**
 * Install a live image from an ISO the server holds in its ISO folder (live.iso_dir): the
 * console names the file, the server unpacks and checks it (a 300 MB upload never goes
 * through the browser). `installed` hears of each image installed.
 */
export function LiveInstall(props: { installed: () => void }) {
  const isos = useAsync(() => get<{ isos: string[] }>('/live/isos'));
  const [iso, setIso] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const choices = isos.value?.isos ?? [];
  const chosen = iso || choices[0] || '';
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        setDone('');
        setBusy(true);
        try {
          const entry = await post<LiveImage>('/live/install', { iso: chosen, ...(name ? { name } : {}) });
          setDone(t('live.installed', { name: entry.directory }));
          setName('');
          props.installed();
        } catch (e) {
          setError(e as Error);
        } finally {
          setBusy(false);
        }
      }}
    >
      <fieldset>
        <legend>{t('live.install')}</legend>
        <ErrorNote error={isos.error} />
        {isos.value && choices.length === 0 ? (
          <p class="hint">{t('live.noIsos')}</p>
        ) : (
          <div class="form-grid">
            <Field label={t('live.isoFile')} name="iso" value={chosen} options={choices} onInput={setIso} error={error} required />
            <Field label={t('live.installName')} name="name" value={name} onInput={setName} error={error} placeholder="ogLive-…" />
          </div>
        )}
      </fieldset>
      <ErrorNote error={error && error.field !== 'iso' && error.field !== 'name' ? error : null} />
      {busy && <p role="status">{t('live.installing')}</p>}
      {done && <p role="status">{done}</p>}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy || choices.length === 0}>
          {t('live.installButton')}
        </button>
      </div>
    </form>
  );
}

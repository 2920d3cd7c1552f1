import { useState } from 'preact/hooks';
import { ApiError, get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { LiveImage } from '../types';
import { useAsync } from '../useAsync';
import { TableScroll } from '../components/TableScroll';
import { may, useServer } from '../plugins';
import { LiveInstall } from './LiveInstall';

const fieldNames = ['name', 'distribution', 'kernel', 'architecture', 'revision', 'iso'] as const;

/**
 * An installed image's folder is removed (refused for the default and for an image clients
 * boot, the server naming them); an entry only listed (POST /live/add) is unlisted.
 */
async function removeImage(name: string, installs: boolean): Promise<void> {
  if (installs && name.startsWith('ogLive-')) {
    try {
      await post('/live/remove', { name });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'unknown_id')) throw e;
    }
  }
  await post('/live/delete', { name });
}

/** Live images: the list with the default marked, install one from an ISO, make one the default, add an entry, remove one. */
export function Live() {
  const live = useAsync(() => get<{ live: LiveImage[]; default: number }>('/live/list'));
  const info = useServer();
  const installs = may(info, 'GET /live/isos', 'POST /live/install', 'POST /live/remove');
  const setsDefault = may(info, 'POST /live/default');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const labels: Record<(typeof fieldNames)[number], string> = {
    name: t('live.directory'),
    distribution: t('live.distribution'),
    kernel: t('live.kernel'),
    architecture: t('live.architecture'),
    revision: t('live.revision'),
    iso: t('live.iso'),
  };
  return (
    <section aria-labelledby="live-title">
      <h1 id="live-title">{t('nav.live')}</h1>
      <ErrorNote error={live.error ?? deleteError} />
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              {fieldNames.map((f) => (
                <th scope="col" key={f}>
                  {labels[f]}
                </th>
              ))}
              <th scope="col">
                <span class="sr-only">{t('actions.toolbar')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(live.value?.live ?? []).map((entry, i) => (
              <tr key={entry.directory} data-live={entry.directory}>
                <td>
                  {entry.directory} {i === live.value!.default && <span class="tag">{t('live.default')}</span>}
                </td>
                <td>{entry.distribution}</td>
                <td>{entry.kernel}</td>
                <td>{entry.architecture}</td>
                <td>{entry.revision}</td>
                <td>{entry.iso}</td>
                <td>
                  {setsDefault && i !== live.value!.default && (
                    <button
                      type="button"
                      aria-label={`${t('live.makeDefault')} ${entry.directory}`}
                      onClick={async () => {
                        setDeleteError(null);
                        try {
                          await post('/live/default', { name: entry.directory });
                          live.reload();
                        } catch (e) {
                          setDeleteError(e);
                        }
                      }}
                    >
                      {t('live.makeDefault')}
                    </button>
                  )}{' '}
                  <button
                    type="button"
                    class="danger-outline"
                    aria-label={`${t('node.delete')} ${entry.directory}`}
                    onClick={async () => {
                      setDeleteError(null);
                      try {
                        await removeImage(entry.directory, installs);
                        live.reload();
                      } catch (e) {
                        setDeleteError(e);
                      }
                    }}
                  >
                    {t('node.delete')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p class="hint">{t('live.defaultHint')}</p>
      {installs && <LiveInstall installed={live.reload} />}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            await post('/live/add', Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '')));
            setFields({});
            live.reload();
          } catch (e) {
            setError(e as Error);
          }
        }}
      >
        <fieldset>
          <legend>{t('live.add')}</legend>
          <div class="form-grid">
            {fieldNames.map((f) => (
              <Field
                key={f}
                label={labels[f]}
                name={f}
                value={fields[f] ?? ''}
                onInput={(v) => setFields({ ...fields, [f]: v })}
                error={error}
                required={f === 'name'}
              />
            ))}
          </div>
        </fieldset>
        <ErrorNote error={error && !fieldNames.includes(error.field as 'name') ? error : null} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('live.add')}
          </button>
        </div>
      </form>
    </section>
  );
}

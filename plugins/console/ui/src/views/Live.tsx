import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { LiveImage } from '../types';
import { useAsync } from '../useAsync';
import { TableScroll } from '../components/TableScroll';

const fieldNames = ['name', 'distribution', 'kernel', 'architecture', 'revision', 'iso'] as const;

/** Live images: the list with the default marked, add one, delete an added one. */
export function Live() {
  const live = useAsync(() => get<{ live: LiveImage[]; default: number }>('/live/list'));
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
                  <button
                    type="button"
                    class="danger-outline"
                    aria-label={`${t('node.delete')} ${entry.directory}`}
                    onClick={async () => {
                      setDeleteError(null);
                      try {
                        await post('/live/delete', { name: entry.directory });
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

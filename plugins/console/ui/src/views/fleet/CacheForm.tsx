import { useState } from 'preact/hooks';
import { get, post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { Field } from '../../components/Field';
import { addRun } from '../../fleet/runs';
import { humanBytes } from '../../format';
import { t } from '../../i18n';
import type { Image, Outcome, Repository } from '../../types';
import { useAsync } from '../../useAsync';
import type { FormProps } from './actionForms';

interface CacheEntry {
  ip: string;
  cache_size: number;
  used_size: number;
  free_size: number;
  images: { name: string; size: number; checksum: string }[];
}

/** The selected clients' caches: what each holds, delete images from them, fetch one into them. */
export function CacheForm(props: FormProps) {
  const caches = useAsync(() => get<{ clients: CacheEntry[] }>('/cache/list', { clients: props.clients }));
  const images = useAsync(() => get<{ images: Image[] }>('/images'));
  const repositories = useAsync(() => get<{ repositories: Repository[] }>('/repositories'));
  const [remove, setRemove] = useState<Set<string>>(new Set());
  const [fetchName, setFetchName] = useState('');
  const [repository, setRepository] = useState('');
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const cached = [...new Set((caches.value?.clients ?? []).flatMap((c) => c.images.map((i) => i.name)))].sort();
  const imageName = fetchName || images.value?.images[0]?.name || '';

  async function send(title: string, path: string, body: Record<string, unknown>): Promise<void> {
    setError(null);
    try {
      const answer = await post<{ clients: Outcome[] }>(path, { clients: props.clients, ...body });
      addRun(title, answer.clients, 'command');
      props.done();
    } catch (e) {
      setError(e as Error);
    }
  }

  return (
    <div class="cache">
      <ErrorNote error={caches.error ?? images.error} />
      <table class="grid">
        <caption>{t('cache.contents')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('client.ip')}</th>
            <th scope="col">{t('cache.size')}</th>
            <th scope="col">{t('cache.free')}</th>
            <th scope="col">{t('cache.images')}</th>
          </tr>
        </thead>
        <tbody>
          {(caches.value?.clients ?? []).map((c) => (
            <tr key={c.ip}>
              <td>{c.ip}</td>
              <td>{c.cache_size ? humanBytes(c.cache_size) : t('cache.none')}</td>
              <td>{c.cache_size ? humanBytes(c.free_size) : ''}</td>
              <td>{c.images.map((i) => `${i.name} (${humanBytes(i.size)})`).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {cached.length > 0 && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void send(t('cache.deleteTitle'), '/cache/delete', { images: [...remove] });
          }}
        >
          <fieldset>
            <legend>{t('cache.delete')}</legend>
            {cached.map((name) => (
              <label class="checkbox" key={name}>
                <input
                  type="checkbox"
                  checked={remove.has(name)}
                  onChange={(e) => {
                    const next = new Set(remove);
                    if (e.currentTarget.checked) next.add(name);
                    else next.delete(name);
                    setRemove(next);
                  }}
                />
                {name}
              </label>
            ))}
          </fieldset>
          <div class="buttons">
            <button type="submit" class="danger" disabled={remove.size === 0}>
              {t('cache.delete')}
            </button>
          </div>
        </form>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send(t('cache.fetchTitle', { name: imageName }), '/cache/fetch', {
            image: imageName,
            ...(repository ? { repository_id: Number(repository) } : {}),
          });
        }}
      >
        <fieldset>
          <legend>{t('cache.fetch')}</legend>
          <Field
            label={t('image.image')}
            name="image"
            value={imageName}
            onInput={setFetchName}
            options={(images.value?.images ?? []).map((i) => i.name)}
            error={error}
          />
          <Field
            label={t('image.repository')}
            name="repository_id"
            value={repository}
            onInput={setRepository}
            options={[
              { value: '', label: t('cache.ownRepository') },
              ...(repositories.value?.repositories ?? []).map((r) => ({ value: String(r.id), label: `${r.name} (${r.ip})` })),
            ]}
            error={error}
          />
        </fieldset>
        <ErrorNote error={error && !['image', 'repository_id'].includes(error.field ?? '') ? error : null} />
        <div class="buttons">
          <button type="submit" class="primary" disabled={!imageName}>
            {t('cache.fetch')}
          </button>
        </div>
      </form>
    </div>
  );
}

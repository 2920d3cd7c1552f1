import { useState } from 'preact/hooks';
import { api, get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { Repository } from '../types';
import { useAsync } from '../useAsync';
import { TableScroll } from '../components/TableScroll';

/** Addresses typed as a list ("10.0.0.5, 10.1.0.5"): one is sent as a string, several as an array. */
const addresses = (text: string) => {
  const list = text.split(/[\s,]+/).filter(Boolean);
  return list.length === 1 ? list[0] : list;
};

/** Image repositories and ogServer servers: list, add, edit (repositories), delete. */
export function Repositories() {
  const repositories = useAsync(() => get<{ repositories: Repository[] }>('/repositories'));
  const servers = useAsync(() => get<{ servers: { id: number; ip: string; port: number }[] }>('/server'));
  const [editing, setEditing] = useState<{ id: number; name: string; ip: string } | null>(null);
  const [repoError, setRepoError] = useState<{ field?: string; message: string } | null>(null);
  const [server, setServer] = useState({ ip: '', port: '' });
  const [serverError, setServerError] = useState<{ field?: string; message: string } | null>(null);
  const form = editing ?? { id: 0, name: '', ip: '' };
  const submitRepo = async () => {
    setRepoError(null);
    try {
      if (form.id) await post('/repository/update', { repo_id: form.id, name: form.name, ip: addresses(form.ip) });
      else await post('/repository/add', { name: form.name, ip: addresses(form.ip) });
      setEditing(null);
      repositories.reload();
    } catch (e) {
      setRepoError(e as Error);
    }
  };
  return (
    <section aria-labelledby="repos-title">
      <h1 id="repos-title">{t('nav.repositories')}</h1>
      <ErrorNote error={repositories.error} />
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">{t('field.name')}</th>
              <th scope="col">{t('repos.addresses')}</th>
              <th scope="col">
                <span class="sr-only">{t('actions.toolbar')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(repositories.value?.repositories ?? []).map((r) => (
              <tr key={r.id} data-repository={r.name}>
                <td>{r.id}</td>
                <td>{r.name}</td>
                <td>{(r.addresses ?? [r.ip]).join(', ')}</td>
                <td class="row-actions">
                  <button type="button" onClick={() => setEditing({ id: r.id, name: r.name, ip: (r.addresses ?? [r.ip]).join(', ') })}>
                    {t('node.edit')}
                  </button>
                  <button
                    type="button"
                    class="danger-outline"
                    onClick={async () => {
                      setRepoError(null);
                      try {
                        await post('/repository/delete', { id: r.id });
                        repositories.reload();
                      } catch (e) {
                        setRepoError(e as Error);
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
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submitRepo();
        }}
      >
        <fieldset>
          <legend>{form.id ? t('repos.edit', { name: form.name }) : t('repos.add')}</legend>
          <div class="form-grid">
            <Field
              label={t('field.name')}
              name="name"
              value={form.name}
              onInput={(v) => setEditing({ ...form, name: v })}
              error={repoError}
              required
            />
            <Field
              label={t('repos.addresses')}
              name="ip"
              value={form.ip}
              onInput={(v) => setEditing({ ...form, ip: v })}
              error={repoError?.field?.startsWith('ip') ? { ...repoError, field: 'ip' } : repoError}
              required
              hint={t('repos.addressesHint')}
            />
          </div>
        </fieldset>
        <ErrorNote
          error={repoError && !['name'].includes(repoError.field ?? '') && !repoError.field?.startsWith('ip') ? repoError : null}
        />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('save')}
          </button>
          {form.id > 0 && (
            <button type="button" onClick={() => setEditing(null)}>
              {t('cancel')}
            </button>
          )}
        </div>
      </form>

      <h2>{t('repos.servers')}</h2>
      <ErrorNote error={servers.error} />
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">{t('client.ip')}</th>
              <th scope="col">{t('repos.port')}</th>
              <th scope="col">
                <span class="sr-only">{t('actions.toolbar')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(servers.value?.servers ?? []).map((s) => (
              <tr key={s.id} data-server={s.ip}>
                <td>{s.id}</td>
                <td>{s.ip}</td>
                <td>{s.port}</td>
                <td>
                  <button
                    type="button"
                    class="danger-outline"
                    onClick={async () => {
                      setServerError(null);
                      try {
                        await api('DELETE', '/server', { id: s.id });
                        servers.reload();
                      } catch (e) {
                        setServerError(e as Error);
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
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setServerError(null);
          try {
            await post('/server', { ip: server.ip, ...(server.port ? { port: Number(server.port) } : {}) });
            setServer({ ip: '', port: '' });
            servers.reload();
          } catch (error) {
            setServerError(error as Error);
          }
        }}
      >
        <fieldset>
          <legend>{t('repos.addServer')}</legend>
          <div class="form-grid">
            <Field
              label={t('client.ip')}
              name="ip"
              value={server.ip}
              onInput={(v) => setServer({ ...server, ip: v })}
              error={serverError}
              required
            />
            <Field
              label={t('repos.port')}
              name="port"
              value={server.port}
              onInput={(v) => setServer({ ...server, port: v })}
              error={serverError}
              placeholder="2008"
            />
          </div>
        </fieldset>
        <ErrorNote error={serverError && !['ip', 'port'].includes(serverError.field ?? '') ? serverError : null} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('repos.addServer')}
          </button>
        </div>
      </form>
    </section>
  );
}

import { dateTime } from '../format';
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { t } from '../i18n';
import type { User } from '../types';
import { useAsync } from '../useAsync';
import { AddUser } from './users/AddUser';
import { RemoveUser, SetPassword } from './users/UserDialogs';
import { EditUser } from './users/EditUser';
import { scopeNames } from '../components/ScopePicker';
import { fleet } from '../fleet/fleet';
import { useStore } from '../store';
import { TableScroll } from '../components/TableScroll';

/** Local users (admins only): the list, disable or enable, a new password, remove, and add one. */
export function Users() {
  const users = useAsync(() => get<{ users: User[] }>('/users'));
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [dialog, setDialog] = useState<{ kind: 'password' | 'remove' | 'edit'; username: string } | null>(null);
  const { model } = useStore(fleet);
  const done = (message: string) => {
    setDialog(null);
    setError(null);
    setStatus(message);
    users.reload();
  };
  async function toggle(user: User): Promise<void> {
    setError(null);
    try {
      await post(user.disabled ? '/users/enable' : '/users/disable', { username: user.username });
      done(t(user.disabled ? 'users.enabled' : 'users.disabled', { username: user.username }));
    } catch (e) {
      setError(e);
    }
  }
  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title">{t('nav.users')}</h1>
      <p class="hint">{t('users.intro')}</p>
      <ErrorNote error={users.error ?? error} />
      <p role="status" class="saved">
        {status}
      </p>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('users.username')}</th>
              <th scope="col">{t('users.role')}</th>
              <th scope="col">{t('users.scope')}</th>
              <th scope="col">{t('users.shell')}</th>
              <th scope="col">{t('users.state')}</th>
              <th scope="col">{t('users.passwordChanged')}</th>
              <th scope="col">
                <span class="sr-only">{t('actions.toolbar')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(users.value?.users ?? []).map((user) => (
              <tr key={user.username} data-user={user.username}>
                <td>{user.username}</td>
                <td>{user.role}</td>
                <td data-scope>{scopeNames(model, user.centers, user.rooms, t('users.wholeFleet'))}</td>
                <td>{user.shell ? t('yes') : t('no')}</td>
                <td>{user.disabled ? t('users.isDisabled') : t('users.isActive')}</td>
                <td>{dateTime(user.password_changed)}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    aria-label={`${t('users.edit')} ${user.username}`}
                    onClick={() => setDialog({ kind: 'edit', username: user.username })}
                  >
                    {t('users.edit')}
                  </button>
                  <button
                    type="button"
                    aria-label={`${t(user.disabled ? 'users.enable' : 'users.disable')} ${user.username}`}
                    onClick={() => void toggle(user)}
                  >
                    {t(user.disabled ? 'users.enable' : 'users.disable')}
                  </button>
                  <button
                    type="button"
                    aria-label={`${t('users.setPassword')} ${user.username}`}
                    onClick={() => setDialog({ kind: 'password', username: user.username })}
                  >
                    {t('users.setPassword')}
                  </button>
                  <button
                    type="button"
                    class="danger-outline"
                    aria-label={`${t('remove')} ${user.username}`}
                    onClick={() => setDialog({ kind: 'remove', username: user.username })}
                  >
                    {t('remove')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {users.value?.users.length === 0 && <p class="hint">{t('users.none')}</p>}
      {dialog?.kind === 'password' && (
        <SetPassword
          username={dialog.username}
          onClose={() => setDialog(null)}
          onDone={() => done(t('users.passwordSet', { username: dialog.username }))}
        />
      )}
      {dialog?.kind === 'edit' && (
        <EditUser
          user={users.value!.users.find((u) => u.username === dialog.username)!}
          onClose={() => setDialog(null)}
          onDone={() => done(t('users.edited', { username: dialog.username }))}
        />
      )}
      {dialog?.kind === 'remove' && (
        <RemoveUser
          username={dialog.username}
          onClose={() => setDialog(null)}
          onDone={() => done(t('users.removed', { username: dialog.username }))}
        />
      )}
      <AddUser onAdded={(username) => done(t('users.added', { username }))} />
    </section>
  );
}

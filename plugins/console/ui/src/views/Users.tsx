import { dateTime } from '../format';
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { t } from '../i18n';
import type { User } from '../types';
import { useAsync } from '../useAsync';
import { AddUser } from './users/AddUser';
import { RemoveUser, SetPassword } from './users/UserDialogs';
import { TableScroll } from '../components/TableScroll';

/** What an empty list of centers or rooms means: the whole fleet when both are empty, else none of them. */
const wholeOr = (user: User, none: string) => (user.centers.length + user.rooms.length === 0 ? t('users.all') : none);

/** Local users (admins only): the list, disable or enable, a new password, remove, and add one. */
export function Users() {
  const users = useAsync(() => get<{ users: User[] }>('/users'));
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [dialog, setDialog] = useState<{ kind: 'password' | 'remove'; username: string } | null>(null);
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
              <th scope="col">{t('users.centers')}</th>
              <th scope="col">{t('users.rooms')}</th>
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
                <td>{user.centers.join(', ') || wholeOr(user, t('none'))}</td>
                <td>{user.rooms.join(', ') || wholeOr(user, t('none'))}</td>
                <td>{user.shell ? t('yes') : t('no')}</td>
                <td>{user.disabled ? t('users.isDisabled') : t('users.isActive')}</td>
                <td>{dateTime(user.password_changed)}</td>
                <td class="row-actions">
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

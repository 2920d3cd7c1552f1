import { useState } from 'preact/hooks';
import { api, post } from '../../api';
import { Dialog } from '../../components/Dialog';
import { ErrorNote } from '../../components/ErrorNote';
import { Field } from '../../components/Field';
import { t } from '../../i18n';
import { problemOf } from './userFields';

interface DialogProps {
  username: string;
  onClose(): void;
  onDone(): void;
}

/** POST /users/password: a new password (the user's sessions end), refused under the field. */
export function SetPassword(props: DialogProps) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const problem = problemOf(error);
  return (
    <Dialog title={t('users.setPasswordOf', { username: props.username })} onClose={props.onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            await post('/users/password', { username: props.username, password });
            props.onDone();
          } catch (e) {
            setError(e);
          }
        }}
      >
        <Field
          label={t('users.newPassword')}
          name="password"
          type="password"
          autocomplete="new-password"
          value={password}
          onInput={setPassword}
          required
          error={problem}
        />
        <p class="hint">{t('users.sessionsEnd')}</p>
        <ErrorNote error={problem?.field === 'password' ? null : error} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('users.setPassword')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** DELETE /users, once the admin has read what it means. */
export function RemoveUser(props: DialogProps) {
  const [error, setError] = useState<unknown>(null);
  return (
    <Dialog title={t('users.removeUser', { username: props.username })} onClose={props.onClose}>
      <p class="warning">{t('users.confirmRemove', { username: props.username })}</p>
      <ErrorNote error={error} />
      <div class="buttons">
        <button
          type="button"
          class="danger"
          onClick={async () => {
            try {
              await api('DELETE', '/users', { username: props.username });
              props.onDone();
            } catch (e) {
              setError(e);
            }
          }}
        >
          {t('remove')}
        </button>
      </div>
    </Dialog>
  );
}

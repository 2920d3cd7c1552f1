import { useState } from 'preact/hooks';
import { post } from '../../api';
import { Dialog } from '../../components/Dialog';
import { ErrorNote } from '../../components/ErrorNote';
import { Checkbox, Field } from '../../components/Field';
import { ScopePicker } from '../../components/ScopePicker';
import { t } from '../../i18n';
import type { User } from '../../types';
import { roles } from './AddUser';
import { problemOf } from './userFields';

/** POST /users/update: a user's role, shell right and centers and rooms, picked by name (their sessions end). */
export function EditUser(props: { user: User; onClose(): void; onDone(): void }) {
  const { user } = props;
  const [role, setRole] = useState(user.role);
  const [shell, setShell] = useState(user.shell);
  const [scope, setScope] = useState({ centers: user.centers, rooms: user.rooms });
  const [error, setError] = useState<unknown>(null);
  const problem = problemOf(error);
  return (
    <Dialog title={t('users.editUser', { username: user.username })} onClose={props.onClose} wide>
      <form
        class="edit-user"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            await post('/users/update', { username: user.username, role, shell, ...scope });
            props.onDone();
          } catch (e) {
            setError(e);
          }
        }}
      >
        <Field label={t('users.role')} name="role" value={role} onInput={setRole} options={roles} error={problem} />
        <Checkbox label={t('users.shellLong')} name="shell" checked={shell} onChange={setShell} />
        <ScopePicker
          legend={t('users.scope')}
          hint={t('users.scopeHint')}
          centers={scope.centers}
          rooms={scope.rooms}
          onChange={(centers, rooms) => setScope({ centers, rooms })}
          error={problem}
        />
        <p class="hint">{t('users.editHint')}</p>
        <ErrorNote error={problem && !['role', 'centers', 'rooms'].includes(problem.field ?? '') ? error : null} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

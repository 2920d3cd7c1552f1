import { useState } from 'preact/hooks';
import { post } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { Checkbox, Field } from '../../components/Field';
import { ScopePicker } from '../../components/ScopePicker';
import { t } from '../../i18n';
import { problemOf } from './userFields';

export const roles = ['reader', 'operator', 'imager', 'admin'];
const empty = { username: '', password: '', role: 'operator' };
const named = ['username', 'password', 'role', 'centers', 'rooms'];

/** POST /users: a new local user, limited to centers and rooms picked by name, with the API's refusal under the field it names. */
export function AddUser(props: { onAdded(username: string): void }) {
  const [fields, setFields] = useState(empty);
  const [scope, setScope] = useState<{ centers: number[]; rooms: number[] }>({ centers: [], rooms: [] });
  const [shell, setShell] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const problem = problemOf(error);
  const set = (name: keyof typeof empty) => (value: string) => {
    setFields({ ...fields, [name]: value });
    // An admin runs commands unless told otherwise: the one who sets the site up needs to.
    if (name === 'role') setShell(value === 'admin' ? true : shell);
  };
  const field = (name: keyof typeof empty, label: string, extra: Record<string, unknown> = {}) => (
    <Field label={label} name={name} value={fields[name]} onInput={set(name)} error={problem} {...extra} />
  );
  return (
    <form
      class="add-user"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          const { username, password, role } = fields;
          await post('/users', { username, password, role, ...scope, shell });
          setFields(empty);
          setScope({ centers: [], rooms: [] });
          setShell(false);
          props.onAdded(username);
        } catch (e) {
          setError(e);
        }
      }}
    >
      <fieldset>
        <legend>{t('users.add')}</legend>
        <div class="form-grid">
          {field('username', t('users.username'), { required: true, autocomplete: 'off' })}
          {field('password', t('users.password'), { required: true, type: 'password', autocomplete: 'new-password' })}
          {field('role', t('users.role'), { options: roles })}
        </div>
        <Checkbox label={t('users.shellLong')} name="shell" checked={shell} onChange={setShell} />
        <ScopePicker
          legend={t('users.scope')}
          hint={t('users.scopeHint')}
          centers={scope.centers}
          rooms={scope.rooms}
          onChange={(centers, rooms) => setScope({ centers, rooms })}
          error={problem}
        />
      </fieldset>
      <ErrorNote error={problem && !named.includes(problem.field ?? '') ? error : null} />
      <div class="buttons">
        <button type="submit" class="primary">
          {t('users.add')}
        </button>
      </div>
    </form>
  );
}

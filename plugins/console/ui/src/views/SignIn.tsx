import { useState } from 'preact/hooks';
import { ApiError, api, session } from '../api';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { VersionInfo } from '../types';
import { LanguageSwitch } from './LanguageSwitch';

/** The API key (or a token) typed once; it is checked with GET /version before it is kept. */
export function SignIn(props: { message: string; onSignedIn(info: VersionInfo): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(): Promise<void> {
    setBusy(true);
    setError('');
    try {
      const info = await api<VersionInfo>('GET', '/version', undefined, key);
      session.signIn(key);
      props.onSignedIn(info);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? t('signin.wrongKey') : (e as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <main class="signin">
      <div class="signin-box">
        <div class="signin-head">
          <h1>{t('app.name')}</h1>
          <LanguageSwitch />
        </div>
        <p>{t('signin.intro')}</p>
        {props.message && (
          <p class="error-note" role="alert">
            {props.message}
          </p>
        )}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Field
            label={t('signin.key')}
            name="key"
            type="password"
            value={key}
            onInput={setKey}
            required
            error={error ? { field: 'key', message: error } : null}
          />
          <div class="buttons">
            <button type="submit" class="primary" disabled={busy || !key}>
              {t('signin.submit')}
            </button>
          </div>
        </form>
      </div>
    </main>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { signInWays, signInWithKey, signInWithPassword, signInWithProvider } from '../account';
import { ApiError } from '../api';
import { Field } from '../components/Field';
import { t } from '../i18n';
import type { SignInWays } from '../types';
import { LanguageSwitch } from './LanguageSwitch';

type Way = 'password' | 'key';
/** The way chosen last (never what was typed): a server without the auth plugin takes only keys. */
const wayName = 'ogserve.signin-way';

/** What a refused sign-in says: the server's reason in the console's language, under its field when it names one. */
function refusal(e: unknown, way: Way): { field?: string; message: string } {
  if (!(e instanceof ApiError)) return { message: (e as Error).message };
  if (e.status === 0) return { message: t('unreachable', { message: e.message }) };
  if (way === 'key') return { field: 'key', message: e.status === 401 ? t('signin.wrongKey') : e.message };
  // A wrong password, or a server without the auth plugin (whose answer asks for the key).
  if (e.status === 401) return { message: t('signin.notSignedIn', { message: e.message }) };
  if (e.status === 403) return { message: t('signin.refused', { message: e.message }) };
  if (e.status === 429) return { message: t('signin.tooMany', { seconds: e.retryAfter ?? '?' }) };
  if (e.code === 'directory_unavailable') return { message: t('signin.directoryDown', { message: e.message }) };
  if (e.code === 'busy') return { message: t('signin.busy') };
  return { field: e.field, message: e.message };
}

/** A button for each OpenID provider: the browser goes there, and comes back to the console signed in or told why not. */
function Providers(props: { providers: SignInWays['providers'] }) {
  const [leaving, setLeaving] = useState(false);
  if (props.providers.length === 0) return null;
  return (
    <>
      <div class="signin-providers">
        {props.providers.map((p) => (
          <button
            key={p.name}
            type="button"
            class="primary"
            data-provider={p.name}
            disabled={leaving}
            onClick={() => {
              setLeaving(true);
              signInWithProvider(p.name);
            }}
          >
            {t('signin.withProvider', { label: p.label })}
          </button>
        ))}
      </div>
      <p class="signin-or">{t('signin.or')}</p>
    </>
  );
}

/**
 * An OpenID provider's button for each the server lists, a person's user name and password
 * (by default), or the API key; a password or key is checked before the console opens. A
 * server without the auth plugin takes only the key.
 */
export function SignIn(props: { message: string; onSignedIn(): void }) {
  const [ways, setWays] = useState<SignInWays | null>(null);
  const [chosen, setWay] = useState<Way>(localStorage.getItem(wayName) === 'key' ? 'key' : 'password');
  const way: Way = ways && !ways.password ? 'key' : chosen;
  const [fields, setFields] = useState({ username: '', password: '', key: '' });
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let shown = true;
    void signInWays().then((w) => shown && setWays(w));
    return () => {
      shown = false;
    };
  }, []);
  const choose = (next: Way) => {
    localStorage.setItem(wayName, next);
    setWay(next);
    setError(null);
  };
  const set = (name: keyof typeof fields) => (value: string) => setFields({ ...fields, [name]: value });
  async function submit(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      if (way === 'key') await signInWithKey(fields.key);
      else await signInWithPassword(fields.username, fields.password);
      props.onSignedIn();
    } catch (e) {
      setError(refusal(e, way));
    } finally {
      setBusy(false);
    }
  }
  // An error naming none of the fields shown is said below them.
  const shown = way === 'key' ? ['key'] : ['username', 'password'];
  const general = error && !shown.includes(error.field ?? '') ? error.message : '';
  return (
    <main class="signin">
      <div class="signin-box">
        <div class="signin-head">
          <h1>{t('app.name')}</h1>
          <LanguageSwitch />
        </div>
        {props.message && (
          <p class="error-note" role="alert">
            {props.message}
          </p>
        )}
        {/* Until GET /auth/providers answers, the ways to offer are not known. */}
        {!ways ? (
          <p class="loading">{t('loading')}</p>
        ) : (
          <>
            <Providers providers={ways.providers} />
            {ways.password && (
              <fieldset class="signin-way">
                <legend>{t('signin.way')}</legend>
                {(['password', 'key'] as const).map((w) => (
                  <label key={w} class="checkbox">
                    <input type="radio" name="way" value={w} checked={way === w} onChange={() => choose(w)} />
                    {t(w === 'password' ? 'signin.byPassword' : 'signin.byKey')}
                  </label>
                ))}
              </fieldset>
            )}
            <p>{t(way === 'password' ? 'signin.introPassword' : 'signin.intro')}</p>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void submit();
              }}
            >
              {way === 'password' ? (
                <>
                  <Field
                    label={t('signin.username')}
                    name="username"
                    value={fields.username}
                    onInput={set('username')}
                    required
                    autocomplete="username"
                    error={error}
                  />
                  <Field
                    label={t('signin.password')}
                    name="password"
                    type="password"
                    value={fields.password}
                    onInput={set('password')}
                    required
                    autocomplete="current-password"
                    error={error}
                  />
                </>
              ) : (
                <Field label={t('signin.key')} name="key" type="password" value={fields.key} onInput={set('key')} required error={error} />
              )}
              {general && (
                <p class="error-note" role="alert">
                  {general}
                </p>
              )}
              <div class="buttons">
                <button
                  type="submit"
                  class="primary"
                  disabled={busy || (way === 'key' ? !fields.key : !fields.username || !fields.password)}
                >
                  {t('signin.submit')}
                </button>
              </div>
            </form>
          </>
        )}
      </div>
    </main>
  );
}

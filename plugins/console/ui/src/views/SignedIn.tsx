import { me, signOut } from '../account';
import { t } from '../i18n';
import { useServer } from '../plugins';
import { useStore } from '../store';

/**
 * The header's end: who is signed in ("ana (operator)", "jdoe@campus (operator)", "api_token
 * (admin)") and the way out. A local user by their user name; a person of a directory or an
 * OpenID provider as the audit log names them, since a local `jdoe` is someone else.
 */
export function SignedIn(props: { onSignedOut(): void }) {
  const who = useStore(me);
  const info = useServer();
  return (
    <div class="signed-in">
      {info?.timeZone && (
        <span class="site-zone" data-zone={info.timeZone} title={t('header.zoneTitle')}>
          {t('header.zone', { zone: info.timeZone })}
        </span>
      )}
      {who && (
        <span class="who" data-who={who.name}>
          {t('signedInAs', { name: who.source === 'local' && who.username ? who.username : who.name, role: who.role })}
        </span>
      )}
      <button
        type="button"
        class="signout"
        onClick={async () => {
          await signOut();
          props.onSignedOut();
        }}
      >
        {t('signout')}
      </button>
    </div>
  );
}

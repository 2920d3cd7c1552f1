import { type Lang, languages, setLang, t, useLang } from '../i18n';

export function LanguageSwitch() {
  const current = useLang();
  return (
    <label class="lang">
      <span class="sr-only">{t('language')}</span>
      <select value={current} onChange={(e) => setLang(e.currentTarget.value as Lang)} aria-label={t('language')}>
        {Object.entries(languages).map(([code, name]) => (
          <option key={code} value={code} lang={code}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

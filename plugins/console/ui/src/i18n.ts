import { useStore } from './store';
import { Store } from './store';
import { en, es, type Messages } from './messages';

export type Lang = 'en' | 'es';
export const languages: Record<Lang, string> = { en: 'English', es: 'Español' };
const catalogs: Record<Lang, Messages> = { en, es };
const storageKey = 'ogserve.lang';

/** The user's earlier choice, else the first of the browser's languages we speak, else English. */
function initialLang(): Lang {
  const saved = localStorage.getItem(storageKey);
  if (saved === 'en' || saved === 'es') return saved;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.slice(0, 2).toLowerCase();
    if (base === 'en' || base === 'es') return base;
  }
  return 'en';
}

export const lang = new Store<Lang>(initialLang());
document.documentElement.lang = lang.value;

export function setLang(next: Lang): void {
  localStorage.setItem(storageKey, next);
  document.documentElement.lang = next;
  lang.set(next);
}

export type MessageKey = keyof Messages;

/** The message in the current language, with {name} placeholders filled in. */
export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  return catalogs[lang.value][key].replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? `{${name}}`));
}

/** A plugin's title in the current language: one string, or one per language. */
export function localized(title: string | Record<string, string>): string {
  return typeof title === 'string' ? title : (title[lang.value] ?? title.en ?? Object.values(title)[0] ?? '');
}

export const useLang = () => useStore(lang);

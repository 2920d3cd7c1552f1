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

/**
 * The message in the current language, with {name} placeholders filled in. A message written
 * 'one form|other form' is counted: `vars.count` picks the form.
 */
export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  let text: string = catalogs[lang.value][key];
  // 'one form|other form': the first for a count the language says 'one' of ("1 client").
  const bar = text.indexOf('|');
  if (bar >= 0) text = vars.count !== undefined && countsAsOne(Number(vars.count)) ? text.slice(0, bar) : text.slice(bar + 1);
  return text.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? `{${name}}`));
}

const pluralRules = new Map<Lang, Intl.PluralRules>();
function countsAsOne(count: number): boolean {
  let rules = pluralRules.get(lang.value);
  if (!rules) pluralRules.set(lang.value, (rules = new Intl.PluralRules(lang.value)));
  return rules.select(count) === 'one';
}

/** A plugin's title in the current language: one string, or one per language. */
export function localized(title: string | Record<string, string>): string {
  return typeof title === 'string' ? title : (title[lang.value] ?? title.en ?? Object.values(title)[0] ?? '');
}

export const useLang = () => useStore(lang);

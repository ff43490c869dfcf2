// The message catalog: every user-facing string, in English and Brazilian
// Portuguese (one file per language in ./locales). The app follows the
// system locale and has a switch.

export type Locale = 'en' | 'pt-BR';

import { en } from './locales/en';
import { ptBR } from './locales/pt-BR';

export type MessageKey = keyof typeof en;

export const catalogs: Record<Locale, Record<MessageKey, string>> = { en, 'pt-BR': ptBR };

/** The locale for a BCP 47 tag: Portuguese goes to pt-BR, the rest to English. */
export function pickLocale(tag: string | undefined): Locale {
  return tag && tag.toLowerCase().startsWith('pt') ? 'pt-BR' : 'en';
}

/** A message that depends on a count `{n}`. It has one key per plural
 *  category of `Intl.PluralRules` that its languages tell apart (`.one`,
 *  `.other`; pt-BR's `many` reads as `other`), so no message spells
 *  "issue(s)". */
export type PluralKey = { [K in MessageKey]: K extends `${infer Base}.other` ? Base : never }[MessageKey];

const pluralRules = new Map<Locale, Intl.PluralRules>();

/** The catalog key of plural message `key` for `count` in `locale`. */
function pluralForm(locale: Locale, key: PluralKey, count: number): MessageKey {
  let rules = pluralRules.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    pluralRules.set(locale, rules);
  }
  const form = `${key}.${rules.select(count)}`;
  return form in en ? (form as MessageKey) : `${key}.other`;
}

const numberFormats = new Map<Locale, Intl.NumberFormat>();

/** A number as the locale writes it: `32,000` in English, `32.000` in
 *  Portuguese. */
export function formatNumber(locale: Locale, value: number): string {
  let f = numberFormats.get(locale);
  if (!f) {
    f = new Intl.NumberFormat(locale);
    numberFormats.set(locale, f);
  }
  return f.format(value);
}

/** Formats a message, replacing `{name}` with params. A plural message
 *  picks its form by `params.n`. Number params are written in the locale's
 *  digits grouping; pass a string for what must stay verbatim (ids). */
export function format(locale: Locale, key: MessageKey | PluralKey, params: Record<string, string | number> = {}): string {
  const id = key in en ? (key as MessageKey) : pluralForm(locale, key as PluralKey, Number(params.n));
  const template = catalogs[locale][id] ?? en[id];
  return template.replace(/\{(\w+)\}/g, (m, name: string) => {
    if (!(name in params)) return m;
    const v = params[name];
    return typeof v === 'number' ? formatNumber(locale, v) : v;
  });
}

/** The native menu's labels in `locale`, by menu id (see src-tauri/src/menu.rs). */
export function menuLabels(locale: Locale): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(catalogs[locale])) {
    if (key.startsWith('menu.')) out[key.slice('menu.'.length)] = value;
  }
  return out;
}

/** The native file dialogs' titles and filter names in `locale`, by
 *  catalog key (`dialog.*`; see src-tauri/src/dialogs.rs). */
export function dialogLabels(locale: Locale): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(catalogs[locale])) {
    if (key.startsWith('dialog.')) out[key] = value;
  }
  return out;
}

// Numbers and dates shown to the user are written the way the UI's
// language writes them (`1,234` in English, `1.234` in Portuguese). Counts
// reach the screen through the catalog (`t` formats number params) or
// `num`, both from `getI18n()`; this keeps a component from printing a raw
// count or a date in the system's locale instead of the UI's.
import { describe, expect, it } from 'vitest';
import { format, formatNumber } from './i18n';

const components = import.meta.glob(['../**/*.svelte'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** A count printed as it is: `{x.tokens}` in markup or `${x.tokens}` in a
 *  template string (an attribute such as `value={x.order}` is a number
 *  for the control, not text). */
const RAW_COUNT = /(?<!=)\$?\{[\w.?]+\.(tokens|order|priority|used|limit|budget|count|total|entries|messages|requests|percent|context|cap)\}/g;
/** A date or number formatted without naming the UI's locale. */
const SYSTEM_LOCALE = /\.toLocale(String|DateString|TimeString)\(\s*\)|\.toFixed\(/g;

function unformatted(text: string): string[] {
  const markup = text.replace(/<style>[\s\S]*?<\/style>/g, '');
  return [...markup.matchAll(RAW_COUNT), ...markup.matchAll(SYSTEM_LOCALE)]
    .map((m) => m[0])
    .filter((m) => !/data-/.test(m));
}

describe('numbers and dates in the UI language', () => {
  it('finds raw counts and system-locale formatting (the check itself)', () => {
    expect(unformatted('<span>{r.tokens} tok</span>')).toEqual(['{r.tokens}']);
    expect(unformatted("tokens: `${approx}${i.tokens}`")).toEqual(['${i.tokens}']);
    expect(unformatted('{new Date(x).toLocaleString()}')).toEqual(['.toLocaleString()']);
    expect(unformatted('<span>{num(r.tokens)}</span>{t("a", { n: r.count })}')).toEqual([]);
    expect(unformatted('<input value={e.order} max={p.requests} />')).toEqual([]);
  });

  it('no component prints a raw count or formats in the system locale', () => {
    const all = Object.entries(components);
    expect(all.length).toBeGreaterThan(10);
    const found = all.flatMap(([file, text]) => unformatted(text).map((m) => `${file}: ${m}`));
    expect(found).toEqual([]);
  });

  it('writes counts with the locale grouping in both languages', () => {
    expect(formatNumber('en', 32000)).toBe('32,000');
    expect(formatNumber('pt-BR', 32000)).toBe('32.000');
    const place = { tokens: formatNumber('pt-BR', 1234), order: 1000, priority: 50 };
    expect(format('pt-BR', 'preview.place', place)).toBe('1.234 tok · ordem 1.000 · prioridade 50');
    expect(format('en', 'preview.place', { tokens: formatNumber('en', 1234), order: 1000, priority: 50 })).toBe(
      '1,234 tok · order 1,000 · priority 50',
    );
    expect(format('pt-BR', 'preview.segTokens', { n: 1 })).toBe('1 token');
    expect(format('pt-BR', 'preview.segTokens', { n: 2500 })).toBe('2.500 tokens');
  });

  it('writes dates in the UI language, not the system one', () => {
    const when = new Date(Date.UTC(2026, 0, 31, 12, 0, 0));
    const en = when.toLocaleString('en', { timeZone: 'UTC' });
    const pt = when.toLocaleString('pt-BR', { timeZone: 'UTC' });
    expect(pt).toMatch(/^31\/01\/2026/);
    expect(en).not.toBe(pt);
    // The recovery dialog, the one place a date is shown, names the locale.
    const recovery = Object.entries(components).find(([f]) => f.endsWith('RecoveryDialog.svelte'))?.[1] ?? '';
    expect(recovery).toMatch(/toLocaleString\(i18n\.locale\)/);
  });
});

// WCAG AA contrast of the theme tokens in app.css, in the light and the
// dark theme: every pair of colours the components draw text with (and the
// borders that alone mark a text field) is computed from the CSS variables
// themselves, so a new colour that reads badly fails here.
import { describe, expect, it } from 'vitest';

// The stylesheet as text (a plain `?raw` import of CSS is empty under Vitest).
const appCss = Object.values(import.meta.glob('../app.css', { query: '?raw', import: 'default', eager: true }) as Record<string, string>)[0];

type Rgb = [number, number, number];
type Theme = Record<string, string>;

/** The custom properties declared in the block that starts at `selector`. */
function block(css: string, selector: string): Theme {
  const at = css.indexOf(`${selector} {`);
  if (at < 0) throw new Error(`no ${selector} block in app.css`);
  const body = css.slice(at + selector.length + 2, css.indexOf('}', at));
  const vars: Theme = {};
  for (const m of body.matchAll(/--([\w-]+)\s*:\s*([^;]+);/g)) vars[m[1]] = m[2].trim();
  return vars;
}

const light = block(appCss, ':root');
const darkClass = block(appCss, ':root.dark');
const darkSystem = block(appCss, ':root:not(.light)');
const themes: Record<string, Theme> = { light, dark: { ...light, ...darkClass } };

function hex(value: string): Rgb {
  const m = /^#([0-9a-f]{6})$/i.exec(value);
  if (!m) throw new Error(`not a #rrggbb colour: ${value}`);
  const n = parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** A colour of `theme`: `var(--name)`, a `--name`, a hex value or
 *  `color-mix(in srgb, A p%, B)`. */
function color(theme: Theme, value: string): Rgb {
  const v = value.trim();
  const mix = /^color-mix\(in srgb,\s*(.+?)\s+(\d+)%,\s*(.+)\)$/.exec(v);
  if (mix) {
    const a = color(theme, mix[1]);
    const b = color(theme, mix[3]);
    const p = Number(mix[2]) / 100;
    return [0, 1, 2].map((i) => Math.round(a[i] * p + b[i] * (1 - p))) as Rgb;
  }
  const name = /^var\(--([\w-]+)\)$/.exec(v)?.[1] ?? (v.startsWith('--') ? v.slice(2) : null);
  if (name !== null) {
    const found = theme[name];
    if (found === undefined) throw new Error(`no --${name}`);
    return color(theme, found);
  }
  return hex(v);
}

function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The WCAG contrast ratio of two colours. */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const surfaces = ['--bg', '--panel', '--panel-2'];

// Text: 4.5:1 (WCAG 1.4.3). Each colour below is drawn as text on every
// surface (labels, help, links, badges, severities).
const textOnSurfaces = ['--text', '--muted', '--accent', '--ok', '--warn', '--bad', '--deco-text'];
// Text on the fills the components draw behind it.
const textOnFills: [string, string, string][] = [
  ['--accent-text', '--accent', 'a primary button'],
  ['--deco-text', '--deco', 'a decorator chip'],
  ['--text', '--mark', 'a highlighted match'],
  ['--text', 'color-mix(in srgb, var(--accent) 18%, var(--panel))', 'the selected entry row (EntryList)'],
  ['--muted', 'color-mix(in srgb, var(--accent) 18%, var(--panel))', 'the keys of the selected row'],
  ['--text', 'color-mix(in srgb, var(--bad) 15%, var(--panel))', 'the error banner (App)'],
];
// Non-text: 3:1 (WCAG 1.4.11) for what alone shows a control or the focus.
const uiOnSurfaces = ['--control-border', '--accent'];

describe('theme contrast (WCAG AA)', () => {
  it('computes contrast as WCAG does (the check itself)', () => {
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrast([255, 255, 255], [255, 255, 255])).toBe(1);
    // #767676 on white is the classic just-passing grey.
    expect(contrast(hex('#767676'), hex('#ffffff'))).toBeGreaterThan(4.5);
    expect(contrast(hex('#777777'), hex('#ffffff'))).toBeLessThan(4.5);
    expect(color({ a: '#ff0000', b: '#0000ff' }, 'color-mix(in srgb, var(--a) 50%, var(--b))')).toEqual([128, 0, 128]);
  });

  it('defines the dark theme once: the system preference and the switch agree', () => {
    expect(darkSystem).toEqual(darkClass);
  });

  for (const [name, theme] of Object.entries(themes)) {
    it(`text reads at 4.5:1 or more in the ${name} theme`, () => {
      const failures: string[] = [];
      for (const fg of textOnSurfaces) {
        for (const bg of surfaces) {
          const r = contrast(color(theme, fg), color(theme, bg));
          if (r < 4.5) failures.push(`${fg} on ${bg}: ${r.toFixed(2)}`);
        }
      }
      for (const [fg, bg, what] of textOnFills) {
        const r = contrast(color(theme, fg), color(theme, bg));
        if (r < 4.5) failures.push(`${fg} on ${what}: ${r.toFixed(2)}`);
      }
      expect(failures).toEqual([]);
    });

    it(`field borders and the focus ring stand out at 3:1 in the ${name} theme`, () => {
      const failures: string[] = [];
      for (const fg of uiOnSurfaces) {
        for (const bg of surfaces) {
          const r = contrast(color(theme, fg), color(theme, bg));
          if (r < 3) failures.push(`${fg} on ${bg}: ${r.toFixed(2)}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('gives text fields the control border and the focus ring the accent', () => {
    expect(appCss).toMatch(/input, select, textarea \{[^}]*border: 1px solid var\(--control-border\)/);
    expect(appCss).toMatch(/:focus-visible \{ outline: 2px solid var\(--accent\)/);
  });
});

// The UI's one spacing scale, type scale and set of radii (app.css's
// `--space-*`, `--text-*`, `--radius-*`): every style rule uses them, so a
// new component cannot drift into its own sizes.
import { describe, expect, it } from 'vitest';

// Every component and stylesheet under src/, as text.
const sources = import.meta.glob(['../**/*.svelte', '../**/*.css'], { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>;

/** The CSS of a file: a component's `<style>` blocks, or a stylesheet
 *  without its `:root` token definitions. */
function css(file: string, text: string): string {
  if (file.endsWith('.svelte')) return [...text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]).join('\n');
  return text.replace(/--(space|text|radius)-[a-z0-9]+\s*:[^;]*;/g, '');
}

/** Declarations of spacing, font size and radius written in raw pixels
 *  (0 and 1 px, hairlines, are allowed). */
function offScale(text: string): string[] {
  const found: string[] = [];
  const decl = /(?<![-\w])(gap|row-gap|column-gap|padding(?:-[a-z]+)?|margin(?:-[a-z]+)?|font-size|font|border-radius)\s*:\s*([^;}]*)/g;
  for (const m of text.matchAll(decl)) {
    const raw = [...m[2].matchAll(/(\d+(?:\.\d+)?)px/g)].map((p) => Number(p[1]));
    if (raw.some((n) => n > 1)) found.push(`${m[1]}: ${m[2].trim()}`);
  }
  return found;
}

describe('design tokens', () => {
  it('finds raw pixel sizes (the check itself)', () => {
    expect(offScale('.a { padding: 3px 6px; gap: var(--space-2); }')).toEqual(['padding: 3px 6px']);
    expect(offScale('.a { font: 12px/1.4 monospace; border: 1px solid; margin: 1px 0; }')).toEqual(['font: 12px/1.4 monospace']);
    expect(offScale('.a { border-radius: var(--radius-md); margin-left: auto; }')).toEqual([]);
  });

  it('every component and stylesheet uses the scales', () => {
    const all = Object.entries(sources);
    expect(all.length).toBeGreaterThan(10);
    expect(all.some(([f]) => f.endsWith('app.css'))).toBe(true);
    const off = all.flatMap(([f, text]) => offScale(css(f, text)).map((d) => `${f}: ${d}`));
    expect(off).toEqual([]);
  });
});

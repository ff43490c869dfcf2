import { describe, expect, it } from 'vitest';
import { trimSame, wordDiff } from './wordDiff';

const join = (parts: { kind: string; text: string }[], kinds: string[]) =>
  parts.filter((p) => kinds.includes(p.kind)).map((p) => p.text).join('');

describe('wordDiff', () => {
  it('marks only the word that changed in a paragraph', () => {
    const before = 'The harbor is quiet at night, and the harbor master sleeps.';
    const after = 'The port is quiet at night, and the harbor master sleeps.';
    const parts = wordDiff(before, after);
    expect(parts.filter((p) => p.kind === 'del')).toEqual([{ kind: 'del', text: 'harbor' }]);
    expect(parts.filter((p) => p.kind === 'ins')).toEqual([{ kind: 'ins', text: 'port' }]);
    // Both texts come back whole from their parts.
    expect(join(parts, ['same', 'del'])).toBe(before);
    expect(join(parts, ['same', 'ins'])).toBe(after);
  });

  it('keeps every replacement of a word apart, each deletion before its insertion', () => {
    const parts = wordDiff('fog, fog and more fog', 'mist, mist and more mist');
    expect(parts.map((p) => p.kind)).toEqual(['del', 'ins', 'same', 'del', 'ins', 'same', 'del', 'ins']);
    expect(join(parts, ['same', 'ins'])).toBe('mist, mist and more mist');
  });

  it('handles words added or removed, empty texts and texts in any script', () => {
    expect(wordDiff('', 'new')).toEqual([{ kind: 'ins', text: 'new' }]);
    expect(wordDiff('old', '')).toEqual([{ kind: 'del', text: 'old' }]);
    const parts = wordDiff('Olá, mundo azul', 'Olá, mundo muito azul');
    expect(parts.filter((p) => p.kind !== 'same')).toEqual([{ kind: 'ins', text: 'muito ' }]);
  });

  it('compares a huge changed middle as one deletion and one insertion, at once', () => {
    const a = Array.from({ length: 2000 }, (_, i) => `a${i}`).join(' ');
    const b = Array.from({ length: 2000 }, (_, i) => `b${i}`).join(' ');
    const parts = wordDiff(a, b);
    expect(join(parts, ['same', 'del'])).toBe(a);
    expect(join(parts, ['same', 'ins'])).toBe(b);
  });

  it('shortens long unchanged text around the changes', () => {
    const long = 'x'.repeat(300);
    const parts = trimSame(wordDiff(`${long} old ${long}`, `${long} new ${long}`), 20);
    expect(parts[0].text).toBe('…' + ' '.repeat(0) + 'x'.repeat(19) + ' ');
    expect(parts[parts.length - 1].text.endsWith('…')).toBe(true);
    expect(parts.find((p) => p.kind === 'del')?.text).toBe('old');
  });
});

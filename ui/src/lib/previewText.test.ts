import { describe, expect, it } from 'vitest';
import { dropText, entryName, sourceText } from './previewText';
import { format, type Locale } from './i18n';
import { applyPrompt, nameMap } from './preview.svelte';
import type { KeyMatch, PreviewView, PromptMessage } from './bindings';

const view = {
  names: [
    { book: 0, id: 7, name: 'Lighthouse' },
    { book: 1, id: 7, name: 'Other book' },
    { book: 0, id: 8, name: '' },
  ],
  sources: [
    { source: { kind: 'message', index: 3 }, text: 'message four' },
    { source: { kind: 'entry', book: 1, id: 7 }, text: 'a body' },
  ],
} as unknown as PreviewView;

const at = (source: KeyMatch['source']) => ({ key: 'k', source, start: 0, end: 1, pass: 0 }) as KeyMatch;

describe('preview wording', () => {
  it('names entries by book and id, falling back to the id', () => {
    const names = nameMap(view);
    expect(entryName(names, 0, 7)).toBe('Lighthouse');
    expect(entryName(names, 1, 7)).toBe('Other book');
    expect(entryName(names, 0, 8)).toBe('#8');
    expect(entryName(names, 2, 1)).toBe('#1');
  });

  it('finds the text a match points into among the view’s sources only', () => {
    expect(sourceText(view, at({ kind: 'message', index: 3 }))).toBe('message four');
    expect(sourceText(view, at({ kind: 'entry', book: 1, id: 7 }))).toBe('a body');
    expect(sourceText(view, at({ kind: 'entry', book: 0, id: 7 }))).toBe('');
    expect(sourceText(view, at({ kind: 'message', index: 0 }))).toBe('');
    expect(sourceText(null, at({ kind: 'message', index: 3 }))).toBe('');
  });
});

describe('drop reasons', () => {
  const t = (locale: Locale) => (key: Parameters<typeof format>[1], params = {}) => format(locale, key, params);
  const noMatch = (gave_up: string | null, recursion_stopped = false) =>
    ({ kind: 'no_match', recursion_stopped, no_keys: false, gave_up }) as const;
  it('name the key the scan gave up on, in both languages', () => {
    expect(dropText(t('en'), noMatch('/\\bдракон\\b/'))).toContain('gave up on key “/\\bдракон\\b/”');
    expect(dropText(t('pt-BR'), noMatch('aaa'))).toContain('desistiu da chave “aaa”');
    expect(dropText(t('en'), noMatch(null))).toBe('No key matched');
    // Issue 43: a budget drop after the first cut names the entry the
    // budget stopped at, instead of "needs 42 tokens, 198 left" alone.
    const budget = { kind: 'budget', needed: 42, left: 198, activation: { kind: 'constant' } } as unknown as Parameters<typeof dropText>[1];
    expect(dropText(t('en'), budget)).toBe('Budget: needs 42 tokens, 198 left');
    expect(dropText(t('en'), budget, 'Wise')).toContain('cut after “Wise” did not fit');
    expect(dropText(t('pt-BR'), budget, 'Wise')).toContain('“Wise” não coube');
    expect(dropText(t('en'), noMatch(null, true))).toContain('last recursion pass');
  });
});

describe('prompt patches', () => {
  const m = (content: string) => ({ role: 'user', content, origin: { kind: 'chat' } }) as unknown as PromptMessage;
  it('rebuild the prompt from the messages kept at both ends', () => {
    const held = ['a', 'b', 'c', 'd'].map(m);
    const next = applyPrompt(held, { rev: 2, base: 1, keep_head: 1, keep_tail: 2, middle: [m('B'), m('B2')] });
    expect(next.map((x) => x.content)).toEqual(['a', 'B', 'B2', 'c', 'd']);
  });

  it('take a whole prompt as it is', () => {
    const next = applyPrompt([m('old')], { rev: 3, base: null, keep_head: 0, keep_tail: 0, middle: [m('new')] });
    expect(next.map((x) => x.content)).toEqual(['new']);
  });
});

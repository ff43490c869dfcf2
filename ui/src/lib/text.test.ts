import { describe, expect, it } from 'vitest';
import { byteToIndex, completeDecorator, contentLines, excerpt, highlight, keyRange, splice, typedDecorator } from './text';

describe('byte offsets', () => {
  it('maps UTF-8 bytes to UTF-16 indices', () => {
    expect(byteToIndex('abc', 2)).toBe(2);
    expect(byteToIndex('é moon', 3)).toBe(2); // é is 2 bytes, 1 unit
    expect(byteToIndex('東京 moon', 7)).toBe(3); // 東, 京 are 3 bytes each
    expect(byteToIndex('😀x', 4)).toBe(2); // a surrogate pair is 4 bytes, 2 units
    expect(byteToIndex('ab', 99)).toBe(2);
  });

  it('highlights the matched range as text segments', () => {
    expect(highlight('the moon rises', 4, 8)).toEqual([
      { text: 'the ', mark: false },
      { text: 'moon', mark: true },
      { text: ' rises', mark: false },
    ]);
    expect(highlight('東京タワー', 0, 6)).toEqual([
      { text: '東京', mark: true },
      { text: 'タワー', mark: false },
    ]);
  });

  it('keeps markup as plain text', () => {
    const segs = highlight('<img src=x onerror=alert(1)> moon', 29, 33);
    expect(segs[0].text).toBe('<img src=x onerror=alert(1)> ');
    expect(segs[1]).toEqual({ text: 'moon', mark: true });
  });

  it('cuts long texts around the match', () => {
    const text = 'a'.repeat(100) + 'moon' + 'b'.repeat(100);
    const segs = excerpt(text, 100, 104, 10);
    expect(segs.map((s) => s.text)).toEqual(['…' + 'a'.repeat(10), 'moon', 'b'.repeat(10) + '…']);
  });
});

describe('content lines', () => {
  it('marks the decorator block', () => {
    expect(contentLines('@@keep\n@@order 3\nBody\nmore', 2)).toEqual([
      { text: '@@keep', decorator: true },
      { text: '@@order 3', decorator: true },
      { text: 'Body', decorator: false },
      { text: 'more', decorator: false },
    ]);
    expect(contentLines('Body', 0)).toEqual([{ text: 'Body', decorator: false }]);
  });

  it('finds and completes the decorator being typed', () => {
    expect(typedDecorator('Body\n@@pro', 10)).toBe('pro');
    expect(typedDecorator('@@@ke', 5)).toBe('ke');
    expect(typedDecorator('plain', 5)).toBeNull();
    expect(completeDecorator('@@pro\nBody', 5, 'probability')).toEqual({ content: '@@probability\nBody', caret: 13 });
    expect(completeDecorator('@@x\n@@@ke', 9, 'keep')).toEqual({ content: '@@x\n@@@keep', caret: 11 });
  });
});

describe('excerpts (issue 9)', () => {
  it('stay short around a match in a long message', () => {
    const text = 'x'.repeat(50_000) + ' moon ' + 'y'.repeat(50_000);
    const segs = excerpt(text, 50_001, 50_005, 20);
    expect(segs.map((s) => s.text).join('').length).toBeLessThanOrEqual(20 + 4 + 20 + 2);
    expect(segs.find((s) => s.mark)?.text).toBe('moon');
    expect(segs[0].text.startsWith('…')).toBe(true);
    expect(segs[segs.length - 1].text.endsWith('…')).toBe(true);
  });

  it('cut a long match to its head and tail', () => {
    const text = 'a' + 'b'.repeat(1000) + 'c';
    const segs = excerpt(text, 0, text.length, 10);
    expect(segs).toEqual([{ text: 'a' + 'b'.repeat(9) + '…' + 'b'.repeat(9) + 'c', mark: true }]);
  });

  it('keep a short match whole, with no ellipsis at the ends of the text', () => {
    expect(excerpt('the moon', 4, 8, 10)).toEqual([
      { text: 'the ', mark: false },
      { text: 'moon', mark: true },
    ]);
  });
});

describe('chat splices (issue 9)', () => {
  const apply = (s: string, d: { at: number; remove: number; insert: string }) => s.slice(0, d.at) + d.insert + s.slice(d.at + d.remove);

  it('send only what was typed', () => {
    const before = 'User: hello\n'.repeat(1000);
    expect(splice(before, before + 'x')).toEqual({ at: before.length, remove: 0, insert: 'x' });
    expect(splice('abcdef', 'abXdef')).toEqual({ at: 2, remove: 1, insert: 'X' });
    expect(splice('abc', 'abc')).toEqual({ at: 3, remove: 0, insert: '' });
    expect(splice('abcabc', 'abc')).toEqual({ at: 3, remove: 3, insert: '' });
  });

  it('never cut a surrogate pair', () => {
    // 😀 and 😃 share their high surrogate.
    const d = splice('a😀b', 'a😃b');
    expect(d).toEqual({ at: 1, remove: 2, insert: '😃' });
    const e = splice('😀', '😀😀');
    expect(apply('😀', e)).toBe('😀😀');
    expect(e.insert).toBe('😀');
  });

  it('rebuild the new text from the old, whatever changed', () => {
    const texts = ['', 'a', 'ab', 'aab', 'é😀x', '😀😀', 'x😀', 'aaaa'];
    for (const a of texts) for (const b of texts) expect(apply(a, splice(a, b))).toBe(b);
  });
});

describe('problem spans in the editor', () => {
  it('finds a key in the joined keys field', () => {
    const keys = ['dragon', 'wyrm', 'the red one'];
    const joined = keys.join(', ');
    const r = keyRange(keys, 2);
    expect(joined.slice(r.start, r.end)).toBe('the red one');
    expect(keyRange(keys, 0)).toEqual({ start: 0, end: 6 });
  });
});

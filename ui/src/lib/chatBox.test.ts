import { describe, expect, it } from 'vitest';
import { CHAT_BOX_MAX, CHAT_TAIL, headLines, tailStart } from './chatBox';

const chat = (n: number, line = (i: number) => `User: message ${i} about the harbor`) =>
  Array.from({ length: n }, (_, i) => line(i)).join('\n');

describe('the chat box of a long chat', () => {
  it('holds all of a chat that fits', () => {
    const short = chat(10);
    expect(tailStart(short)).toBe(0);
    const edge = 'x'.repeat(CHAT_BOX_MAX);
    expect(tailStart(edge)).toBe(0);
    // One long line has nowhere to split.
    expect(tailStart('y'.repeat(CHAT_BOX_MAX + 1))).toBe(0);
  });

  it('keeps about the last CHAT_TAIL characters, from the start of a message', () => {
    const long = chat(3000);
    const at = tailStart(long);
    expect(at).toBeGreaterThan(0);
    expect(long[at - 1]).toBe('\n');
    expect(long.slice(at).startsWith('User: message')).toBe(true);
    expect(long.length - at).toBeGreaterThanOrEqual(CHAT_TAIL);
    expect(long.length - at).toBeLessThan(CHAT_TAIL + 100);
  });

  it('goes back to the line that starts a message of several lines', () => {
    // Each message: a `Name:` line, then 30 lines of its text.
    const body = Array.from({ length: 30 }, () => 'and the tide came in over the rocks').join('\n');
    const long = chat(200, (i) => `Tam: message ${i}\n${body}`);
    const at = tailStart(long);
    expect(long.slice(at).startsWith('Tam: message')).toBe(true);
    expect(long.length - at).toBeGreaterThanOrEqual(CHAT_TAIL);
    // No message start within reach: any line.
    const prose = Array.from({ length: 3000 }, () => 'the tide came in over the rocks').join('\n');
    const p = tailStart(prose);
    expect(prose[p - 1]).toBe('\n');
    expect(prose.length - p).toBeLessThan(CHAT_TAIL + 40);
  });

  it('lists the read-only lines with where each starts', () => {
    expect(headLines('User: a\nTam: b\n')).toEqual([
      { at: 0, text: 'User: a' },
      { at: 8, text: 'Tam: b' },
    ]);
    expect(headLines('one\n\ntwo\n')).toEqual([
      { at: 0, text: 'one' },
      { at: 4, text: '' },
      { at: 5, text: 'two' },
    ]);
  });
});

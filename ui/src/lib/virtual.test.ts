import { describe, expect, it } from 'vitest';
import { scrollToRow, visibleWindow } from './virtual';

describe('virtual list', () => {
  it('renders only the rows in view for 10,000 entries', () => {
    const w = visibleWindow(10_000, 30, 30 * 5000, 600, 5);
    expect(w.start).toBe(4995);
    expect(w.end).toBe(5025);
    expect(w.padTop).toBe(4995 * 30);
    expect(w.padTop + (w.end - w.start) * 30 + w.padBottom).toBe(10_000 * 30);
  });

  it('clamps at both ends', () => {
    expect(visibleWindow(3, 30, 0, 600)).toEqual({ start: 0, end: 3, padTop: 0, padBottom: 0 });
    expect(visibleWindow(0, 30, 100, 600)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0 });
  });

  it('scrolls a row into view only when needed', () => {
    expect(scrollToRow(2, 30, 0, 300)).toBeNull();
    expect(scrollToRow(20, 30, 0, 300)).toBe(330);
    expect(scrollToRow(1, 30, 300, 300)).toBe(30);
  });
});

import { describe, expect, it } from 'vitest';
import { offsets, scrollToRow, variableWindow, visibleWindow } from './virtual';

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

describe('virtual list of rows of varying height', () => {
  it('adds up row heights into offsets', () => {
    expect(offsets([10, 20, 5])).toEqual([0, 10, 30, 35]);
    expect(offsets([])).toEqual([0]);
  });

  it('draws the rows that meet the viewport, with overscan', () => {
    // Rows 0..99 of 10 px, then one of 500 px, then 100 more of 10 px.
    const heights = [...Array(100).fill(10), 500, ...Array(100).fill(10)];
    const tops = offsets(heights);
    const w = variableWindow(tops, 995, 100, 2);
    // 995 is inside row 99; the viewport ends inside the tall row 100.
    expect(w.start).toBe(97);
    expect(w.end).toBe(103);
    expect(w.padTop).toBe(970);
    expect(w.padTop + heights.slice(w.start, w.end).reduce((a, b) => a + b, 0) + w.padBottom).toBe(tops[tops.length - 1]);
  });

  it('clamps at both ends and past the bottom', () => {
    const tops = offsets([30, 30, 30]);
    expect(variableWindow(tops, 0, 600)).toEqual({ start: 0, end: 3, padTop: 0, padBottom: 0 });
    expect(variableWindow(tops, 5000, 600, 0)).toEqual({ start: 2, end: 3, padTop: 60, padBottom: 0 });
    expect(variableWindow(offsets([]), 0, 600)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0 });
  });

  it('a hidden list (no viewport) still draws its first row and the overscan', () => {
    const tops = offsets(Array(50).fill(20));
    expect(variableWindow(tops, 0, 0, 3)).toMatchObject({ start: 0, end: 4 });
  });
});

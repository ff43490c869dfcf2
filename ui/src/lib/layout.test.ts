import { describe, expect, it } from 'vitest';
import { columns, moveSplit, restorePanes, DEFAULT_PANES, MIN_WIDTH } from './layout';

describe('pane layout', () => {
  it('turns fractions into pixel columns that fill the window', () => {
    const [a, b, c] = columns([0.25, 0.4], 1400);
    expect([a, b, c]).toEqual([350, 560, 490]);
  });

  it('keeps every pane at its minimum whatever the fractions say', () => {
    const [a, b, c] = columns([0.01, 0.98], 1000);
    expect(a).toBe(MIN_WIDTH[0]);
    expect(c).toBeGreaterThanOrEqual(MIN_WIDTH[2]);
    expect(a + b + c).toBeCloseTo(1000);
  });

  it('shares a window narrower than the minimums in their proportions', () => {
    const cols = columns(DEFAULT_PANES, 370);
    expect(cols.reduce((x, y) => x + y)).toBeCloseTo(370);
    expect(cols[0]).toBeLessThan(cols[1]);
  });

  it('moves a splitter by pixels and stops at the neighbours minimum', () => {
    const moved = moveSplit([0.25, 0.4], 0, 140, 1400);
    expect(columns(moved, 1400)).toEqual([490, 420, 490]);
    const far = moveSplit([0.25, 0.4], 0, 5000, 1400);
    expect(columns(far, 1400)[1]).toBe(MIN_WIDTH[1]);
    const back = moveSplit([0.25, 0.4], 1, -5000, 1400);
    expect(columns(back, 1400)[1]).toBe(MIN_WIDTH[1]);
    expect(columns(back, 1400)[0]).toBe(350);
  });

  it('restores saved fractions only when they make sense', () => {
    expect(restorePanes([0.2, 0.3])).toEqual([0.2, 0.3]);
    for (const bad of [undefined, [], [0.2], [0.7, 0.6], [Number.NaN, 0.2], [0, 0.5]]) {
      expect(restorePanes(bad)).toEqual(DEFAULT_PANES);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { barLayout } from './budget';
import type { Injected, RequestResult } from './bindings';

function injected(id: number, tokens: number, constant = false): Injected {
  return { book: 0, id, role: 'system', order: 100, priority: 100, tokens, constant, roll: null, reason: { kind: 'constant' } };
}

function result(inj: Injected[], used: number, limit: number, cut?: number): RequestResult {
  return {
    request: 1,
    budget: { limit, used, constants: 0, over_by_constants: false, first_cut: cut === undefined ? null : { book: 0, id: 99 } },
    injected: inj,
    dropped:
      cut === undefined
        ? []
        : [
            // Listed first by id, but not the first cut: the bar must follow budget.first_cut.
            { book: 0, id: 2, reason: { kind: 'budget', needed: 1, left: limit - used, activation: { kind: 'constant' } } },
            { book: 0, id: 99, reason: { kind: 'budget', needed: cut, left: limit - used, activation: { kind: 'constant' } } },
          ],
    messages: [],
    passes: 0,
    unlisted: { no_match: 0, disabled: 0 },
  };
}

describe('budget bar', () => {
  it('puts constants first and scales to the limit', () => {
    const l = barLayout(result([injected(1, 50), injected(2, 25, true)], 75, 100));
    expect(l.segments.map((s) => [s.id, s.left, s.width, s.constant])).toEqual([
      [2, 0, 25, true],
      [1, 25, 50, false],
    ]);
    expect(l.limitAt).toBe(100);
  });

  it('shows the first cut entry past the limit line', () => {
    const l = barLayout(result([injected(1, 80)], 80, 100, 60));
    expect(l.scale).toBe(140);
    const cut = l.segments.at(-1)!;
    expect(cut.cut).toBe(true);
    expect(cut.id).toBe(99);
    expect(cut.left).toBeCloseTo((80 / 140) * 100);
    expect(l.limitAt).toBeCloseTo((100 / 140) * 100);
  });
});

import { describe, expect, it } from 'vitest';
import { filtered, marks, tally } from './problems.svelte';
import type { Problem } from './bindings';

const problem = (id: number, severity: Problem['severity'], code: 'no_keys' | 'content_empty' | 'selective_without_secondary'): Problem =>
  ({ entry: { book: 0, id }, severity, span: { kind: 'entry' }, fix: null, code }) as Problem;

const list = [
  problem(1, 'warning', 'no_keys'),
  problem(1, 'hint', 'selective_without_secondary'),
  problem(2, 'hint', 'selective_without_secondary'),
  problem(3, 'warning', 'content_empty'),
  problem(3, 'error', 'no_keys'),
];

describe('problem badges', () => {
  it('badge the worst problem of each entry and never a hint', () => {
    const m = marks(list);
    expect(m.get(1)).toEqual({ count: 1, worst: 'warning' });
    expect(m.has(2)).toBe(false);
    expect(m.get(3)).toEqual({ count: 2, worst: 'error' });
  });

  it('count each severity', () => {
    expect(tally(list)).toEqual({ error: 1, warning: 2, hint: 2 });
    // With the hints Rust only counted.
    expect(tally(list, [{ code: 'key_contains_other', count: 40 }])).toEqual({ error: 1, warning: 2, hint: 42 });
  });
});

describe('the panel filters', () => {
  it('hide hints unless asked for', () => {
    expect(filtered(list, 'all', '', false).map((p) => p.severity)).toEqual(['error', 'warning', 'warning']);
    expect(filtered(list, 'all', '', true)).toHaveLength(5);
  });

  it('narrow to one severity or one check', () => {
    expect(filtered(list, 'hint', '', false).map((p) => p.entry.id)).toEqual([1, 2]);
    expect(filtered(list, 'error', '', false).map((p) => p.entry.id)).toEqual([3]);
    expect(filtered(list, 'all', 'no_keys', false).map((p) => p.entry.id)).toEqual([3, 1]);
    expect(filtered(list, 'all', '', true).map((p) => p.entry.id)).toEqual([3, 1, 3, 1, 2]);
  });
});

import { describe, expect, it } from 'vitest';
import { format, type Locale } from './i18n';
import type { Translate } from './messages';
import { failureText, reasonText } from './scenarioText';
import { tallyScenarios } from './scenarios.svelte';
import type { Failure, ScenariosView } from './bindings';

const t = (locale: Locale): Translate => (key, params = {}) => format(locale, key, params);
const names = new Map([['0:3', 'Harbor']]);

describe('scenario failures', () => {
  it("word the failure and the rules' own reason, in both languages", () => {
    const f: Failure = {
      code: 'not_injected',
      id: 1,
      name: 'The Lighthouse',
      request: 6,
      why: 'no match',
      reason: { is: 'studio_out', why: { kind: 'no_match', recursion_stopped: false, no_keys: false, gave_up: null } },
    };
    expect(failureText(t('en'), names, f)).toBe(`“The Lighthouse” is not injected in request 6: ${reasonText(t('en'), names, f.reason!)}`);
    expect(failureText(t('pt-BR'), names, f)).toContain('não é injetada no pedido 6');
    const cut: Failure = { code: 'cut', request: 2, names: ['Tavern', 'Reef'] };
    expect(failureText(t('en'), names, cut)).toBe('the budget cut Tavern, Reef in request 2');
    const risu: Failure = { code: 'injected', id: 2, name: 'Gull', request: 1, why: '', reason: { is: 'risu_in', why: { kind: 'always' } } };
    expect(failureText(t('en'), names, risu)).toMatch(/^“Gull” is injected in request 1: ./);
  });

  it('count a scenario that cannot run as failing', () => {
    const view: ScenariosView = {
      doc: 1,
      error: null,
      items: [
        { name: 'a', rules: 'studio', expected_in: 1, expected_out: 0, injected: [], not_injected: [], exactly: false, nothing_cut: false, max_used: null, verdict: { name: 'a', rules: 'studio', passed: true, failures: [] }, error: null },
        { name: 'b', rules: 'risu', expected_in: 1, expected_out: 0, injected: [], not_injected: [], exactly: false, nothing_cut: false, max_used: null, verdict: null, error: 'unknown model' },
      ],
    };
    expect(tallyScenarios(view)).toEqual({ passed: 1, failed: 1 });
    expect(tallyScenarios(null)).toEqual({ passed: 0, failed: 0 });
  });
});

describe('impact totals', () => {
  it('add up the requests and flips, and the scenarios that turned', async () => {
    const { impactTotals } = await import('./impact.svelte');
    const entry = { id: 1, name: 'a', now: null, was: null };
    const totals = impactTotals({
      doc: 1,
      against: 'saved',
      base_steps: null,
      base_file: null,
      rules: 'studio',
      error: null,
      rows: [
        { request: 2, started: [entry], stopped: [], moved: [], budget_before: 1, budget_after: 2 },
        { request: 3, started: [entry], stopped: [entry], moved: [{ id: 2, name: 'b', from: 'x', to: 'y' }], budget_before: 1, budget_after: 2 },
      ],
      scenarios: [
        { name: 's', was: true, now: false },
        { name: 't', was: false, now: true },
        { name: 'u', was: true, now: null },
      ],
    });
    expect(totals).toEqual({ requests: 2, started: 2, stopped: 1, moved: 1, nowFailing: 2, nowPassing: 1 });
  });
});

describe('impact cells in the timeline', () => {
  it('mark the started, stopped and moved cells of the shown attached book', async () => {
    const { changedCells } = await import('./impact.svelte');
    const e = (id: number) => ({ id, name: '', now: null, was: null });
    const view = {
      doc: 7,
      against: 'saved' as const,
      base_steps: null,
      base_file: null,
      rules: 'studio' as const,
      error: null,
      scenarios: [],
      rows: [{ request: 4, started: [e(1)], stopped: [e(2)], moved: [{ id: 3, name: '', from: 'a', to: 'b' }], budget_before: 0, budget_after: 0 }],
    };
    const docs = [
      { id: 5, attached: true },
      { id: 6, attached: false },
      { id: 7, attached: true },
    ];
    expect([...changedCells(view, docs, 7)].sort()).toEqual(['1:1:4', '1:2:4', '1:3:4']);
    expect(changedCells(view, docs, 5).size).toBe(0);
    expect(changedCells({ ...view, against: 'clean' }, docs, 7).size).toBe(0);
    expect(changedCells({ ...view, against: 'unreachable' }, docs, 7).size).toBe(0);
    // Against an undo step or a file the author chose, as against the saved version.
    expect(changedCells({ ...view, against: 'step', base_steps: 2 }, docs, 7).size).toBe(3);
    expect(changedCells({ ...view, against: 'file', base_file: 'other.json' }, docs, 7).size).toBe(3);
  });
});

describe('stopped rows in the timeline', () => {
  it('add the entries the edits stopped everywhere, with empty cells', async () => {
    const { stoppedRows } = await import('./impact.svelte');
    const e = (id: number, name: string) => ({ id, name, now: null, was: null });
    const view = {
      doc: 7,
      against: 'saved' as const,
      base_steps: null,
      base_file: null,
      rules: 'studio' as const,
      error: null,
      scenarios: [],
      rows: [
        { request: 2, started: [], stopped: [e(1, 'Lighthouse'), e(2, 'Gull')], moved: [], budget_before: 0, budget_after: 0 },
        { request: 3, started: [], stopped: [e(1, 'Lighthouse')], moved: [], budget_before: 0, budget_after: 0 },
      ],
    };
    const listed = [{ book: 0, id: 2, name: 'Gull', folder: null, cells: 'i..' }];
    expect(stoppedRows(view, listed, 3, [{ id: 7, attached: true }], 7)).toEqual([{ book: 0, id: 1, name: 'Lighthouse', folder: null, cells: '...' }]);
    expect(stoppedRows(view, listed, 3, [{ id: 7, attached: true }], 8)).toEqual([]);
  });
});

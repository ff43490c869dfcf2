import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { EntryRow, TokenStep } from './bindings';

const calls: { cmd: string; args: Record<string, unknown> }[] = [];
const responses: Record<string, (args: Record<string, unknown>) => unknown> = {};
vi.mock('@tauri-apps/api/core', () => ({
  invoke: async (cmd: string, args: Record<string, unknown>) => {
    calls.push({ cmd, args });
    const r = responses[cmd];
    if (!r) return null;
    return r(args);
  },
}));
vi.mock('@tauri-apps/api/event', () => ({ listen: vi.fn(async () => () => {}) }));

const { Documents } = await import('./documents.svelte');

/** Rust's answer with the whole list (a new `rev` each time). */
let revs = 0;
const whole = (rows: EntryRow[]) => ({ rev: ++revs, base: null, rows, order: null });

const row = (id: number, tokens: number | null): EntryRow => ({
  id, name: `e${id}`, keys: 'k', enabled: true, constant: false, order: 100 - id, priority: 10, tokens, diagnostics: 0, severity: null, folder: false, parent: null, depth: 0, inside: null, inside_tokens: null,
});

describe('the entry list as a change to the one held', () => {
  beforeEach(() => {
    calls.length = 0;
    for (const k of Object.keys(responses)) delete responses[k];
  });

  it('keeps the rows Rust does not send, takes its order, and says which rows it changed itself', async () => {
    const docs = new Documents();
    docs.doc = 1;
    responses.list_entries = () => whole([row(1, 5), row(2, 6), row(3, 7)]);
    await docs.reloadList(false);
    const [one, , three] = docs.rows;
    const held = calls.at(-1)!.args;
    expect([held.have, held.changed]).toEqual([null, []]);
    const rev = revs;
    // An entry edit puts its row in place; the next load names it.
    docs.replaceRow({ ...row(2, 6), name: 'edited' });
    responses.list_entries = (a) => ({ rev: ++revs, base: a.have, rows: [{ ...row(2, 6), name: 'moved' }], order: [2, 3, 1] });
    await docs.reloadList(false);
    expect([calls.at(-1)!.args.have, calls.at(-1)!.args.changed]).toEqual([rev, [2]]);
    expect(docs.rows.map((r) => [r.id, r.name])).toEqual([[2, 'moved'], [3, 'e3'], [1, 'e1']]);
    expect(docs.rows[1]).toBe(three);
    expect(docs.rows[2]).toBe(one);
    // Sent once: the next load names no row.
    responses.list_entries = (a) => ({ rev: ++revs, base: a.have, rows: [], order: null });
    await docs.reloadList(false);
    expect(calls.at(-1)!.args.changed).toEqual([]);
    expect(docs.rows.map((r) => r.id)).toEqual([2, 3, 1]);
  });

  it('asks for the whole list when a change does not fit the rows held', async () => {
    const docs = new Documents();
    docs.doc = 1;
    responses.list_entries = () => whole([row(1, 5)]);
    await docs.reloadList(false);
    const first = revs;
    // A change made against another list, then one naming a row not held.
    let answers: (() => unknown)[] = [
      () => ({ rev: ++revs, base: 999, rows: [], order: null }),
      () => whole([row(1, 5), row(2, 6)]),
    ];
    responses.list_entries = () => answers.shift()!();
    await docs.reloadList(false);
    expect(calls.filter((c) => c.cmd === 'list_entries').map((c) => c.args.have)).toEqual([null, first, null]);
    expect(docs.rows.map((r) => r.id)).toEqual([1, 2]);
    answers = [() => ({ rev: ++revs, base: revs - 1, rows: [], order: [1, 2, 9] }), () => whole([row(9, 1)])];
    await docs.reloadList(false);
    expect(docs.rows.map((r) => r.id)).toEqual([9]);
    // Another book's list is asked for whole.
    docs.doc = 2;
    answers = [() => whole([row(4, 1)])];
    await docs.reloadList(false);
    expect(calls.at(-1)!.args.have).toBeNull();
  });
});

describe('the entry list of a big book', () => {
  beforeEach(() => {
    calls.length = 0;
    for (const k of Object.keys(responses)) delete responses[k];
  });

  it('is shown first and its token counts filled in a step at a time', async () => {
    const docs = new Documents();
    docs.doc = 1;
    responses.list_entries = () => whole([row(3, 7), row(1, null), row(2, null), row(4, null)]);
    // Rust counts from the asked position; a step may also carry counts
    // the list already had.
    const steps: Record<number, TokenStep> = {
      0: { counts: [{ id: 1, tokens: 11 }, { id: 2, tokens: 12 }], next: 2 },
      2: { counts: [{ id: 3, tokens: 7 }, { id: 4, tokens: 14 }], next: null },
    };
    responses.count_list_tokens = (a) => steps[a.from as number];
    await docs.reloadList(false);
    expect(docs.rows.map((r) => r.tokens)).toEqual([7, null, null, null]);
    await docs.fillTokens();
    expect(docs.rows.map((r) => [r.id, r.tokens])).toEqual([[3, 7], [1, 11], [2, 12], [4, 14]]);
    expect(calls.filter((c) => c.cmd === 'count_list_tokens').map((c) => c.args)).toEqual([{ doc: 1, from: 0 }, { doc: 1, from: 2 }]);
  });

  it('asks for nothing when every count came with the list', async () => {
    const docs = new Documents();
    docs.doc = 1;
    responses.list_entries = () => whole([row(1, 5), row(2, 6)]);
    await docs.reloadList();
    await Promise.resolve();
    expect(calls.some((c) => c.cmd === 'count_list_tokens')).toBe(false);
  });

  it('stops filling a list loaded again, which fills its own', async () => {
    const docs = new Documents();
    docs.doc = 1;
    responses.list_entries = () => whole([row(1, null), row(2, null)]);
    let release: () => void = () => {};
    responses.count_list_tokens = () =>
      new Promise<TokenStep>((resolve) => {
        release = () => resolve({ counts: [{ id: 1, tokens: 99 }], next: 1 });
      });
    await docs.reloadList(false);
    const filling = docs.fillTokens();
    await Promise.resolve();
    // The search changed: a new list, without entry 2's count.
    responses.list_entries = () => whole([row(1, null)]);
    await docs.reloadList(false);
    release();
    await filling;
    expect(docs.rows).toEqual([row(1, null)]);
    expect(calls.filter((c) => c.cmd === 'count_list_tokens').length).toBe(1);
  });

  it('reports a failed step', async () => {
    const report = vi.fn();
    const docs = new Documents(report);
    docs.doc = 1;
    responses.list_entries = () => whole([row(1, null)]);
    responses.count_list_tokens = () => Promise.reject({ kind: 'not_found', message: 'no open book with id 1' });
    await docs.reloadList(false);
    await docs.fillTokens();
    expect(report).toHaveBeenCalledTimes(1);
    expect(docs.rows).toEqual([row(1, null)]);
  });
});

describe('folders in the entry list', () => {
  it('hide their entries while collapsed, per book, and stepping passes over them', () => {
    const docs = new Documents();
    docs.doc = 1;
    const folder = { ...row(1, 0), folder: true, enabled: false };
    const kid = (id: number) => ({ ...row(id, 0), parent: 1, depth: 1 });
    docs.rows = [row(0, 0), folder, kid(2), kid(3), row(4, 0)];
    expect(docs.shown.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
    docs.toggleFolder(1);
    expect(docs.isCollapsed(1)).toBe(true);
    expect(docs.shown.map((r) => r.id)).toEqual([0, 1, 4]);
    docs.selected = [1];
    expect(docs.neighbour(1)).toBe(4);
    // Another book's folder with the same id is not collapsed.
    docs.doc = 2;
    expect(docs.shown.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
    docs.doc = 1;
    docs.toggleFolder(1, false);
    expect(docs.isCollapsed(1)).toBe(true);
    docs.toggleFolder(1, true);
    expect(docs.shown.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
  });

  it('hide a nested folder with its parent, show matches while searching, and total tokens', () => {
    const docs = new Documents();
    docs.doc = 1;
    const folder = (id: number, parent: number | null, depth: number) => ({ ...row(id, 0), folder: true, parent, depth, tokens: null });
    const kid = (id: number, parent: number, depth: number, tokens: number | null) => ({ ...row(id, tokens), parent, depth });
    docs.rows = [folder(1, null, 0), folder(2, 1, 1), kid(3, 2, 2, 5), kid(4, 1, 1, 7), row(5, 1)];
    expect([...docs.folderTokens]).toEqual([[2, 5], [1, 12]]);
    expect(docs.folders).toEqual([{ id: 1, path: 'e1' }, { id: 2, path: 'e1 › e2' }]);
    docs.toggleFolder(2);
    expect(docs.shown.map((r) => r.id)).toEqual([1, 2, 4, 5]);
    docs.toggleFolder(1);
    expect(docs.shown.map((r) => r.id)).toEqual([1, 5]);
    // A search shows its matches inside collapsed folders.
    docs.search = 'e3';
    expect(docs.shown.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    docs.search = '';
    // A count still missing leaves the total unknown.
    docs.rows = [folder(1, null, 0), kid(4, 1, 1, null)];
    expect(docs.folderTokens.get(1)).toBeNull();
  });
});

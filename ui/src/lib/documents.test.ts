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

const row = (id: number, tokens: number | null): EntryRow => ({
  id, name: `e${id}`, keys: 'k', enabled: true, constant: false, order: 100 - id, priority: 10, tokens, diagnostics: 0, severity: null, folder: false, parent: null, depth: 0, inside: null, inside_tokens: null,
});

describe('the entry list of a big book', () => {
  beforeEach(() => {
    calls.length = 0;
    for (const k of Object.keys(responses)) delete responses[k];
  });

  it('is shown first and its token counts filled in a step at a time', async () => {
    const docs = new Documents();
    docs.doc = 1;
    responses.list_entries = () => [row(3, 7), row(1, null), row(2, null), row(4, null)];
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
    responses.list_entries = () => [row(1, 5), row(2, 6)];
    await docs.reloadList();
    await Promise.resolve();
    expect(calls.some((c) => c.cmd === 'count_list_tokens')).toBe(false);
  });

  it('stops filling a list loaded again, which fills its own', async () => {
    const docs = new Documents();
    docs.doc = 1;
    responses.list_entries = () => [row(1, null), row(2, null)];
    let release: () => void = () => {};
    responses.count_list_tokens = () =>
      new Promise<TokenStep>((resolve) => {
        release = () => resolve({ counts: [{ id: 1, tokens: 99 }], next: 1 });
      });
    await docs.reloadList(false);
    const filling = docs.fillTokens();
    await Promise.resolve();
    // The search changed: a new list, without entry 2's count.
    responses.list_entries = () => [row(1, null)];
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
    responses.list_entries = () => [row(1, null)];
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

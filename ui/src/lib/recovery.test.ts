import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppStateView, RecoveredBook } from './bindings';
import { detail } from './testing';

const calls: { cmd: string; args: unknown }[] = [];
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

const { Studio } = await import('./studio.svelte');

function state(dirty: boolean): AppStateView {
  return {
    docs: [{ id: 1, name: 'B', path: null, dirty, attached: true, entries: 1, can_undo: false, can_redo: false, sillytavern: false, risu: false, source: null, save_back: null, server: null }],
    chat_error: null, chat_warnings: [], settings: { seed: 0, model: 'gpt-4o', template: { blocks: [] } }, recent: [], tokenizer_file: null, approximate: false,
  };
}

const copy: RecoveredBook = { id: 'r-1', title: 'Lost', original_path: '/books/lost.json', saved_at: 1, file: '/data/recovery/r-1.json' };

describe('recovery and quitting', () => {
  beforeEach(() => {
    calls.length = 0;
    for (const k of Object.keys(responses)) delete responses[k];
    responses.app_state = () => state(false);
    responses.list_entries = () => ({ rev: 1, base: null, rows: [], order: null });
    responses.rules_view = () => ({ rules: 'studio', chosen: false, st: {} });
    responses.get_entry = (a) => detail(a.id as number, 'Body');
  });

  it('offers recovered books and restores or discards them', async () => {
    let left = [copy, { ...copy, id: 'r-2' }];
    responses.list_recovered = () => left;
    responses.restore_recovered = (a) => {
      left = left.filter((b) => b.id !== a.id);
      return 5;
    };
    responses.discard_recovered = (a) => {
      left = left.filter((b) => b.id !== a.id);
    };
    const s = new Studio();
    await s.init();
    expect(s.recovery.current?.id).toBe('r-1');
    await s.restoreRecovered('r-1');
    expect(calls.find((c) => c.cmd === 'restore_recovered')?.args).toEqual({ id: 'r-1' });
    expect(s.recovery.current?.id).toBe('r-2');
    await s.recovery.discard('r-2');
    expect(s.recovery.current).toBeNull();
  });

  it('sends a held edit before asking Rust whether a book is unsaved', async () => {
    const s = new Studio();
    s.docs.app = state(false);
    s.docs.doc = 1;
    s.docs.rows = [detail(1, 'Body').row];
    await s.select(1);
    let sent = false;
    responses.update_entry = (a) => {
      sent = true;
      return { detail: { ...detail(1, 'x'), entry: a.entry }, state: state(true), preview: null };
    };
    responses.app_state = () => state(sent);
    // The edit also refreshes the preview.
    responses.preview = () => ({ rules: 'studio', view: { result: { request: 0 }, names: [], prompt: { rev: 1, base: null, keep_head: 0, keep_tail: 0, middle: [] } } });
    s.entry.edit({ content: 'one more keystroke' });
    await s.askQuit();
    expect(sent).toBe(true);
    expect(s.dialogs.confirm?.text).toContain('B');
    expect(calls.some((c) => c.cmd === 'quit')).toBe(false);
  });

  it('asks when the unsaved-changes check fails, and quits when all is saved', async () => {
    const s = new Studio();
    responses.app_state = () => Promise.reject({ kind: 'internal', message: 'lock poisoned' });
    await s.askQuit();
    expect(s.dialogs.confirm).not.toBeNull();
    expect(calls.some((c) => c.cmd === 'quit')).toBe(false);
    s.dialogs.answer(false);
    // Every flag reads clean, but Rust's workspace lock is poisoned.
    responses.app_state = () => state(false);
    responses.has_unsaved = () => true;
    await s.askQuit();
    expect(s.dialogs.confirm).not.toBeNull();
    s.dialogs.answer(false);
    responses.has_unsaved = () => false;
    await s.askQuit();
    expect(s.dialogs.confirm).toBeNull();
    expect(calls.some((c) => c.cmd === 'quit')).toBe(true);
  });

  /** An edit whose send is answered only after `ms`: the close, reload or
   *  switch must wait for it before reading the dirty flag. */
  function delayedEdit(ms: number) {
    let sent = false;
    responses.update_entry = (a) =>
      new Promise((resolve) =>
        setTimeout(() => {
          sent = true;
          resolve({ detail: { ...detail(1, 'x'), entry: a.entry }, state: state(true), preview: null });
        }, ms),
      );
    responses.app_state = () => state(sent);
    responses.preview = () => ({ rules: 'studio', view: { result: { request: 0 }, names: [], prompt: { rev: 1, base: null, keep_head: 0, keep_tail: 0, middle: [] } } });
    return () => sent;
  }

  async function studioWithEntry() {
    const s = new Studio();
    s.docs.app = state(false);
    s.docs.doc = 1;
    s.docs.rows = [detail(1, 'Body').row];
    await s.select(1);
    return s;
  }

  it('closing a tab while an edit is in flight waits for it and asks', async () => {
    const s = await studioWithEntry();
    const sent = delayedEdit(50);
    s.entry.edit({ content: 'typed just before closing' });
    await s.closeBook(1);
    expect(sent()).toBe(true);
    expect(s.dialogs.confirm?.text).toContain('B');
    expect(calls.some((c) => c.cmd === 'close_doc')).toBe(false);
  });

  it('a clean tab closes at once', async () => {
    const s = await studioWithEntry();
    await s.closeBook(1);
    expect(s.dialogs.confirm).toBeNull();
    expect(calls.some((c) => c.cmd === 'close_doc')).toBe(true);
  });

  it('reloading after an edit in flight asks instead of dropping the edit', async () => {
    const s = await studioWithEntry();
    const sent = delayedEdit(50);
    s.entry.edit({ content: 'typed just before the reload' });
    await s.files.reload(1);
    expect(sent()).toBe(true);
    expect(s.dialogs.confirm?.text).toContain('B');
    expect(calls.some((c) => c.cmd === 'reload_doc')).toBe(false);
    // Chosen after a refused save, the reload drops the edits knowingly.
    await s.files.reload(1, true);
    expect(calls.some((c) => c.cmd === 'reload_doc')).toBe(true);
  });

  it('switching books sends the edit in flight to the book it was made in', async () => {
    const s = await studioWithEntry();
    delayedEdit(50);
    s.entry.edit({ content: 'typed just before switching' });
    await s.switchDoc(2);
    const update = calls.find((c) => c.cmd === 'update_entry');
    expect(update?.args).toMatchObject({ doc: 1 });
  });

  it('the recovery dialog can be put off without deleting anything', async () => {
    responses.list_recovered = () => [copy];
    const s = new Studio();
    await s.init();
    expect(s.recovery.current?.id).toBe('r-1');
    s.recovery.postpone();
    expect(s.recovery.current).toBeNull();
    expect(s.recovery.books.length).toBe(1);
    expect(calls.some((c) => c.cmd === 'discard_recovered')).toBe(false);
    s.recovery.resume();
    expect(s.recovery.current?.id).toBe('r-1');
  });

  it('shows why recovery copies fail from the start', async () => {
    responses.autosave_status = () => ({ kind: 'io', message: 'cannot write', code: { code: 'disk_full', file: '/data/recovery' } });
    const s = new Studio();
    await s.init();
    expect(s.autosaveFailure?.code).toEqual({ code: 'disk_full', file: '/data/recovery' });
  });
});

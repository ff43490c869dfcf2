import { beforeEach, describe, expect, it, vi } from 'vitest';
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

describe('studio', () => {
  beforeEach(() => {
    calls.length = 0;
    for (const k of Object.keys(responses)) delete responses[k];
    responses.app_state = () => ({ docs: [{ id: 1, name: 'B', path: null, dirty: false, attached: true, entries: 1, can_undo: false, can_redo: false }], chat_error: null, chat_warnings: [], settings: { seed: 0, model: 'gpt-4o', template: { blocks: [] } }, recent: [], tokenizer_file: null, approximate: false });
    responses.list_entries = () => ({ rev: 1, base: null, rows: [], order: null });
    responses.get_entry = (a) => detail(a.id as number, 'Body');
    responses.update_entry = (a) => ({
      detail: { ...detail(1, 'x'), entry: a.entry, row: { ...detail(1, 'x').row, tokens: 42 } },
      state: responses.app_state({}),
      preview: null,
    });
  });

  it('words the name of a duplicate in the UI language, leaving {name} for Rust', async () => {
    const s = new Studio();
    s.docs.doc = 1;
    s.docs.selected = [1];
    responses.duplicate_entries = () => [];
    await s.duplicate();
    s.locale = 'pt-BR';
    await s.duplicate();
    const sent = calls.filter((c) => c.cmd === 'duplicate_entries').map((c) => (c.args as { copyName: string }).copyName);
    expect(sent).toEqual(['{name} (copy)', '{name} (cópia)']);
  });

  it('sends edits of the selected entry to Rust', async () => {
    const s = new Studio();
    s.docs.doc = 1;
    s.docs.rows = [detail(1, 'Body').row, detail(2, 'Other').row];
    await s.select(1);
    s.entry.edit({ content: '@@keep\nBody' });
    await s.entry.flush();
    const update = calls.find((c) => c.cmd === 'update_entry');
    expect(update?.args).toMatchObject({ doc: 1, entry: { id: 1, content: '@@keep\nBody' } });
    expect(s.entry.draft?.content).toBe('@@keep\nBody');
    expect(s.docs.rows.find((r) => r.id === 1)?.tokens).toBe(42);
    expect(calls.filter((c) => c.cmd === 'list_entries').length).toBe(0);
  });

  it('a keystroke in an entry is one round trip: the edit answers with the state and the preview', async () => {
    const s = new Studio();
    s.docs.doc = 1;
    s.docs.app = responses.app_state({}) as NonNullable<typeof s.docs.app>;
    s.docs.rows = [detail(1, 'Body').row];
    responses.rules_view = () => ({ rules: 'studio', chosen: false, st: {}, inputs: null });
    const view = (request: number) => ({ result: { request }, names: [], prompt: { rev: request, base: null, keep_head: 0, keep_tail: 0, middle: [] } });
    responses.preview = () => ({ rules: 'studio', view: view(1) });
    await s.preview.refresh();
    await s.select(1);
    calls.length = 0;
    responses.update_entry = (a) => ({
      detail: { ...detail(1, 'x'), entry: a.entry },
      state: { ...(responses.app_state({}) as object), recent: ['/edited.json'] },
      preview: { rules: 'studio', view: view(2) },
    });
    s.entry.edit({ content: 'Body!' });
    await s.entry.flush();
    expect(calls.map((c) => c.cmd)).toEqual(['update_entry']);
    expect(calls[0].args).toMatchObject({ preview: { rules: 'studio', request: null, have: 1 } });
    expect(s.preview.view?.result.request).toBe(2);
    expect(s.docs.app?.recent).toEqual(['/edited.json']);
  });

  it('picking a model stops a tokenizer file from counting, then recounts list and preview', async () => {
    const s = new Studio();
    s.docs.doc = 1;
    s.docs.app = { ...(responses.app_state({}) as NonNullable<typeof s.docs.app>), tokenizer_file: '/t/tokenizer.json' };
    await s.setModel('claude');
    const order = calls.map((c) => c.cmd);
    expect(order.indexOf('clear_tokenizer_file')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('clear_tokenizer_file')).toBeLessThan(order.indexOf('set_preview_settings'));
    expect(calls.find((c) => c.cmd === 'set_preview_settings')?.args).toMatchObject({ settings: { model: 'claude' } });
    expect(order).toContain('list_entries');
    // Without a file in use, nothing is cleared.
    calls.length = 0;
    await s.setModel('gpt-4');
    expect(calls.some((c) => c.cmd === 'clear_tokenizer_file')).toBe(false);
  });

  it('a refused tokenizer file is reported and changes nothing', async () => {
    const s = new Studio();
    responses.pick_tokenizer_file = () => Promise.reject({ kind: 'invalid', message: 'notes.txt: not a tokenizer file this app reads' });
    await s.run(() => s.pickTokenizerFile());
    expect(s.feedback.errors).toEqual(['notes.txt: not a tokenizer file this app reads']);
    expect(calls.some((c) => c.cmd === 'list_entries')).toBe(false);
    responses.pick_tokenizer_file = () => Promise.reject({ kind: 'cancelled', message: 'no file chosen' });
    await s.run(() => s.pickTokenizerFile());
    expect(s.feedback.errors).toHaveLength(1);
  });

  it('restores the last run preview settings first, showing what was dropped', async () => {
    const s = new Studio();
    const dropped = { kind: 'setting_dropped', setting: 'tokenizer_file', value: '/t/gone.json', detail: 'no such file', using: 'gpt-4o' };
    responses.restore_preview_settings = () => [dropped];
    responses.take_notices = () => [];
    responses.list_recovered = () => [];
    await s.init();
    const order = calls.map((c) => c.cmd);
    expect(order.indexOf('restore_preview_settings')).toBeLessThan(order.indexOf('list_entries'));
    expect(s.feedback.notices).toEqual([dropped]);
  });

  it('shows errors and ignores cancelled dialogs', async () => {
    const s = new Studio();
    responses.open_dialog = () => Promise.reject({ kind: 'cancelled', message: 'no file chosen' });
    await s.run(() => s.files.openDialog());
    expect(s.feedback.errors).toEqual([]);
    responses.open_dialog = () => Promise.reject({ kind: 'format', message: 'book.json: line 2' });
    await s.run(() => s.files.openDialog());
    expect(s.feedback.errors).toEqual(['book.json: line 2']);
    s.locale = 'pt-BR';
    const code = { code: 'permission_denied', file: '/home/me/book.json' };
    responses.open_dialog = () => Promise.reject({ kind: 'io', message: 'cannot read /home/me/book.json: denied', code });
    await s.run(() => s.files.openDialog());
    expect(s.feedback.errors[1]).toBe('book.json: permissão negada');
  });

  it('asks before quitting with unsaved changes', async () => {
    const s = new Studio();
    s.docs.app = { ...(responses.app_state({}) as NonNullable<typeof s.docs.app>) };
    s.docs.app.docs[0].dirty = true;
    s.askQuit();
    expect(s.dialogs.confirm?.text).toContain('B');
    expect(calls.some((c) => c.cmd === 'quit')).toBe(false);
    s.dialogs.confirm?.action();
    await new Promise((r) => setTimeout(r, 0));
    expect(calls.some((c) => c.cmd === 'quit')).toBe(true);
  });

  it('shows a foreign import with its report until confirmed', async () => {
    const s = new Studio();
    const pending = {
      id: 7, file: '/books/eldoria.json', format: 'sillytavern', name: 'Eldoria', entries: 4,
      report: { direction: 'import', format: 'SillyTavern world info', book: { carried: [], approximated: [], not_carried: [] }, entries: [], notes: [] },
    };
    let waiting = [pending];
    responses.open_dialog = () => [{ kind: 'pending', ...pending }];
    responses.pending_imports = () => waiting;
    responses.confirm_import = () => {
      waiting = [];
      return 3;
    };
    await s.files.openDialog(true);
    expect(calls.find((c) => c.cmd === 'open_dialog')?.args).toEqual({ import: true });
    expect(s.dialogs.imports.map((i) => i.id)).toEqual([7]);
    await s.files.confirmImport(7, true);
    expect(calls.find((c) => c.cmd === 'confirm_import')?.args).toEqual({ id: 7, accept: true });
    expect(s.dialogs.imports).toEqual([]);
  });

  it('selects one, toggles and extends a range from the anchor', () => {
    const s = new Studio();
    s.docs.rows = [1, 2, 3, 4].map((id) => detail(id, 'x').row);
    s.docs.choose(2, 'one');
    s.docs.choose(4, 'range');
    expect(s.docs.selected).toEqual([2, 3, 4]);
    s.docs.choose(3, 'toggle');
    expect(s.docs.selected).toEqual([2, 4]);
    expect(s.docs.neighbour(-1)).toBe(1);
    expect(s.docs.neighbour(10)).toBe(4);
  });

  it('runs a confirmed action only on yes', () => {
    const s = new Studio();
    let ran = 0;
    s.dialogs.ask('Sure?', 'Yes', () => (ran += 1));
    s.dialogs.answer(false);
    expect(s.dialogs.confirm).toBeNull();
    s.dialogs.ask('Sure?', 'Yes', () => (ran += 1));
    s.dialogs.answer(true);
    expect(ran).toBe(1);
  });

  it('asks before saving over a file changed on disk, then overwrites', async () => {
    const s = new Studio();
    s.docs.doc = 1;
    responses.save = (a) => (a.overwrite ? { path: '/books/b.json', notes: [] } : Promise.reject({ kind: 'changed_on_disk', message: '/books/b.json was changed by another program' }));
    s.locale = 'pt-BR';
    await s.run(() => s.files.save());
    expect(s.feedback.errors).toEqual([]);
    // Worded in the UI language, not the error's English.
    expect(s.dialogs.disk).toMatchObject([{ kind: 'save', doc: 1 }]);
    expect(s.dialogs.disk[0].message).toMatch(/^O arquivo de .* por outro programa/);
    await s.files.resolveDisk(1, 'overwrite');
    expect(s.dialogs.disk).toEqual([]);
    expect(calls.filter((c) => c.cmd === 'save').map((c) => c.args)).toEqual([{ doc: 1, overwrite: false }, { doc: 1, overwrite: true }]);
  });

  it('asks before saving over a server\'s copy changed there, in the UI language', async () => {
    const s = new Studio();
    s.docs.doc = 1;
    responses.save = (a) =>
      a.overwrite
        ? { path: 'Harbor (http://127.0.0.1:8000)', notes: [] }
        : Promise.reject({ kind: 'changed_on_server', message: 'changed', code: { code: 'changed_on_server', book: 'Harbor', how: 'edited' } });
    s.locale = 'pt-BR';
    await s.run(() => s.files.save());
    expect(s.feedback.errors).toEqual([]);
    expect(s.dialogs.disk).toMatchObject([{ kind: 'save', doc: 1, server: true }]);
    expect(s.dialogs.disk[0].message).toBe('"Harbor" foi alterado no servidor desde que foi aberto ou salvo.');
    await s.files.resolveDisk(1, 'overwrite');
    expect(calls.filter((c) => c.cmd === 'save').map((c) => c.args)).toEqual([{ doc: 1, overwrite: false }, { doc: 1, overwrite: true }]);
  });

  it('says where a book folder\'s save put an entry beside a file that is not the book\'s', async () => {
    const s = new Studio();
    s.docs.doc = 1;
    responses.save = () => ({ path: '/books/Saltmere', notes: [{ code: 'saved_under_name', wanted: 'Harbor.md', written: 'Harbor (2).md' }] });
    await s.run(() => s.files.save());
    expect(s.feedback.errors).toEqual([]);
    expect(JSON.stringify(s.feedback.notices)).toContain('Harbor (2).md');
  });

  it('reloads a book changed on disk without unsaved changes, and says so', async () => {
    const s = new Studio();
    await s.docs.refresh();
    s.docs.doc = 1;
    responses.check_disk_changes = () => [{ doc: 1, dirty: false }];
    responses.reload_doc = () => true;
    await s.files.checkDisk();
    expect(s.dialogs.disk).toEqual([]);
    expect(calls.filter((c) => c.cmd === 'reload_doc').map((c) => c.args)).toEqual([{ doc: 1, unlessEdited: true }]);
    expect(s.feedback.notices).toEqual([{ kind: 'message', text: '"B" was changed on disk by another program and has been reloaded.' }]);
    expect(s.reloads).toBe(1);
  });

  it('asks instead when the book was edited while its reload was on its way', async () => {
    const s = new Studio();
    await s.docs.refresh();
    s.docs.doc = 1;
    responses.check_disk_changes = () => [{ doc: 1, dirty: false }];
    // Rust found edits by then: it kept them and read nothing.
    responses.reload_doc = () => false;
    await s.files.checkDisk();
    expect(s.feedback.notices).toEqual([]);
    expect(s.dialogs.disk).toMatchObject([{ kind: 'changed', doc: 1 }]);
  });

  it('reports a book that cannot be read again and still reloads the others', async () => {
    const s = new Studio();
    responses.app_state = () => ({ docs: [1, 2].map((id) => ({ id, name: `B${id}`, path: null, dirty: false, attached: true, entries: 1, can_undo: false, can_redo: false })), chat_error: null, chat_warnings: [], settings: { seed: 0, model: 'gpt-4o', template: { blocks: [] } }, recent: [], tokenizer_file: null, approximate: false });
    await s.docs.refresh();
    s.docs.doc = 1;
    responses.check_disk_changes = () => [{ doc: 1, dirty: false }, { doc: 2, dirty: false }];
    responses.reload_doc = (a) => (a.doc === 1 ? Promise.reject({ kind: 'not_a_book', message: 'b1.json: not a book' }) : true);
    await s.files.checkDisk();
    expect(calls.filter((c) => c.cmd === 'reload_doc').map((c) => (c.args as { doc: number }).doc)).toEqual([1, 2]);
    expect(s.feedback.errors).toContain('b1.json: not a book');
    expect(s.feedback.notices).toEqual([{ kind: 'message', text: '"B2" was changed on disk by another program and has been reloaded.' }]);
  });

  it('asks about a book changed on disk with unsaved changes, once, and reloads only when told', async () => {
    const s = new Studio();
    await s.docs.refresh();
    s.docs.doc = 1;
    responses.check_disk_changes = () => [{ doc: 1, dirty: true }];
    await s.files.checkDisk();
    expect(calls.some((c) => c.cmd === 'reload_doc')).toBe(false);
    expect(s.dialogs.disk).toMatchObject([{ kind: 'changed', doc: 1 }]);
    expect(s.dialogs.disk[0].message).toContain('"B"');
    // A question already open is not replaced by the same one.
    const first = s.dialogs.disk[0];
    await s.files.checkDisk();
    expect(s.dialogs.disk).toEqual([first]);
    responses.reload_doc = () => true;
    await s.files.resolveDisk(1, 'reload');
    expect(calls.filter((c) => c.cmd === 'reload_doc').map((c) => c.args)).toEqual([{ doc: 1, unlessEdited: false }]);
    expect(s.dialogs.disk).toEqual([]);
  });

  it('names a new book in the UI language and opens the sample in one click', async () => {
    const s = new Studio();
    s.locale = 'pt-BR';
    responses.new_book = () => 2;
    await s.files.newBook();
    expect(calls.find((c) => c.cmd === 'new_book')?.args).toEqual({ name: 'Livro sem título' });
    calls.length = 0;
    responses.app_state = () => ({ docs: [{ id: 1, name: 'B', path: null, dirty: false, attached: false, entries: 1, can_undo: false, can_redo: false }, { id: 3, name: 'Saltmere', path: null, dirty: false, attached: true, entries: 10, can_undo: false, can_redo: false }], chat_error: null, chat_warnings: [], settings: { seed: 0, model: 'gpt-4o', template: { blocks: [] } }, recent: [], tokenizer_file: null, approximate: false });
    responses.open_sample = () => 3;
    responses.chat_text = () => 'Narrator: the fog';
    await s.files.openSample();
    const order = calls.map((c) => c.cmd);
    expect(order).toContain('open_sample');
    expect(order.indexOf('chat_text')).toBeGreaterThan(order.indexOf('open_sample'));
    expect(s.preview.chatText).toBe('Narrator: the fog');
    expect(s.docs.doc).toBe(3);
  });

  it('closing the last book leaves no selection behind (no Duplicate or Delete for nothing)', async () => {
    const s = new Studio();
    s.docs.app = responses.app_state({}) as NonNullable<typeof s.docs.app>;
    s.docs.doc = 1;
    s.docs.rows = [detail(1, 'Body').row];
    s.docs.selected = [1];
    const open = s.docs.app;
    let closed = false;
    responses.close_doc = () => {
      closed = true;
    };
    responses.app_state = () => (closed ? { ...(open as object), docs: [] } : open);
    void s.closeBook(1);
    await vi.waitFor(() => expect(s.docs.doc).toBe(null));
    await vi.waitFor(() => expect(s.docs.selected).toEqual([]));
    expect(s.docs.rows).toEqual([]);
  });

  it('Save As of a SillyTavern book offers its own format first; the app\'s own goes through the native Save As', async () => {
    const s = new Studio();
    const st = { id: 1, name: 'Harbor', path: null, dirty: true, attached: true, entries: 1, can_undo: false, can_redo: false, sillytavern: true, risu: false, source: '/books/Harbor.json', save_back: 'sillytavern' };
    responses.app_state = () => ({ docs: [st], chat_error: null, chat_warnings: [], settings: { seed: 0, model: 'gpt-4o', template: { blocks: [] } }, recent: [], tokenizer_file: null, approximate: false });
    responses.export_report = () => ({ entries: 1, notes: [] });
    responses.export_dialog = () => '/books/Harbor.json';
    responses.save_as = () => ({ path: '/books/Harbor (Lorebook Studio).json', notes: [] });
    await s.docs.refresh();
    s.docs.doc = 1;
    await s.files.save(true);
    expect(calls.some((c) => c.cmd === 'save_as')).toBe(false);
    expect(s.dialogs.exporting?.saving?.back).toBe('sillytavern');
    expect(s.dialogs.exporting?.format).toBe('sillytavern');
    await s.files.finishExport();
    expect(calls.find((c) => c.cmd === 'export_dialog')?.args).toEqual({ doc: 1, format: 'sillytavern', intoCard: false });
    // Saving back is no export: the format Export as… remembers stays.
    expect(calls.some((c) => c.cmd === 'save_prefs')).toBe(false);
    // The app's own format: the native Save As.
    await s.files.save(true);
    await s.files.setExportFormat('native');
    await s.files.finishExport();
    expect(calls.filter((c) => c.cmd === 'save_as').length).toBe(1);
    expect(s.dialogs.exporting).toBeNull();
  });

  it('Export as… offers the format chosen last, kept in the preferences', async () => {
    const s = new Studio();
    await s.docs.refresh();
    s.docs.doc = 1;
    responses.export_report = () => ({ entries: 1, notes: [] });
    responses.export_dialog = () => '/out/B.json';
    await s.files.startExport();
    expect(s.dialogs.exporting?.format).toBe('sillytavern');
    await s.files.setExportFormat('risu');
    await s.files.finishExport();
    expect(calls.find((c) => c.cmd === 'save_prefs')?.args).toMatchObject({ prefs: { export_format: 'risu' } });
    await s.files.startExport();
    expect(s.dialogs.exporting?.format).toBe('risu');
    // The next run reads it back.
    responses.load_prefs = () => ({ theme: 'dark', panes: [], export_format: 'agnai' });
    const next = new Studio();
    await next.loadPrefs();
    expect(next.exportFormat).toBe('agnai');
  });
});

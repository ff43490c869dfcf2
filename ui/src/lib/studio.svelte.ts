// The UI's state: what is shown and selected. Documents live in Rust; this
// holds views of them and sends every edit through `api`.
import { api, IpcError, toIpcError } from './ipc';
import { format, pickLocale, type Locale, type MessageKey } from './i18n';
import type {
  AppStateView,
  Catalog,
  Entry,
  EntryDetail,
  EntryFilter,
  EntryRow,
  ExportFormat,
  LogRow,
  PendingImport,
  Report,
  PreviewView,
  SortKey,
} from './bindings';

export type Theme = 'system' | 'light' | 'dark';

function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (t) clearTimeout(t);
    t = setTimeout(fn, ms);
  };
}

/** A deep plain copy of reactive state, to send over IPC. */
function plain<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

export class Studio {
  locale = $state<Locale>(pickLocale(typeof navigator !== 'undefined' ? navigator.language : 'en'));
  theme = $state<Theme>('system');
  catalog = $state<Catalog | null>(null);
  app = $state<AppStateView | null>(null);
  doc = $state<number | null>(null);
  rows = $state<EntryRow[]>([]);
  search = $state('');
  filter = $state<EntryFilter>('all');
  sort = $state<SortKey>('order');
  descending = $state(true);
  selected = $state<number[]>([]);
  anchor = $state<number | null>(null);
  detail = $state<EntryDetail | null>(null);
  draft = $state<Entry | null>(null);
  preview = $state<PreviewView | null>(null);
  log = $state<LogRow[]>([]);
  request = $state<number | null>(null);
  /** The request log is computed only while its panel is open (it replays
   *  every request of the chat). */
  showLog = $state(false);
  errors = $state<string[]>([]);
  notices = $state<string[]>([]);
  confirm = $state<{ text: string; yes: string; action: () => void } | null>(null);
  showSettings = $state(false);
  imports = $state<PendingImport[]>([]);
  exporting = $state<{ format: ExportFormat; intoCard: boolean; report: Report | null } | null>(null);
  focusSearch = $state(0);

  t = (key: MessageKey, params: Record<string, string | number> = {}) => format(this.locale, key, params);

  /** Shows an error to the user; cancelled dialogs are not errors. */
  fail = (e: unknown) => {
    const err = toIpcError(e);
    if (err.kind === 'cancelled') return;
    this.errors = [...this.errors, err.message];
  };

  async init() {
    try {
      this.catalog = await api.catalog();
      await this.refreshState();
      this.doc = this.app?.docs[0]?.id ?? null;
      await this.reloadList();
      if (this.rows.length > 0) await this.select(this.rows[0].id);
      await this.refreshPreview();
      this.notices = [...this.notices, ...(await api.takeNotices())];
    } catch (e) {
      this.fail(e);
    }
  }

  get currentDoc() {
    return this.app?.docs.find((d) => d.id === this.doc) ?? null;
  }

  async refreshState() {
    this.app = await api.appState();
    if (this.doc !== null && !this.app.docs.some((d) => d.id === this.doc)) {
      this.doc = this.app.docs[0]?.id ?? null;
    }
  }

  async reloadList() {
    if (this.doc === null) {
      this.rows = [];
      return;
    }
    this.rows = await api.listEntries(this.doc, {
      search: this.search,
      filter: this.filter,
      sort: this.sort,
      descending: this.descending,
    });
  }

  /** Everything after a document edit: state, list, preview. */
  async afterEdit() {
    await this.refreshState();
    await this.reloadList();
    this.schedulePreview();
  }

  private previewNow = async () => {
    try {
      this.preview = await api.preview(this.request);
      if (this.showLog) this.log = await api.previewLog();
    } catch (e) {
      this.fail(e);
    }
  };

  schedulePreview = debounce(() => void this.previewNow(), 120);

  async refreshPreview() {
    await this.previewNow();
  }

  async switchDoc(doc: number) {
    await this.flushDraft();
    this.doc = doc;
    this.selected = [];
    this.detail = null;
    this.draft = null;
    await this.reloadList();
    if (this.rows.length > 0) await this.select(this.rows[0].id);
  }

  async select(id: number, mode: 'one' | 'toggle' | 'range' = 'one') {
    if (this.doc === null) return;
    if (mode === 'toggle') {
      this.selected = this.selected.includes(id) ? this.selected.filter((x) => x !== id) : [...this.selected, id];
    } else if (mode === 'range' && this.anchor !== null) {
      const a = this.rows.findIndex((r) => r.id === this.anchor);
      const b = this.rows.findIndex((r) => r.id === id);
      const [lo, hi] = a < b ? [a, b] : [b, a];
      this.selected = this.rows.slice(lo, hi + 1).map((r) => r.id);
    } else {
      this.selected = [id];
      this.anchor = id;
    }
    await this.flushDraft();
    try {
      const detail = await api.getEntry(this.doc, id);
      this.detail = detail;
      this.draft = structuredClone(detail.entry);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Selects an entry of an attached book from the preview. */
  async reveal(book: number, id: number) {
    const doc = this.preview?.books[book]?.doc;
    if (doc === undefined) return;
    if (doc !== this.doc) await this.switchDoc(doc);
    if (!this.rows.some((r) => r.id === id)) {
      this.search = '';
      this.filter = 'all';
      await this.reloadList();
    }
    await this.select(id);
  }

  async step(delta: number) {
    if (this.rows.length === 0) return;
    const current = this.rows.findIndex((r) => r.id === this.selected[0]);
    const next = Math.min(this.rows.length - 1, Math.max(0, current + delta));
    await this.select(this.rows[next].id);
  }

  private pending = false;
  private sendDraft = debounce(() => void this.flushDraft(), 150);

  /** Records a local edit of the selected entry and sends it soon. */
  edit(patch: Partial<Entry>) {
    if (!this.draft) return;
    this.draft = { ...this.draft, ...patch };
    this.pending = true;
    this.sendDraft();
  }

  async flushDraft() {
    if (!this.pending || !this.draft || this.doc === null) return;
    this.pending = false;
    const sent: Entry = plain(this.draft);
    try {
      const detail = await api.updateEntry(this.doc, sent);
      // Keep what the user typed since; take diagnostics and counts.
      if (this.draft && this.draft.id === detail.entry.id) this.detail = detail;
      // One edited entry updates its own row; the list is not reloaded, so
      // typing stays cheap on 10,000-entry books.
      this.rows = this.rows.map((r) => (r.id === detail.row.id ? detail.row : r));
      await this.refreshState();
      this.schedulePreview();
    } catch (e) {
      this.fail(e);
    }
  }

  async setDecorator(name: string, arg: string | null, present: boolean) {
    if (!this.draft) return;
    try {
      const content = await api.setDecorator(this.draft.content, name, arg, present);
      this.edit({ content });
      await this.flushDraft();
    } catch (e) {
      this.fail(e);
    }
  }

  async run(action: () => Promise<unknown>) {
    try {
      await action();
    } catch (e) {
      this.fail(e);
    }
  }

  async addEntry() {
    if (this.doc === null) return;
    await this.flushDraft();
    const id = await api.addEntry(this.doc);
    this.search = '';
    this.filter = 'all';
    await this.afterEdit();
    await this.select(id);
  }

  async duplicate() {
    if (this.doc === null || this.selected.length === 0) return;
    await this.flushDraft();
    const ids = await api.duplicateEntries(this.doc, this.selected);
    await this.afterEdit();
    if (ids.length > 0) await this.select(ids[0]);
  }

  async deleteSelected() {
    const doc = this.doc;
    const ids = [...this.selected];
    if (doc === null || ids.length === 0) return;
    await api.deleteEntries(doc, ids);
    this.selected = [];
    this.detail = null;
    this.draft = null;
    await this.afterEdit();
  }

  async bulk(patch: { enabled?: boolean; order?: number; priority?: number }) {
    if (this.doc === null || this.selected.length === 0) return;
    await this.flushDraft();
    await api.bulkUpdate(this.doc, this.selected, {
      enabled: patch.enabled ?? null,
      order: patch.order ?? null,
      priority: patch.priority ?? null,
    });
    await this.afterEdit();
    if (this.selected.length > 0) await this.reselect();
  }

  /** Reloads the selected entry from Rust (after undo, redo, bulk edits). */
  async reselect() {
    if (this.doc === null || this.selected.length === 0) return;
    const id = this.selected[0];
    try {
      const detail = await api.getEntry(this.doc, id);
      this.detail = detail;
      this.draft = structuredClone(detail.entry);
    } catch {
      this.detail = null;
      this.draft = null;
      this.selected = [];
    }
  }

  async undo() {
    if (this.doc === null) return;
    await this.flushDraft();
    await api.undo(this.doc);
    await this.afterEdit();
    await this.reselect();
  }

  async redo() {
    if (this.doc === null) return;
    await this.flushDraft();
    await api.redo(this.doc);
    await this.afterEdit();
    await this.reselect();
  }

  async save(as = false): Promise<void> {
    if (this.doc === null) return;
    await this.flushDraft();
    try {
      const path = as ? await api.saveAs(this.doc) : await api.save(this.doc);
      this.notices = [...this.notices, this.t('notice.saved', { path })];
    } catch (e) {
      const err = toIpcError(e);
      if (err.kind === 'needs_path') return this.save(true);
      throw err;
    }
    await this.refreshState();
  }

  async newBook() {
    await this.flushDraft();
    const doc = await api.newBook();
    await this.refreshState();
    await this.switchDoc(doc);
    this.showSettings = true;
    this.schedulePreview();
  }

  /** Open… (`importing` false) or Import…: native files open at once,
   *  others wait for confirmation with their report. */
  async openDialog(importing = false) {
    await this.flushDraft();
    const outcomes = await api.openDialog(importing);
    const opened = outcomes.flatMap((o) => (o.kind === 'opened' ? [o] : []));
    await this.afterOpen(opened.map((o) => o.doc), opened.flatMap((o) => o.notes));
    this.imports = await api.pendingImports();
  }

  async refreshImports() {
    this.imports = await api.pendingImports();
  }

  async confirmImport(id: number, accept: boolean) {
    const doc = await api.confirmImport(id, accept);
    this.imports = await api.pendingImports();
    if (doc !== null) await this.afterOpen([doc], []);
  }

  async startExport(format: ExportFormat = 'silly_tavern') {
    if (this.doc === null) return;
    await this.flushDraft();
    this.exporting = { format, intoCard: false, report: null };
    this.exporting.report = await api.exportReport(this.doc, format);
  }

  async setExportFormat(format: ExportFormat) {
    if (this.doc === null || !this.exporting) return;
    this.exporting = { format, intoCard: this.exporting.intoCard, report: null };
    const report = await api.exportReport(this.doc, format);
    if (this.exporting?.format === format) this.exporting.report = report;
  }

  async finishExport() {
    if (this.doc === null || !this.exporting) return;
    const { format, intoCard } = this.exporting;
    const path = await api.exportDialog(this.doc, format, intoCard);
    this.exporting = null;
    this.notices = [...this.notices, this.t('notice.exported', { path })];
  }

  async openRecent(path: string) {
    const r = await api.openRecent(path);
    await this.afterOpen([r.doc], r.notes);
  }

  async afterOpen(docs: number[], notes: string[]) {
    this.notices = [...this.notices, ...notes];
    await this.refreshState();
    if (docs.length > 0) await this.switchDoc(docs[docs.length - 1]);
    this.schedulePreview();
  }

  closeBook(doc: number) {
    const d = this.app?.docs.find((x) => x.id === doc);
    if (!d) return;
    const close = async () => {
      await api.closeDoc(doc);
      await this.refreshState();
      if (this.doc === doc || this.doc === null) {
        this.doc = null;
        const next = this.app?.docs[0]?.id;
        if (next !== undefined) await this.switchDoc(next);
        else {
          this.rows = [];
          this.detail = null;
          this.draft = null;
        }
      }
      this.schedulePreview();
    };
    if (d.dirty) {
      this.confirm = { text: this.t('confirm.closeText', { name: d.name }), yes: this.t('confirm.close'), action: () => void this.run(close) };
    } else {
      void this.run(close);
    }
  }

  askQuit() {
    const dirty = this.app?.docs.filter((d) => d.dirty) ?? [];
    if (dirty.length === 0) {
      void this.run(() => api.quit());
      return;
    }
    this.confirm = {
      text: this.t('confirm.quitText', { names: dirty.map((d) => d.name).join(', ') }),
      yes: this.t('confirm.quit'),
      action: () => void this.run(() => api.quit()),
    };
  }

  async setChat(text: string) {
    this.app = await api.setChat(text);
    this.schedulePreview();
  }

  async openChat() {
    this.app = await api.openChatDialog();
    this.request = null;
    this.schedulePreview();
  }

  async setAttached(doc: number, attached: boolean) {
    await api.setAttached(doc, attached);
    await this.refreshState();
    this.schedulePreview();
  }

  async setModel(model: string) {
    if (!this.app) return;
    await api.setPreviewSettings({ ...plain(this.app.settings), model });
    await this.refreshState();
    await this.reloadList();
    if (this.selected.length > 0) await this.reselect();
    this.schedulePreview();
  }

  async reroll() {
    if (!this.app) return;
    const seed = Math.floor(Math.random() * 2 ** 31);
    await api.setPreviewSettings({ ...plain(this.app.settings), seed });
    await this.refreshState();
    this.schedulePreview();
  }

  async moveSlot(delta: number) {
    if (!this.app) return;
    const settings = plain(this.app.settings);
    const blocks = settings.template.blocks;
    const from = blocks.findIndex((b) => b.kind === 'lorebook');
    const to = from + delta;
    if (from < 0 || to < 0 || to >= blocks.length) return;
    const [slot] = blocks.splice(from, 1);
    blocks.splice(to, 0, slot);
    await api.setPreviewSettings(settings);
    await this.refreshState();
    this.schedulePreview();
  }

  async toggleLog(open: boolean) {
    this.showLog = open;
    if (open) this.log = await api.previewLog();
  }

  async setRequest(k: number | null) {
    this.request = k;
    await this.previewNow();
  }
}

export { IpcError };
export const studio = new Studio();

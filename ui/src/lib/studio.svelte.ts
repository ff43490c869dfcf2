// The UI's state, split by concern: the documents and their entry list
// (`docs`), the selected entry's draft (`entry`), the live preview
// (`preview`), the modal dialogs (`dialogs`) and what the user is told
// (`feedback`). Documents live in Rust; the stores hold views of them and
// send every edit through `api`. This class holds the actions that span
// stores, such as switching documents or undoing an edit.
//
// Components start every action through `run`, which reports a failure in
// the error banner; the actions here throw, so a failed step stops the rest.
// The actions on books as files (save, open, import, merge, export) are
// `files` (files.svelte.ts).
import { api, toIpcError } from './ipc';
import { format, formatNumber, pickLocale, type Locale, type MessageKey, type PluralKey } from './i18n';
import { Documents, type SelectMode } from './documents.svelte';
import { EntryDraft } from './draft.svelte';
import { Preview } from './preview.svelte';
import { Dialogs } from './dialogs.svelte';
import { Feedback } from './feedback.svelte';
import { Recovery } from './recovery.svelte';
import { Problems } from './problems.svelte';
import { Scenarios } from './scenarios.svelte';
import { Impact } from './impact.svelte';
import { Figures } from './figures.svelte';
import { FileActions } from './files.svelte';
import type { AppError, Catalog, ExportFormat, MergeChoices, MergeView, Note, Problem, Span, StEdit } from './bindings';
import { errorText, noteText } from './messages';
import { restorePanes, DEFAULT_PANES, type Panes } from './layout';

export type Theme = 'system' | 'light' | 'dark';

export class Studio {
  locale = $state<Locale>(pickLocale(typeof navigator !== 'undefined' ? navigator.language : 'en'));
  theme = $state<Theme>('system');
  /** The entry list's and the editor's share of the window (see layout.ts). */
  panes = $state<Panes>([...DEFAULT_PANES]);
  /** The format Export as… chose last, offered first (kept across runs). */
  exportFormat = $state<ExportFormat>('sillytavern');
  /** The first-run hint was dismissed (kept across runs); `null` until
   *  the preferences are read, so the hint never flashes. */
  welcomed = $state<boolean | null>(null);
  /** Whether the saved preferences were read: only then are changes saved,
   *  so the defaults of the first frame never overwrite them. */
  prefsLoaded = $state(false);
  /** What the engine offers: decorators, models, formats, limits. */
  catalog = $state<Catalog | null>(null);
  /** Why recovery copies cannot be written, while they cannot: shown as a
   *  lasting notice (Rust sends each change as `autosave-status`). */
  autosaveFailure = $state<AppError | null>(null);

  readonly feedback = new Feedback((e) => errorText(this.t, e));
  readonly run = this.feedback.run;
  readonly docs = new Documents((e) => void this.run(() => Promise.reject(e)));
  /** The lint problems of the shown book (the Problems panel, badges). */
  readonly problems = new Problems(() => this.docs.doc, this.run);
  /** The shown book's scenarios (the Scenarios panel); recording one is an
   *  edit of the book (dirty mark, undo). */
  readonly scenarios = new Scenarios(() => this.docs.doc, this.run, () => this.docs.refresh());
  /** What the shown book's unsaved edits change (the impact strip). */
  readonly impact = new Impact(() => this.docs.doc, this.run);
  /** The shown book's figures (the Figures panel), while it is open. */
  readonly figures = new Figures(() => this.docs.doc, this.run);
  readonly preview = new Preview(this.docs, this.run, {
    // Whatever the preview is refreshed for (an edit, the chat, the
    // attached books, the rules) the checks read too.
    changed: () => {
      this.problems.schedule();
      this.scenarios.schedule();
      this.impact.schedule();
      this.figures.changed();
    },
    selected: (): [number, number] | null => (this.docs.doc !== null && this.entry.draft ? [this.docs.doc, this.entry.draft.id] : null),
    // RisuAI reads decorators the guide does not know: the list's badges
    // and the editor's diagnostics are asked for again.
    rulesChanged: async () => {
      await this.entry.flush();
      await this.docs.reloadList();
      const doc = this.docs.doc;
      const id = this.entry.draft?.id;
      if (doc !== null && id !== undefined) await this.entry.load(doc, id);
    },
  });
  /** The span of the problem last clicked, for the editor to select once
   *  its entry is shown; `n` tells two clicks on the same problem apart. */
  highlight = $state<{ id: number; span: Span; n: number } | null>(null);
  /** The merge being decided (Merge a Book Into This One…). */
  merge = $state<MergeView | null>(null);
  readonly dialogs = new Dialogs();
  readonly recovery = new Recovery();
  /** Saving, opening, importing, merging and exporting books. */
  readonly files = new FileActions(this);
  readonly entry = new EntryDraft({
    doc: () => this.docs.doc,
    run: this.run,
    previewAsk: (): ReturnType<Preview['ask']> => this.preview.ask(),
    saved: async (detail, edited) => {
      this.docs.replaceRow(detail.row);
      if (edited) {
        // The edit's answer carries the state (dirty mark, undo) and, when
        // it could, the preview: a keystroke is one round trip.
        this.docs.take(edited.state);
        if (edited.preview && edited.ticket !== null) await this.preview.take(edited.preview, edited.ticket);
        else this.preview.schedule();
        return;
      }
      // The preview is asked first, so it is computed while the state
      // (dirty mark, undo) is fetched, not after it.
      this.preview.schedule();
      await this.docs.refresh();
    },
  });

  t = (key: MessageKey | PluralKey, params: Record<string, string | number> = {}) => format(this.locale, key, params);
  /** A number as the UI's language writes it (`1,234` / `1.234`). */
  num = (value: number) => formatNumber(this.locale, value);

  /** Applies the preferences of an earlier run (theme, language, panes). */
  async loadPrefs() {
    try {
      const p = await api.loadPrefs();
      if (p.theme === 'system' || p.theme === 'light' || p.theme === 'dark') this.theme = p.theme;
      if (p.locale === 'en' || p.locale === 'pt-BR') this.locale = p.locale;
      this.panes = restorePanes(p.panes);
      if (p.export_format) this.exportFormat = p.export_format as ExportFormat;
      this.welcomed = p.welcomed;
    } finally {
      this.prefsLoaded = true;
    }
  }

  /** Dismisses the first-run hint for good. */
  async dismissWelcome() {
    this.welcomed = true;
    await this.savePrefs();
  }

  /** Saves the current preferences. */
  savePrefs() {
    return api.savePrefs({ theme: this.theme, locale: this.locale, panes: [...this.panes], export_format: this.exportFormat, welcomed: this.welcomed === true });
  }

  async init() {
    await this.run(() => this.loadPrefs());
    await this.run(async () => {
      // The model and tokenizer file of the last run, before anything is
      // counted; what no longer works is named in the notices.
      this.feedback.add(await api.restorePreviewSettings());
      this.catalog = await api.catalog();
      await this.docs.refresh();
      await this.preview.loadChat();
      this.docs.doc = this.docs.app?.docs[0]?.id ?? null;
      // The list first, then the preview; a big book's token counts
      // follow in the background, after both are painted.
      await this.docs.reloadList(false);
      if (this.docs.rows.length > 0) await this.select(this.docs.rows[0].id);
      // A preview that fails is reported; the start-up notices still show.
      await this.run(() => this.preview.refresh());
      void this.run(() => this.problems.now());
      void this.run(() => this.scenarios.now());
      void this.run(() => this.impact.now());
      this.feedback.add(await api.takeNotices());
      void this.docs.fillTokens();
    });
    // Asked even when the start-up above failed: it may be why the
    // recovered books are needed.
    await this.run(() => this.recovery.refresh());
    await this.run(async () => {
      this.autosaveFailure = await api.autosaveStatus();
    });
  }

  /** Opens a book recovered from an earlier run. */
  async restoreRecovered(id: string) {
    await this.entry.flush();
    const doc = await this.recovery.restore(id);
    await this.files.afterOpen([doc], []);
  }

  /** Everything after a document edit: state, list, preview. */
  async afterEdit() {
    await this.docs.refresh();
    await this.docs.reloadList();
    this.preview.schedule();
  }

  async switchDoc(doc: number) {
    await this.entry.flush();
    this.docs.doc = doc;
    this.docs.selected = [];
    this.entry.clear();
    // The preview follows the tab (its books, its chat), while the list
    // loads; the checks that read which books are attached wait for it.
    const shown = this.preview.showDoc(doc).then(async () => {
      await this.docs.refresh();
      void this.run(() => this.problems.now());
      void this.run(() => this.scenarios.now());
      void this.run(() => this.impact.now());
      if (this.figures.open) void this.run(() => this.figures.now());
    });
    await this.docs.reloadList();
    // The first entry, unless one was picked while the list loaded.
    if (this.docs.doc === doc && this.docs.selected.length === 0 && this.docs.rows.length > 0) {
      await this.select(this.docs.rows[0].id);
    }
    await shown;
  }

  /** Shows the entry of problem `p` and selects what it points at. */
  async showProblem(p: Problem) {
    if (!this.docs.rows.some((r) => r.id === p.entry.id)) {
      this.docs.showAll();
      await this.docs.reloadList();
    }
    await this.select(p.entry.id);
    this.highlight = { id: p.entry.id, span: p.span, n: (this.highlight?.n ?? 0) + 1 };
  }

  /** Applies problem `p`'s quick fix, as one undo step. */
  async applyFix(p: Problem) {
    const doc = this.docs.doc;
    if (doc === null || !p.fix) return;
    await this.entry.flush();
    const detail = await api.applyFix(doc, p.entry.id, p.fix);
    if (this.entry.draft?.id === p.entry.id) {
      this.entry.detail = detail;
      this.entry.draft = structuredClone(detail.entry);
    }
    await this.afterEdit();
  }

  async select(id: number, mode: SelectMode = 'one') {
    const doc = this.docs.doc;
    if (doc === null) return;
    this.docs.choose(id, mode);
    await this.entry.flush();
    await this.run(() => this.entry.load(doc, id));
  }

  /** Selects an entry of an attached book from the preview. */
  async reveal(book: number, id: number) {
    const doc = this.preview.view?.books[book]?.doc;
    if (doc === undefined) return;
    if (doc !== this.docs.doc) await this.switchDoc(doc);
    if (!this.docs.rows.some((r) => r.id === id)) {
      this.docs.showAll();
      await this.docs.reloadList();
    }
    await this.select(id);
  }

  async step(delta: number) {
    const id = this.docs.neighbour(delta);
    if (id !== null) await this.select(id);
  }

  async addEntry() {
    if (this.docs.doc === null) return;
    await this.entry.flush();
    const id = await api.addEntry(this.docs.doc);
    this.docs.showAll();
    await this.afterEdit();
    await this.select(id);
  }

  async duplicate() {
    if (this.docs.doc === null || this.docs.selected.length === 0) return;
    await this.entry.flush();
    // The copy's name is worded here: `{name}` stays for Rust to fill.
    const ids = await api.duplicateEntries(this.docs.doc, this.docs.selected, this.t('entry.copyName', { name: '{name}' }));
    await this.afterEdit();
    if (ids.length > 0) await this.select(ids[0]);
  }

  /** Asks, then deletes the selected entries. */
  askDelete() {
    const n = this.docs.selected.length;
    this.dialogs.ask(this.t('confirm.delete', { n }), this.t('confirm.deleteYes'), () => void this.run(() => this.deleteSelected()));
  }

  async deleteSelected() {
    const doc = this.docs.doc;
    const ids = [...this.docs.selected];
    if (doc === null || ids.length === 0) return;
    await api.deleteEntries(doc, ids);
    this.docs.selected = [];
    this.entry.clear();
    await this.afterEdit();
  }

  async bulk(patch: { enabled?: boolean; order?: number; priority?: number; st?: StEdit[] }) {
    if (this.docs.doc === null || this.docs.selected.length === 0) return;
    await this.entry.flush();
    await api.bulkUpdate(this.docs.doc, this.docs.selected, {
      enabled: patch.enabled ?? null,
      order: patch.order ?? null,
      priority: patch.priority ?? null,
      st: patch.st ?? [],
    });
    await this.afterEdit();
    if (this.docs.selected.length > 0) await this.reselect();
  }

  /** Makes a folder inside the selected folder (or the selected entry's
   *  folder), selects it and shows it open. */
  async addFolder() {
    const doc = this.docs.doc;
    if (doc === null) return;
    await this.entry.flush();
    const at = this.docs.rows.find((r) => r.id === this.docs.selected[0]);
    const parent = at ? (at.folder ? at.id : at.parent) : null;
    const id = await api.addFolder(doc, this.t('folder.newName'), parent);
    if (parent !== null) this.docs.toggleFolder(parent, true);
    await this.afterEdit();
    await this.select(id);
  }

  /** Puts `ids` (default: the selection) into folder `into` (`null`: the
   *  top), as one undo step. */
  async moveTo(into: number | null, ids: number[] = this.docs.selected) {
    const doc = this.docs.doc;
    if (doc === null || ids.length === 0) return;
    await this.entry.flush();
    await api.moveToFolder(doc, ids, into);
    if (into !== null) this.docs.toggleFolder(into, true);
    await this.afterEdit();
    await this.reselect();
  }

  async renameFolder(id: number, name: string) {
    const doc = this.docs.doc;
    if (doc === null) return;
    await api.renameFolder(doc, id, name);
    await this.afterEdit();
    await this.reselect();
  }

  async setFolderEnabled(id: number, enabled: boolean) {
    const doc = this.docs.doc;
    if (doc === null) return;
    await this.entry.flush();
    await api.setFolderEnabled(doc, id, enabled);
    await this.afterEdit();
    await this.reselect();
  }

  /** Selects every entry inside folder `id` (any depth), opening it. */
  async selectFolderEntries(id: number) {
    const doc = this.docs.doc;
    if (doc === null) return;
    const ids = await api.folderEntries(doc, id);
    if (ids.length === 0) return;
    this.docs.toggleFolder(id, true);
    await this.select(ids[0]);
    this.docs.selected = ids;
  }

  /** Asks what becomes of folder `id`'s contents, then deletes it. */
  askDeleteFolder(id: number, name: string, inside: number) {
    const doc = this.docs.doc;
    if (doc === null) return;
    const gone = async (contents: 'keep' | 'delete') => {
      await api.deleteFolder(doc, id, contents);
      this.docs.selected = [];
      this.entry.clear();
      await this.afterEdit();
    };
    if (inside === 0) {
      this.dialogs.ask(this.t('folder.deleteEmpty', { name }), this.t('confirm.deleteYes'), () => void this.run(() => gone('keep')));
      return;
    }
    this.dialogs.ask(
      this.t('folder.deleteAsk', { name, n: inside }),
      this.t('folder.deleteAll', { n: inside }),
      () => void this.run(() => gone('delete')),
      { label: this.t('folder.deleteKeep'), action: () => void this.run(() => gone('keep')) },
    );
  }

  /** Reloads the selected entry from Rust (after undo, redo, bulk edits). */
  async reselect() {
    const doc = this.docs.doc;
    if (doc === null || this.docs.selected.length === 0) return;
    try {
      await this.entry.load(doc, this.docs.selected[0]);
    } catch {
      // The entry is gone (an undone add): nothing is selected any more.
      this.entry.clear();
      this.docs.selected = [];
    }
  }

  async undo() {
    if (this.docs.doc === null) return;
    await this.entry.flush();
    await api.undo(this.docs.doc);
    await this.afterEdit();
    await this.reselect();
  }

  async redo() {
    if (this.docs.doc === null) return;
    await this.entry.flush();
    await api.redo(this.docs.doc);
    await this.afterEdit();
    await this.reselect();
  }

  /** Bumped after each reload: what shows a book's settings reads them
   *  again. */
  reloads = $state(0);

  /** Closes `doc`, asking first when it has unsaved changes. The edit
   *  still held here is sent and answered before the question, so an edit
   *  in flight counts: the dirty flag read is the one Rust has after it. */
  async closeBook(doc: number) {
    await this.entry.flush();
    await this.docs.refresh();
    const d = this.docs.app?.docs.find((x) => x.id === doc);
    if (!d) return;
    const close = async () => {
      await api.closeDoc(doc);
      await this.docs.refresh();
      if (this.docs.doc === doc || this.docs.doc === null) {
        this.docs.doc = null;
        const next = this.docs.app?.docs[0]?.id;
        if (next !== undefined) await this.switchDoc(next);
        else {
          this.docs.clearList();
          this.docs.selected = [];
          this.entry.clear();
        }
      }
      this.preview.schedule();
    };
    if (d.dirty) {
      this.dialogs.ask(this.t('confirm.closeText', { name: d.name }), this.t('confirm.close'), () => void this.run(close));
    } else {
      await close();
    }
  }

  /** Quits, asking first when a book has unsaved changes. An edit still
   *  held here is sent before Rust is asked; when that send or the question
   *  fails, the answer counts as "unsaved": quitting asks. */
  askQuit(): Promise<void> {
    const ask = (names: string | null) =>
      this.dialogs.ask(
        names === null ? this.t('confirm.quitUnknown') : this.t('confirm.quitText', { names }),
        this.t('confirm.quit'),
        () => void this.run(() => api.quit()),
      );
    const shown = this.docs.app?.docs.filter((d) => d.dirty) ?? [];
    if (shown.length > 0) {
      // Dirty already: ask at once; the held edit still goes to Rust, so
      // cancelling keeps it.
      ask(shown.map((d) => d.name).join(', '));
      return this.entry.flush();
    }
    return (async () => {
      const errors = this.feedback.errors.length;
      await this.entry.flush();
      try {
        if (this.feedback.errors.length > errors) return ask(null);
        await this.docs.refresh();
        const dirty = this.docs.app?.docs.filter((d) => d.dirty);
        if (dirty === undefined) return ask(null);
        if (dirty.length > 0) return ask(dirty.map((d) => d.name).join(', '));
        if (await api.hasUnsaved()) return ask(null);
      } catch {
        return ask(null);
      }
      await this.run(() => api.quit());
    })();
  }

  /** The tokenizer changes every entry's count: list, editor and preview. */
  async setModel(model: string) {
    if (!this.docs.app) return;
    if (this.docs.app.tokenizer_file !== null) await api.clearTokenizerFile();
    await api.setPreviewSettings({ ...$state.snapshot(this.docs.app.settings), model });
    await this.recount();
  }

  /** Custom file… of the model picker: a tokenizer file of the user's
   *  counts instead of the model's (a native dialog; Rust reads it). */
  async pickTokenizerFile() {
    await api.pickTokenizerFile();
    await this.recount();
  }

  private async recount() {
    await this.docs.refresh();
    await this.docs.reloadList();
    if (this.docs.selected.length > 0) await this.reselect();
    this.preview.schedule();
  }
}

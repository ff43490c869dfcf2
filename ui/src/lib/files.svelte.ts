// The actions on books as files, split from `Studio` (studio.svelte.ts),
// whose stores they use: saving (and what to do when the file or the
// server's copy changed), reading a book again, new books, opening,
// importing, merging, folders of Markdown files and exporting. The studio
// holds one (`studio.files`); components start them through `run`, like
// every action.
import { api, toIpcError } from './ipc';
import type { ExportFormat, MergeChoices, Note } from './bindings';
import { noteText } from './messages';
import type { Studio } from './studio.svelte';

export class FileActions {
  constructor(private readonly s: Studio) {}

  async save(as = false): Promise<void> {
    const doc = this.s.docs.doc;
    if (doc === null) return;
    await this.s.entry.flush();
    await this.saveDoc(doc, as, false);
  }

  /** Saves `doc`; a file changed on disk since it was opened is not
   *  overwritten unless `overwrite`: the user is asked instead. */
  async saveDoc(doc: number, as: boolean, overwrite: boolean): Promise<void> {
    // A book imported from another tool's file: Save As offers that
    // tool's format first (and says what the app's own keeps besides).
    const back = this.s.docs.app?.docs.find((d) => d.id === doc)?.save_back;
    if (as && back) {
      await this.s.dialogs.startSaveAs(doc, back);
      return;
    }
    try {
      const server = as ? null : this.s.docs.app?.docs.find((d) => d.id === doc)?.server;
      const { path, notes } = as ? await api.saveAs(doc) : await api.save(doc, overwrite);
      const said = server ? this.s.t('server.saved', { book: server.file_id, address: server.address }) : this.s.t('notice.saved', { path });
      this.s.feedback.notify(said, ...notes.map((n) => noteText(this.s.t, n)));
    } catch (e) {
      const err = toIpcError(e);
      if (err.kind === 'needs_path') return this.saveDoc(doc, true, false);
      if (err.code?.code === 'changed_on_server') {
        // The server's copy changed: the same question as for a file.
        const message = this.s.t(`server.changed_${err.code.how}`, { book: err.code.book });
        this.s.dialogs.askDisk({ kind: 'save', doc, message, server: true });
        return;
      }
      if (err.kind === 'changed_on_disk') {
        // Worded here, in the UI language; the error's English message
        // (with the full path) is what the CLI and logs show.
        const name = this.s.docs.app?.docs.find((d) => d.id === doc)?.name ?? '';
        this.s.dialogs.askDisk({ kind: 'save', doc, message: this.s.t('disk.changedText', { name }) });
        return;
      }
      throw err;
    }
    await this.s.docs.refresh();
  }

  /** The answer to a question about a file changed on disk. */
  async resolveDisk(doc: number, answer: 'overwrite' | 'save_as' | 'reload' | 'keep') {
    // Asked because the book has edits, the user knows that reloading
    // drops them.
    this.s.dialogs.doneDisk(doc);
    if (answer === 'overwrite') await this.saveDoc(doc, false, true);
    if (answer === 'save_as') await this.saveDoc(doc, true, false);
    if (answer === 'reload') await this.reload(doc, true);
  }

  /** When the open books' files changed (Rust follows them and says
   *  `disk-changed`) and on window focus: a book changed on disk that has
   *  no unsaved changes is read again, the entry shown staying shown; one
   *  with unsaved changes asks which version to keep, unless a question
   *  about it is already open. */
  async checkDisk() {
    for (const { doc, dirty } of await api.checkDiskChanges()) {
      const name = this.s.docs.app?.docs.find((d) => d.id === doc)?.name ?? '';
      if (dirty) {
        if (!this.s.dialogs.disk.some((d) => d.doc === doc)) {
          this.s.dialogs.askDisk({ kind: 'changed', doc, message: this.s.t('disk.changedText', { name }) });
        }
        continue;
      }
      // One book that cannot be read again (a merge conflict in its file)
      // is reported; the others are still reloaded.
      await this.s.run(async () => {
        if (await this.reload(doc)) this.s.feedback.notify(this.s.t('disk.reloaded', { name }));
      });
    }
  }

  /** Reads `doc` again from its file, dropping its edits. The edit still
   *  held here is sent and answered first, so the decision reads the book's
   *  real state: a book that has edits by then is reloaded only when
   *  `discardEdits` (the user chose to drop them) or after asking. True
   *  when it was reloaded without asking. */
  async reload(doc: number, discardEdits = false): Promise<boolean> {
    await this.s.entry.flush();
    await this.s.docs.refresh();
    const d = this.s.docs.app?.docs.find((x) => x.id === doc);
    if (!d) return false;
    // With `unlessEdited`, Rust reads nothing if the book has edits by the
    // time the request reaches it (a keystroke sent meanwhile). The entry
    // shown is shown again afterwards, whatever happened.
    const go = async (unlessEdited: boolean): Promise<boolean> => {
      const shown = doc === this.s.docs.doc ? this.s.docs.selected[0] : undefined;
      if (doc === this.s.docs.doc) this.s.entry.clear();
      try {
        return await api.reloadDoc(doc, unlessEdited);
      } finally {
        await this.s.docs.refresh();
        if (doc === this.s.docs.doc) {
          await this.s.switchDoc(doc);
          // The entry that was shown stays shown when the file still has it.
          if (shown !== undefined && shown !== this.s.docs.selected[0] && this.s.docs.rows.some((r) => r.id === shown)) {
            await this.s.select(shown);
          }
        }
        this.s.reloads += 1;
        this.s.preview.schedule();
      }
    };
    if (d.dirty && !discardEdits) {
      this.s.dialogs.ask(this.s.t('confirm.reloadText', { name: d.name }), this.s.t('disk.reload'), () => void this.s.run(() => go(false)));
      return false;
    }
    if (await go(!discardEdits)) return true;
    // Edited while the reload was on its way: the edits are kept, and the
    // change on disk is asked about as for any book with edits.
    this.s.dialogs.askDisk({ kind: 'changed', doc, message: this.s.t('disk.changedText', { name: d.name }) });
    return false;
  }


  async newBook() {
    await this.s.entry.flush();
    const doc = await api.newBook(this.s.t('book.newName'));
    await this.s.docs.refresh();
    await this.s.switchDoc(doc);
    this.s.dialogs.showSettings = true;
    this.s.preview.schedule();
  }

  /** The "no book open" state's way in: the bundled sample book, and its
   *  chat in the chat box when the box was empty. */
  async openSample() {
    await this.s.entry.flush();
    const doc = await api.openSample();
    await this.s.docs.refresh();
    await this.s.preview.loadChat();
    await this.s.switchDoc(doc);
    this.s.preview.schedule();
  }

  /** Open… (`importing` false) or Import…: native files open at once,
   *  others wait for confirmation with their report. */
  async openDialog(importing = false) {
    await this.s.entry.flush();
    const outcomes = await api.openDialog(importing);
    const opened = outcomes.flatMap((o) => (o.kind === 'opened' ? [o] : []));
    await this.afterOpen(opened.map((o) => o.doc), opened.flatMap((o) => o.notes));
    await this.s.dialogs.refreshImports();
  }

  /** Merge a Book Into This One…: asks for the other file, then shows
   *  the three groups to decide on. */
  async startMerge() {
    const doc = this.s.docs.doc;
    if (doc === null) return;
    await this.s.entry.flush();
    this.s.merge = await api.mergeDialog(doc);
  }

  /** Applies the merge choices as one undo step and says what it did. */
  async applyMerge(choices: MergeChoices) {
    const m = this.s.merge;
    if (m === null) return;
    const s = await api.applyMerge(m.doc, choices);
    this.s.merge = null;
    this.s.feedback.notify(
      this.s.t('merge.done', { added: s.added, replaced: s.replaced, both: s.kept_both, deleted: s.deleted }),
    );
    await this.s.afterEdit();
    await this.s.reselect();
  }

  async cancelMerge() {
    this.s.merge = null;
    await api.cancelMerge();
  }

  /** Open Folder…: a book kept as a folder of Markdown files. */
  async openFolder() {
    await this.s.entry.flush();
    const o = await api.openFolderDialog();
    if (o.kind === 'opened') await this.afterOpen([o.doc], o.notes);
  }

  /** Save As Folder…: the shown book written as a folder of Markdown
   *  files, then bound to it. */
  async saveAsFolder() {
    const doc = this.s.docs.doc;
    if (doc === null) return;
    await this.s.entry.flush();
    const { path, notes } = await api.saveAsFolder(doc);
    this.s.feedback.notify(this.s.t('notice.saved', { path }), ...notes.map((n) => noteText(this.s.t, n)));
    await this.s.docs.refresh();
  }

  async confirmImport(id: number, accept: boolean) {
    const doc = await api.confirmImport(id, accept);
    await this.s.dialogs.refreshImports();
    if (doc !== null) await this.afterOpen([doc], []);
  }

  async startExport(format: ExportFormat = this.s.exportFormat) {
    if (this.s.docs.doc === null) return;
    await this.s.entry.flush();
    await this.s.dialogs.startExport(this.s.docs.doc, format);
  }

  async setExportFormat(format: ExportFormat) {
    if (this.s.docs.doc !== null) await this.s.dialogs.setExportFormat(this.s.docs.doc, format);
  }

  async finishExport() {
    const doc = this.s.docs.doc;
    const ex = this.s.dialogs.exporting;
    if (doc === null || !ex) return;
    if (ex.saving && ex.format === 'native') {
      // The app's own format: the native Save As, under a name that is
      // never the source file's.
      this.s.dialogs.exporting = null;
      const { path, notes } = await api.saveAs(doc);
      this.s.feedback.notify(this.s.t('notice.saved', { path }), ...notes.map((n) => noteText(this.s.t, n)));
      await this.s.docs.refresh();
      return;
    }
    const path = await this.s.dialogs.finishExport(doc);
    if (path === null) return;
    this.s.feedback.notify(this.s.t(ex.saving ? 'notice.saved' : 'notice.exported', { path }));
    if (!ex.saving && ex.format !== this.s.exportFormat) {
      this.s.exportFormat = ex.format;
      await this.s.savePrefs();
    }
    // Written back over its source, the book is saved.
    await this.s.docs.refresh();
  }

  async openRecent(path: string) {
    await this.s.entry.flush();
    const r = await api.openRecent(path);
    if (r.kind === 'opened') await this.afterOpen([r.doc], r.notes);
    await this.s.dialogs.refreshImports();
  }

  async afterOpen(docs: number[], notes: Note[]) {
    this.s.feedback.notify(...notes.map((n) => noteText(this.s.t, n)));
    await this.s.docs.refresh();
    if (docs.length > 0) await this.s.switchDoc(docs[docs.length - 1]);
    this.s.preview.schedule();
  }

  /** Rust opened or imported books on its own (a second launch with files):
   *  show the new ones, their pending imports and notices. */
  async docsChanged() {
    const before = new Set(this.s.docs.app?.docs.map((d) => d.id));
    await this.s.docs.refresh();
    const added = this.s.docs.app?.docs.filter((d) => !before.has(d.id)).map((d) => d.id) ?? [];
    await this.afterOpen(added, []);
    await this.s.dialogs.refreshImports();
    this.s.feedback.add(await api.takeNotices());
  }
}

// The app's modal state: the confirmation question, the book settings
// panel, foreign imports waiting for confirmation, the export dialog and the
// questions about files changed on disk.
import { api } from './ipc';
import type { ExportFormat, PendingImport, Report } from './bindings';

export interface Confirmation {
  text: string;
  /** The label of the button that runs `action`. */
  yes: string;
  action: () => void;
  /** A second answer beside yes (a folder's delete: keep its entries). */
  other?: { label: string; action: () => void };
}

export interface Exporting {
  format: ExportFormat;
  intoCard: boolean;
  /** What the format can hold; `null` while Rust checks. */
  report: Report | null;
  /** Save As of a book imported from another tool's file: the format it
   *  is written back in (offered first) or the app's own (`native`). */
  saving?: { back: ExportFormat };
}

/** A book whose file changed on disk behind the app's back while it has
 *  unsaved changes: `save` when a save was refused, `changed` when the
 *  change was noticed (the files followed, or window focus). Either way:
 *  overwrite, save as or reload? */
export interface DiskQuestion {
  kind: 'save' | 'changed';
  doc: number;
  /** Rust's sentence naming the file and what happened to it. */
  message: string;
  /** The book lives on a SillyTavern server, whose copy changed. */
  server?: boolean;
}

export class Dialogs {
  confirm = $state<Confirmation | null>(null);
  showSettings = $state(false);
  imports = $state<PendingImport[]>([]);
  exporting = $state<Exporting | null>(null);
  /** Files changed on disk, asked about one at a time. */
  disk = $state<DiskQuestion[]>([]);

  ask(text: string, yes: string, action: () => void, other?: { label: string; action: () => void }) {
    this.confirm = { text, yes, action, other };
  }

  /** Closes the confirmation; yes runs its action, `other` the second
   *  answer's. */
  answer(yes: boolean | 'other') {
    const c = this.confirm;
    this.confirm = null;
    if (yes === 'other') c?.other?.action();
    else if (yes) c?.action();
  }

  /** Queues a question about `doc`, replacing an older one about it. */
  askDisk(change: DiskQuestion) {
    this.disk = [...this.disk.filter((d) => d.doc !== change.doc), change];
  }

  /** Closes the question about `doc`. */
  doneDisk(doc: number) {
    this.disk = this.disk.filter((d) => d.doc !== doc);
  }

  async refreshImports() {
    this.imports = await api.pendingImports();
  }

  async startExport(doc: number, format: ExportFormat) {
    this.exporting = { format, intoCard: false, report: null };
    this.exporting.report = await api.exportReport(doc, format);
  }

  /** Save As of a book imported from a file in format `back`: the same
   *  dialog, offering `back` first and the app's own format second. */
  async startSaveAs(doc: number, back: ExportFormat) {
    this.exporting = { format: back, intoCard: false, report: null, saving: { back } };
    const report = await api.exportReport(doc, back);
    if (this.exporting?.format === back) this.exporting.report = report;
  }

  async setExportFormat(doc: number, format: ExportFormat) {
    if (!this.exporting) return;
    this.exporting = { format, intoCard: this.exporting.intoCard, report: null, saving: this.exporting.saving };
    const report = await api.exportReport(doc, format);
    // The user may have picked another format while this one was checked.
    if (this.exporting?.format === format) this.exporting.report = report;
  }

  /** Asks where to write and exports; returns the written path. */
  async finishExport(doc: number): Promise<string | null> {
    if (!this.exporting) return null;
    const { format, intoCard } = this.exporting;
    const path = await api.exportDialog(doc, format, intoCard);
    this.exporting = null;
    return path;
  }
}

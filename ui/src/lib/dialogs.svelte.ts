// The app's modal state: the confirmation question, the book settings
// panel, foreign imports waiting for confirmation and the export dialog.
import { api } from './ipc';
import type { ExportFormat, PendingImport, Report } from './bindings';

export interface Confirmation {
  text: string;
  /** The label of the button that runs `action`. */
  yes: string;
  action: () => void;
}

export interface Exporting {
  format: ExportFormat;
  intoCard: boolean;
  /** What the format can hold; `null` while Rust checks. */
  report: Report | null;
}

export class Dialogs {
  confirm = $state<Confirmation | null>(null);
  showSettings = $state(false);
  imports = $state<PendingImport[]>([]);
  exporting = $state<Exporting | null>(null);

  ask(text: string, yes: string, action: () => void) {
    this.confirm = { text, yes, action };
  }

  /** Closes the confirmation; yes runs its action. */
  answer(yes: boolean) {
    const action = this.confirm?.action;
    this.confirm = null;
    if (yes) action?.();
  }

  async refreshImports() {
    this.imports = await api.pendingImports();
  }

  async startExport(doc: number, format: ExportFormat) {
    this.exporting = { format, intoCard: false, report: null };
    this.exporting.report = await api.exportReport(doc, format);
  }

  async setExportFormat(doc: number, format: ExportFormat) {
    if (!this.exporting) return;
    this.exporting = { format, intoCard: this.exporting.intoCard, report: null };
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

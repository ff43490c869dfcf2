// The live preview: what the engine computed for the chat and the attached
// books, the request shown, the request log, and the preview settings
// (chat, attached books, seed, prompt slot) that change it.
import { api } from './ipc';
import { latestWins, Tickets } from './debounce';
import type { Documents } from './documents.svelte';
import type { Run } from './feedback.svelte';
import type { LogRow, PreviewView, Rules, RulesView, StLogRow, StPreviewView, StSettingsView } from './bindings';

export class Preview {
  view = $state<PreviewView | null>(null);
  log = $state<LogRow[]>([]);
  /** The rules in force and SillyTavern's settings. */
  rules = $state<RulesView | null>(null);
  /** The request under SillyTavern's rules, when those are in force. */
  st = $state<StPreviewView | null>(null);
  stLog = $state<StLogRow[]>([]);
  /** The request shown; `null` is the last one. */
  request = $state<number | null>(null);
  /** The request log is computed only while its panel is open (it replays
   *  every request of the chat). */
  showLog = $state(false);
  private readonly docs: Documents;
  private readonly run: Run;
  /** Previews are asked for from several places (edits, the request
   *  picker, start-up); only the newest answer is shown. */
  private readonly answers = new Tickets();

  constructor(docs: Documents, run: Run) {
    this.docs = docs;
    this.run = run;
  }

  /** Whether SillyTavern's rules are in force. */
  get sillytavern(): boolean {
    return this.rules?.rules === 'sillytavern';
  }

  async refresh() {
    const ticket = this.answers.issue();
    // The rules follow the attached books until chosen, so ask each time.
    const rules = await api.rulesView();
    if (rules.rules === 'sillytavern') {
      const st = await api.stPreview(this.request);
      if (!this.answers.take(ticket)) return;
      this.rules = rules;
      this.st = st;
      if (this.showLog) this.stLog = await api.stLog();
      return;
    }
    const view = await api.preview(this.request);
    if (!this.answers.take(ticket)) return;
    this.rules = rules;
    this.view = view;
    if (this.showLog) this.log = await api.previewLog();
  }

  async setRules(rules: Rules) {
    this.rules = await api.setRules(rules);
    await this.refresh();
  }

  async setStSettings(settings: StSettingsView) {
    this.rules = await api.setStSettings(settings);
    await this.refresh();
  }

  /** Load from SillyTavern…: its settings.json through a native dialog. */
  async loadStSettings() {
    this.rules = await api.loadStSettingsDialog();
    await this.refresh();
  }

  /** Refreshes after an edit: at once when no preview is being computed,
   *  else once more when it arrives, so a burst of edits costs two
   *  previews and the last one sees the newest state. */
  private readonly next = latestWins(() => this.run(() => this.refresh()));
  schedule = () => void this.next();

  async setRequest(k: number | null) {
    this.request = k;
    await this.refresh();
  }

  async toggleLog(open: boolean) {
    this.showLog = open;
    if (!open) return;
    if (this.sillytavern) this.stLog = await api.stLog();
    else this.log = await api.previewLog();
  }

  async setChat(text: string) {
    this.docs.app = await api.setChat(text);
    this.schedule();
  }

  async openChat() {
    this.docs.app = await api.openChatDialog();
    this.request = null;
    this.schedule();
  }

  async setAttached(doc: number, attached: boolean) {
    await api.setAttached(doc, attached);
    await this.docs.refresh();
    this.schedule();
  }

  async reroll() {
    if (!this.docs.app) return;
    const seed = Math.floor(Math.random() * 2 ** 31);
    await api.setPreviewSettings({ ...$state.snapshot(this.docs.app.settings), seed });
    await this.docs.refresh();
    this.schedule();
  }

  /** Moves the lorebook slot `delta` blocks in the prompt template. */
  async moveSlot(delta: number) {
    if (!this.docs.app) return;
    const settings = $state.snapshot(this.docs.app.settings);
    const blocks = settings.template.blocks;
    const from = blocks.findIndex((b) => b.kind === 'lorebook');
    const to = from + delta;
    if (from < 0 || to < 0 || to >= blocks.length) return;
    const [slot] = blocks.splice(from, 1);
    blocks.splice(to, 0, slot);
    await api.setPreviewSettings(settings);
    await this.docs.refresh();
    this.schedule();
  }
}

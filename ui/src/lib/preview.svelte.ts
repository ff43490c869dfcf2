// The live preview: what the engine computed for the chat and the attached
// books, the request shown, the request log, and the preview settings
// (chat, attached books, seed, prompt slot) that change it.
import { api, toIpcError } from './ipc';
import { latestWins, Tickets } from './debounce';
import { splice } from './text';
import { tailStart } from './chatBox';
import type { Documents } from './documents.svelte';
import type { Run } from './feedback.svelte';
import type { AdviceView, LogRow, PreviewAnswer, PreviewAsk, PreviewView, PromptMessage, RisuPreviewView, RisuSettingsView, Rules, RulesView, StPreviewView, StPromptMessageView, StSettingsView, StInputsView } from './bindings';

/** The prompt `patch` describes, from `held`, the prompt it changes. */
export function applyPrompt<T>(held: readonly T[], patch: { rev: number; base: number | null; keep_head: number; keep_tail: number; middle: T[] }): T[] {
  if (patch.base === null) return patch.middle;
  return [...held.slice(0, patch.keep_head), ...patch.middle, ...held.slice(held.length - patch.keep_tail)];
}

/** The display names of a view's entries, by `book:id`. */
export function nameMap(view: PreviewView | null): Map<string, string> {
  return new Map((view?.names ?? []).map((n) => [`${n.book}:${n.id}`, n.name]));
}

/** What the preview tells the rest of the UI and asks of it. */
export interface PreviewHooks {
  /** Something the preview reads changed (an edit, the chat, the attached
   *  books, the rules). */
  changed: () => void;
  /** The selected entry as `[doc, id]`, for the budget advice. */
  selected: () => [number, number] | null;
  /** The user chose other rules: the entries' diagnostics follow them. */
  rulesChanged: () => Promise<void>;
}

export class Preview {
  // Raw state: a view is replaced whole, never changed in place, so it
  // needs no deep proxies (reading a proxied view of hundreds of entries
  // on every keystroke was a cost of its own).
  /** The preview shown, under whichever rules are in force: one state
   *  for every rule profile (`view`, `st` and `risu` read it). */
  answer = $state.raw<PreviewAnswer | null>(null);
  /** The request log, one row shape under every rules. */
  log = $state.raw<LogRow[]>([]);
  /** The budget advice of the chat's request log, once asked for; then kept
   *  up to date with the preview. `null` under SillyTavern's rules. */
  advice = $state.raw<AdviceView | null>(null);
  adviceOn = $state(false);
  /** The rules in force and SillyTavern's settings. */
  rules = $state<RulesView | null>(null);

  /** SillyTavern's final prompt, asked for only while its panel is open
   *  (`showStPrompt`), and carried as a change to the one held here. */
  stPrompt = $state.raw<StPromptMessageView[]>([]);
  private stPromptRev: number | null = null;
  showStPrompt = $state(false);
  /** Whether the final prompt under RisuAI's rules is shown (asked for). */
  showRisuPrompt = $state(false);
  /** The persona, character and Author's Note texts of the SillyTavern
   *  preview as typed here: taken from Rust once, then only sent (an
   *  answer to an older keystroke never overwrites newer typing). */
  stInputs = $state.raw<StInputsView | null>(null);
  /** The attached books `rules` was asked for. */
  private rulesFor = '';
  /** The final prompt of the view shown; views carry it as a change to
   *  the one held here (`promptRev`), so a keystroke does not send a long
   *  prompt again. */
  prompt = $state.raw<PromptMessage[]>([]);
  private promptRev: number | null = null;
  /** The view's entry names by `book:id`, built once per view. */
  names = $state.raw<Map<string, string>>(new Map());
  /** The chat box's text as last loaded from Rust (start-up, a chat
   *  file). Typing does not write it: the box holds what is typed, and
   *  a keystroke never re-renders the chat's text. */
  chatText = '';
  /** The part of a long chat shown above the box, read-only (see
   *  `chatBox.ts`); the box holds the rest. Rust holds both. */
  chatHead = $state('');
  /** What the box takes when the chat is loaded: the chat after
   *  `chatHead`. */
  chatTail = '';
  /** Bumped when `chatText` was loaded, so the box takes it. */
  chatLoads = $state(0);
  /** The chat Rust holds, as far as the UI knows: a keystroke sends its
   *  change to this, not the whole chat. `null`: unknown, send it whole. */
  private sentChat: string | null = null;
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

  private readonly hooks: PreviewHooks;

  constructor(docs: Documents, run: Run, hooks: Partial<PreviewHooks> = {}) {
    this.docs = docs;
    this.run = run;
    this.hooks = { changed: () => {}, selected: () => null, rulesChanged: async () => {}, ...hooks };
  }

  /** The request under the guide's rules, when those are shown. */
  get view(): PreviewView | null {
    return this.answer?.rules === 'studio' ? this.answer.view : null;
  }

  /** The request under SillyTavern's rules, when those are shown. */
  get st(): StPreviewView | null {
    return this.answer?.rules === 'sillytavern' ? this.answer.view : null;
  }

  /** The request under RisuAI's rules, when those are shown. */
  get risu(): RisuPreviewView | null {
    return this.answer?.rules === 'risu' ? this.answer.view : null;
  }

  /** Whether SillyTavern's rules are in force. */
  get sillytavern(): boolean {
    return this.rules?.rules === 'sillytavern';
  }

  /** Whether RisuAI's rules are in force. */
  get isRisu(): boolean {
    return this.rules?.rules === 'risu';
  }

  /** Asks for the preview. A preview whose build gave way to a save, an
   *  autosave or closing a book answers `cancelled`: it is asked again
   *  shortly, not reported. */
  async refresh() {
    try {
      await this.refreshOnce();
    } catch (e) {
      if (toIpcError(e).kind !== 'cancelled') throw e;
      setTimeout(this.schedule, 100);
    }
  }

  private async refreshOnce() {
    const ticket = this.answers.issue();
    // The rules follow the attached books until chosen: asked again only
    // when the books changed, so a keystroke costs no extra command.
    const books = this.booksKey();
    let rules = this.rules;
    // (Chosen rules too: the attached card fills the character's fields.)
    if (rules === null || books !== this.rulesFor) {
      rules = await api.rulesView();
      this.rulesFor = books;
      if (this.stInputs === null) this.stInputs = rules.inputs;
    }
    const answer = await api.preview(this.askOf(rules));
    if (!this.answers.take(ticket)) return;
    this.rules = rules;
    await this.show(answer);
  }

  /** What to ask of the rules `rules`: the request shown, and the prompt
   *  held (as the base of the answer's prompt patch). */
  private askOf(rules: RulesView): PreviewAsk {
    return rules.rules === 'sillytavern'
      ? { rules: 'sillytavern', request: this.request, prompt: this.showStPrompt, have: this.stPromptRev }
      : rules.rules === 'risu'
        ? { rules: 'risu', request: this.request, prompt: this.showRisuPrompt }
        : { rules: 'studio', request: this.request, have: this.promptRev };
  }

  /** The preview to send with an edit of an entry (its answer then
   *  carries it, see `take`) and the ticket it is shown under; `null` while
   *  the rules are to be asked again (the preview is then asked for on its
   *  own). */
  ask(): { ask: PreviewAsk; ticket: number } | null {
    const rules = this.rules;
    if (rules === null || this.booksKey() !== this.rulesFor) return null;
    return { ask: this.askOf(rules), ticket: this.answers.issue() };
  }

  /** Shows the preview an edit's answer carried, unless a newer one was
   *  asked for since (`ticket`, from `ask`). */
  async take(answer: PreviewAnswer, ticket: number) {
    this.hooks.changed();
    if (!this.answers.take(ticket)) return;
    await this.show(answer);
  }

  /** Shows an answer under any rules: its prompt patch applied to the
   *  prompt held, then the log and the advice kept up to date. */
  private async show(answer: PreviewAnswer) {
    const shown = answer.rules === 'sillytavern' ? this.showSt(answer.view) : answer.rules === 'studio' ? this.showStudio(answer.view) : true;
    if (!shown) return;
    this.answer = answer;
    if (answer.rules === 'studio') this.names = nameMap(answer.view);
    if (this.showLog) await this.fetchLog();
    if (this.adviceOn && answer.rules === 'studio') this.advice = await api.budgetAdvice(this.hooks.selected());
  }

  /** Takes the SillyTavern prompt patch; `false` when it changes a prompt
   *  no longer held (the whole one is then asked for). */
  private showSt(st: StPreviewView): boolean {
    const patch = st.prompt;
    if (patch && patch.base !== null && patch.base !== this.stPromptRev) {
      // A change to a prompt no longer held: ask for the whole one.
      this.stPromptRev = null;
      this.schedule();
      return false;
    }
    if (patch) {
      this.stPrompt = applyPrompt(this.stPrompt, patch);
      this.stPromptRev = patch.rev;
    }
    return true;
  }

  /** Takes the guide's prompt patch, as `showSt`. */
  private showStudio(view: PreviewView): boolean {
    const patch = view.prompt;
    if (patch.base !== null && patch.base !== this.promptRev) {
      // A change to a prompt no longer held: ask for the whole one.
      this.promptRev = null;
      this.schedule();
      return false;
    }
    this.prompt = applyPrompt(this.prompt, patch);
    this.promptRev = patch.rev;
    return true;
  }

  /** The request log under the rules in force (one command, one row
   *  shape for every rules). A log cut short because a
   *  save, an autosave or a newer request needed the workspace answers
   *  `cancelled`: it is asked again shortly, not reported. */
  private async fetchLog() {
    try {
      this.log = await api.previewLog();
    } catch (e) {
      if (toIpcError(e).kind !== 'cancelled') throw e;
      setTimeout(this.schedule, 100);
    }
  }

  /** The attached books as far as the rules and the card depend on them. */
  private booksKey(): string {
    return JSON.stringify((this.docs.app?.docs ?? []).map((d) => [d.id, d.attached, d.sillytavern, d.risu]));
  }

  async setRules(rules: Rules) {
    this.rules = await api.setRules(rules);
    this.hooks.changed();
    // The answer is the rules view for the books attached now.
    this.rulesFor = this.booksKey();
    await this.refresh();
    await this.hooks.rulesChanged();
  }

  async setStSettings(settings: StSettingsView) {
    this.rules = await api.setStSettings(settings);
    this.hooks.changed();
    await this.refresh();
  }

  /** The chat's variables for SillyTavern's macros (null: the chat's own). */
  async setChatVars(vars: Record<string, string> | null) {
    this.rules = await api.setChatVars(vars);
    this.hooks.changed();
    await this.refresh();
  }

  async setRisuSettings(settings: RisuSettingsView) {
    this.rules = await api.setRisuSettings(settings);
    this.hooks.changed();
    await this.refresh();
  }

  /** Sends the typed inputs, paced by the answers (the newest wins), and
   *  refreshes the preview. */
  private readonly sendInputs = latestWins(async (inputs: StInputsView) => {
    this.rules = await api.setStInputs(inputs);
  });

  async setStInputs(inputs: StInputsView) {
    this.stInputs = inputs;
    await this.sendInputs(inputs);
    this.schedule();
  }

  /** Load from SillyTavern…: its settings.json through a native dialog. */
  async loadStSettings() {
    this.rules = await api.loadStSettingsDialog();
    this.hooks.changed();
    await this.refresh();
  }

  /** Refreshes after an edit: at once when no preview is being computed,
   *  else once more when it arrives, so a burst of edits costs two
   *  previews and the last one sees the newest state. */
  private readonly next = latestWins(() => this.run(() => this.refresh()));
  schedule = () => {
    this.hooks.changed();
    void this.next();
  };

  /** Asks for the budget advice, and keeps it up to date from then on. */
  async askAdvice() {
    this.adviceOn = true;
    try {
      this.advice = await api.budgetAdvice(this.hooks.selected());
    } catch (e) {
      // Gave way to a save or a newer preview (start-up, a busy machine):
      // asked again shortly, as a preview is, not reported.
      if (toIpcError(e).kind !== 'cancelled') throw e;
      setTimeout(() => void this.run(() => this.askAdvice()), 100);
    }
  }

  async setRequest(k: number | null) {
    this.request = k;
    await this.refresh();
  }

  async toggleLog(open: boolean) {
    this.showLog = open;
    if (!open) {
      this.log = [];
      return;
    }
    await this.fetchLog();
  }

  /** Opens or closes the final prompt under SillyTavern's rules; closed,
   *  it is neither computed nor sent. */
  async toggleStPrompt(open: boolean) {
    this.showStPrompt = open;
    if (!open) {
      this.stPrompt = [];
      this.stPromptRev = null;
      return;
    }
    await this.refresh();
  }

  /** Opens or closes the final prompt under RisuAI's rules; closed, it is
   *  neither computed nor sent. */
  async toggleRisuPrompt(open: boolean) {
    this.showRisuPrompt = open;
    await this.refresh();
  }

  /** Loads the chat's text into the chat box. */
  /** The chat sends typed so far, settled (see `trackChat`). */
  private chatSends: Promise<unknown> = Promise.resolve();

  /** Keeps the newest chat send, so that showing another tab waits until
   *  what was typed in this one has reached its book. */
  trackChat(send: Promise<unknown>) {
    this.chatSends = send;
  }

  /** Shows book `doc`'s tab: what was typed is sent first, then the
   *  preview runs on `doc` with its own chat, which the box then holds. */
  async showDoc(doc: number) {
    await this.chatSends.catch(() => undefined);
    await api.showDoc(doc);
    await this.loadChat();
    this.request = null;
    this.schedule();
  }

  async loadChat() {
    // Never null from Rust; a test's mock may answer nothing.
    this.chatText = (await api.chatText()) ?? '';
    this.sentChat = this.chatText;
    const at = tailStart(this.chatText);
    this.chatHead = this.chatText.slice(0, at);
    this.chatTail = this.chatText.slice(at);
    this.chatLoads += 1;
  }

  /** Moves `text`, the start of what the box holds, to the end of the
   *  read-only part: the chat Rust holds does not change. */
  moveToHead(text: string) {
    this.chatHead += text;
  }

  /** Brings the read-only part from `at` on back into the box, before
   *  `box` (what the box holds): the box's new text. The chat Rust holds
   *  does not change. */
  editFrom(at: number, box: string): string {
    const head = this.chatHead;
    this.chatHead = head.slice(0, at);
    return head.slice(at) + box;
  }

  /** Sends the typed chat (`box`, what the box holds after `head`, the
   *  read-only part as it was when the text was typed): the change to the
   *  chat Rust holds (the whole
   *  text when that is unknown or refused). The answer is only how it was
   *  read (errors, warnings), patched in when it changed: the chat's text
   *  never comes back, so a keystroke costs the same on a short chat and a
   *  long one. */
  async setChat(box: string, head: string = this.chatHead, doc: number | null = this.docs.doc) {
    // A concatenation: the engine joins the two only when compared.
    const text = head + box;
    const held = this.sentChat;
    const loads = this.chatLoads;
    this.sentChat = null;
    let status;
    // Each send names the book it was typed for: one still on its way when
    // the tab changes lands in that book's chat (Rust keeps it there).
    if (held === null) status = await api.setChat(text, doc);
    else {
      const d = splice(held, text);
      status = await api.editChat(d.at, d.remove, d.insert, held.length, doc).catch(() => api.setChat(text, doc));
    }
    // Another chat was loaded meanwhile (another tab's): this answer is
    // about a chat no longer shown.
    if (this.chatLoads !== loads) return;
    this.sentChat = text;
    const app = this.docs.app;
    // Patched in only when changed, so an unchanged status re-renders nothing.
    if (app && JSON.stringify(app.chat_error) !== JSON.stringify(status.chat_error)) app.chat_error = status.chat_error;
    if (app && JSON.stringify(app.chat_warnings) !== JSON.stringify(status.chat_warnings)) app.chat_warnings = status.chat_warnings;
    this.schedule();
  }

  /** A character's chat from the connected SillyTavern server as the
   *  preview's chat. */
  async useServerChat(avatar: string, chat: string) {
    this.docs.app = await api.stUseChat(avatar, chat);
    await this.loadChat();
    this.request = null;
    this.schedule();
  }

  /** SillyTavern's settings or inputs changed in Rust (taken from a
   *  server): shown as they now are. */
  async takeRules(rules: RulesView) {
    this.rules = rules;
    this.stInputs = rules.inputs;
    this.hooks.changed();
    await this.refresh();
  }

  async openChat() {
    this.docs.app = await api.openChatDialog();
    await this.loadChat();
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

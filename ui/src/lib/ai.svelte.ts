// The author's own model, as the AI dialog shows it: the endpoint in force
// (never its key: typed keys go to Rust and the field is emptied), the
// running action's progress, and the last run's suggestions with which are
// picked. Rust talks to the endpoint (`src-tauri/src/ai.rs`); the webview
// never does.
import { api, onEvent } from './ipc';
import type { AiAsk, AiConfigView, AiRunView } from './bindings';

export class AiAssistant {
  config = $state<AiConfigView | null>(null);
  /** An action is running: the characters of the answer so far. */
  running = $state(false);
  received = $state(0);
  result = $state<AiRunView | null>(null);
  /** The suggestions picked to accept, by their index. */
  picked = $state<number[]>([]);
  transcript = $state<string | null>(null);

  async load() {
    this.config = await api.aiConfig();
  }

  async configure(address: string, model: string, context: number, key: string, remember: boolean) {
    this.config = await api.aiConfigure(address, model, context, key === '' ? null : key, remember);
  }

  async forgetKey() {
    this.config = await api.aiForgetKey();
  }

  /** Runs `ask` on `doc`; the suggestions that passed every check are
   *  picked, the others left for the author to pick. */
  async run(doc: number, ask: AiAsk) {
    this.running = true;
    this.received = 0;
    this.result = null;
    this.transcript = null;
    const stop = await onEvent<number>('ai-progress', (n) => (this.received = n));
    try {
      const r = await api.aiRun(doc, ask);
      this.result = r;
      this.picked = r.suggestions.filter((s) => s.passed).map((s) => s.index);
    } finally {
      stop();
      this.running = false;
    }
  }

  async cancel() {
    await api.aiCancel();
  }

  toggle(index: number) {
    this.picked = this.picked.includes(index) ? this.picked.filter((i) => i !== index) : [...this.picked, index];
  }

  /** Takes the picked suggestions into the book as one undo step; the
   *  entries added or changed. */
  async accept(): Promise<number[]> {
    const r = this.result;
    if (!r || this.picked.length === 0) return [];
    const touched = await api.aiAccept(r.doc, [...this.picked].sort((a, b) => a - b));
    this.result = null;
    this.picked = [];
    return touched;
  }

  async showTranscript() {
    this.transcript = await api.aiTranscript();
  }
}

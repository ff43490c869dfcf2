// The selected entry as the editor shows it: the engine's view of it
// (`detail`: diagnostics, decorator lines, tokens) and the user's local copy
// (`draft`), which is sent to Rust as soon as the previous send is answered.
import { api } from './ipc';
import { latestWins } from './debounce';
import type { Run } from './feedback.svelte';
import type { AppStateView, Entry, EntryDetail, PreviewAnswer, PreviewAsk, StEdit } from './bindings';

export interface DraftHooks {
  /** The document the entry belongs to. */
  doc: () => number | null;
  run: Run;
  /** The preview to send with an edit, so its answer carries it, with the
   *  ticket that answer is shown under; `null` when the preview cannot be
   *  named now (it is then asked for on its own). */
  previewAsk: () => { ask: PreviewAsk; ticket: number } | null;
  /** Called after Rust accepted an edit, with its answer: for an edit of
   *  the entry's fields also the workspace's state and the preview asked
   *  for (`null` when it was not computed). */
  saved: (detail: EntryDetail, edited?: { state: AppStateView; preview: PreviewAnswer | null; ticket: number | null }) => Promise<void>;
}

export class EntryDraft {
  detail = $state<EntryDetail | null>(null);
  draft = $state<Entry | null>(null);
  /** An edit not yet sent to Rust. */
  private pending = false;
  private readonly hooks: DraftHooks;
  /** One send in flight at a time; edits made meanwhile go out together
   *  in the next, with no timer before it. */
  private readonly send = latestWins(() => this.sendPending());

  constructor(hooks: DraftHooks) {
    this.hooks = hooks;
  }

  /** Shows entry `id` of `doc`. */
  async load(doc: number, id: number) {
    const detail = await api.getEntry(doc, id);
    this.detail = detail;
    this.draft = structuredClone(detail.entry);
  }

  clear() {
    this.detail = null;
    this.draft = null;
  }

  /** Records a local edit of the selected entry and sends it. */
  edit(patch: Partial<Entry>) {
    if (!this.draft) return;
    this.draft = { ...this.draft, ...patch };
    this.pending = true;
    void this.send();
  }

  /** Sends a pending edit now, after the send in flight, if any, so Rust
   *  receives the edits in order; a failure is reported, not thrown, so the
   *  action that flushed first (switching entries, saving) goes on. */
  async flush() {
    await this.send();
  }

  private async sendPending() {
    const doc = this.hooks.doc();
    if (!this.pending || !this.draft || doc === null) return;
    this.pending = false;
    // A plain copy for IPC. Typed as unknown first: the snapshot type of
    // an entry's free-form JSON extensions recurses without end.
    const sent = $state.snapshot(this.draft as unknown) as Entry;
    const asked = this.hooks.previewAsk();
    await this.hooks.run(async () => {
      const { detail, state, preview } = await api.updateEntry(doc, sent, asked?.ask ?? null);
      // Keep what the user typed since; take diagnostics and counts.
      if (this.draft && this.draft.id === detail.entry.id) this.detail = detail;
      await this.hooks.saved(detail, { state, preview, ticket: asked?.ticket ?? null });
    });
  }

  /** Adds, changes or removes decorator `name` through the engine, which
   *  owns the decorator syntax. */
  async setDecorator(name: string, arg: string | null, present: boolean) {
    if (!this.draft) return;
    const content = await api.setDecorator(this.draft.content, name, arg, present);
    this.edit({ content });
    await this.flush();
  }

  /** Sets one SillyTavern field (by SillyTavern's name) through Rust, which
   *  knows where the field lives in the entry; the editor then shows the
   *  entry Rust returns. Pending typing goes first. */
  async setStField(edit: StEdit) {
    const doc = this.hooks.doc();
    if (!this.draft || doc === null) return;
    await this.flush();
    const id = this.draft.id;
    const detail = await api.setStField(doc, id, edit);
    if (this.draft && this.draft.id === id) {
      this.detail = detail;
      this.draft = structuredClone(detail.entry);
    }
    await this.hooks.saved(detail);
  }

  /** Locks or unlocks the entry against AI actions (one undo step in Rust). */
  async setLocked(locked: boolean) {
    const doc = this.hooks.doc();
    if (!this.draft || doc === null) return;
    await this.flush();
    const id = this.draft.id;
    const detail = await api.setEntryLocked(doc, id, locked);
    if (this.draft && this.draft.id === id) {
      this.detail = detail;
      this.draft = structuredClone(detail.entry);
    }
    await this.hooks.saved(detail);
  }
}

/** Whether an entry is locked against AI actions (`Entry::locked`:
 *  `extensions.lorebook_studio.locked`). */
export function isLocked(e: { extensions: Record<string, unknown> }): boolean {
  const ns = e.extensions['lorebook_studio'];
  return typeof ns === 'object' && ns !== null && (ns as Record<string, unknown>)['locked'] === true;
}

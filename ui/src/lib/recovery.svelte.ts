// Books an earlier run left unsaved (it crashed, was killed or the system
// shut down), offered back one at a time at start: restore, discard, or
// show where the copy is. Rust writes and lists the copies; this store only
// holds the list the dialog shows.
import { api } from './ipc';
import type { RecoveredBook } from './bindings';

export class Recovery {
  books = $state<RecoveredBook[]>([]);
  /** Whether the dialog shows the path of the recovery copy. */
  showFile = $state(false);
  /** The user chose "Later": the dialog waits (the copies stay, and a
   *  bar offers them again) until asked for. */
  postponed = $state(false);

  /** The book the dialog asks about (none while postponed). */
  get current(): RecoveredBook | null {
    return this.postponed ? null : (this.books[0] ?? null);
  }

  /** "Later": closes the dialog without deciding; nothing is deleted. */
  postpone() {
    this.postponed = true;
  }

  /** Shows the dialog again. */
  resume() {
    this.postponed = false;
    this.showFile = false;
  }

  async refresh() {
    this.books = await api.listRecovered();
    this.showFile = false;
  }

  /** Opens the copy as a dirty book; returns its document id. */
  async restore(id: string): Promise<number> {
    const doc = await api.restoreRecovered(id);
    await this.refresh();
    return doc;
  }

  async discard(id: string) {
    await api.discardRecovered(id);
    await this.refresh();
  }
}

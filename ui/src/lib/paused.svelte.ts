// The shape the Problems panel, the Scenarios panel and the impact strip
// share: an answer about the shown book that is too costly for every
// keystroke (it reads the whole book, or replays the chat), so it is asked
// for a pause after the last change, one at a time, the newest asked for
// winning; until the answer for the latest change arrives it is marked out
// of date. An answer for a book that was closed or left meanwhile is
// dropped.
import { debounce, latestWins } from './debounce';
import type { Run } from './feedback.svelte';

export class PausedQuery<V extends { doc: number }> {
  /** The last answer, for book `view.doc`. */
  view = $state.raw<V | null>(null);
  /** A change was made since the shown answer was asked for. */
  stale = $state(false);

  private changes = 0;
  protected readonly doc: () => number | null;
  protected readonly run: Run;
  private readonly ask: (doc: number) => Promise<V>;
  private readonly later: () => void;

  constructor(doc: () => number | null, run: Run, ask: (doc: number) => Promise<V>, pause: number) {
    this.doc = doc;
    this.run = run;
    this.ask = ask;
    this.later = debounce(() => void this.run(() => this.check()), pause);
  }

  private readonly check = latestWins(async () => {
    const doc = this.doc();
    if (doc === null) {
      this.view = null;
      this.stale = false;
      return;
    }
    const asked = this.changes;
    let view: V;
    try {
      view = await this.query(doc);
    } catch (e) {
      // The book was closed meanwhile: its answer is not wanted.
      if (this.doc() !== doc) return;
      throw e;
    }
    if (this.doc() !== doc) return;
    this.view = view;
    this.stale = asked !== this.changes;
  });

  /** Asks for book `doc`'s answer; a subclass may ask with more. */
  protected query(doc: number): Promise<V> {
    return this.ask(doc);
  }

  /** Something the answer reads changed: ask again after a pause. */
  schedule = () => {
    this.changes += 1;
    this.stale = true;
    this.later();
  };

  /** Asks now (another book is shown): the old book's answer goes. */
  async now() {
    this.changes += 1;
    if (this.view && this.view.doc !== this.doc()) this.view = null;
    this.stale = true;
    await this.check();
  }

  /** Shows an answer a command gave with its edit (current, so not stale). */
  protected take(view: V) {
    this.changes += 1;
    this.view = view;
    this.stale = false;
  }
}

// The Figures panel's state: the shown book's whole-book figures (entries,
// tokens, the constant entries against the budget, the largest entries,
// each folder's totals) and what the chat's request log injected of it.
// Asked for only while the panel is open, after a pause in typing
// (`PausedQuery`), as it counts every entry and replays the log.
import { api } from './ipc';
import { PausedQuery } from './paused.svelte';
import type { Run } from './feedback.svelte';
import type { BookFiguresView } from './bindings';

/** How long after the last change the figures are asked for again (ms). */
export const FIGURES_PAUSE = 400;

export class Figures extends PausedQuery<BookFiguresView> {
  open = $state(false);

  constructor(doc: () => number | null, run: Run) {
    super(doc, run, (d) => api.bookFigures(d), FIGURES_PAUSE);
  }

  /** Something the figures read changed: asked again if the panel is open. */
  changed() {
    if (this.open) this.schedule();
  }

  async toggle() {
    this.open = !this.open;
    if (this.open) await this.now();
  }
}

/** A share of the budget in percent, rounded, for the constant entries. */
export function shareOfBudget(tokens: number, budget: number): number {
  return budget > 0 ? Math.round((100 * tokens) / budget) : 0;
}

// The Scenarios panel's state: the shown book's scenarios with pass or fail
// under the book as edited now (Rust runs them, docs/scenarios.md), and
// recording the preview shown as one.
//
// Running every scenario replays its chat under its rules, so they run off
// the keystroke path: a pause after the last change, then one run at a
// time, the newest asked for winning. Until the answer for the latest
// change arrives the panel marks its list as out of date.
import { api } from './ipc';
import { debounce, latestWins } from './debounce';
import type { Run } from './feedback.svelte';
import type { ScenarioEdit, ScenariosView } from './bindings';

/** How long after the last change the scenarios run again (ms). */
export const RUN_PAUSE = 400;

/** How many scenarios pass and fail (one that cannot run fails). */
export function tallyScenarios(view: ScenariosView | null): { passed: number; failed: number } {
  const items = view?.items ?? [];
  const passed = items.filter((i) => i.verdict?.passed === true).length;
  return { passed, failed: items.length - passed };
}

export class Scenarios {
  /** The last answer, for book `view.doc`. */
  view = $state.raw<ScenariosView | null>(null);
  /** A change was made since the shown answer was asked for. */
  stale = $state(false);
  counts = $derived(tallyScenarios(this.view));

  private changes = 0;
  private readonly doc: () => number | null;
  private readonly run: Run;
  /** Called after a scenario was recorded or removed (an edit of the book). */
  private readonly edited: () => Promise<void>;

  constructor(doc: () => number | null, run: Run, edited: () => Promise<void> = async () => {}) {
    this.doc = doc;
    this.run = run;
    this.edited = edited;
  }

  private readonly check = latestWins(async () => {
    const doc = this.doc();
    if (doc === null) {
      this.view = null;
      this.stale = false;
      return;
    }
    const asked = this.changes;
    let view;
    try {
      view = await api.scenarios(doc);
    } catch (e) {
      // The book was closed meanwhile: its answer is not wanted.
      if (this.doc() !== doc) return;
      throw e;
    }
    if (this.doc() !== doc) return;
    this.view = view;
    this.stale = asked !== this.changes;
  });

  private readonly later = debounce(() => void this.run(() => this.check()), RUN_PAUSE);

  /** Something the scenarios read changed: run them again after a pause. */
  schedule = () => {
    this.changes += 1;
    this.stale = true;
    this.later();
  };

  /** Runs them now (another book is shown): the old book's list goes. */
  async now() {
    this.changes += 1;
    if (this.view && this.view.doc !== this.doc()) this.view = null;
    this.stale = true;
    await this.check();
  }

  /** Save as scenario: the preview shown, expecting what it shows now. */
  async record(name: string) {
    const doc = this.doc();
    if (doc === null) return;
    this.changes += 1;
    this.view = await api.recordScenario(doc, name);
    this.stale = false;
    await this.edited();
  }

  /** Loosens or edits scenario `name` (one undo step). */
  async edit(name: string, edit: ScenarioEdit) {
    const doc = this.doc();
    if (doc === null) return;
    this.changes += 1;
    this.view = await api.editScenario(doc, name, edit);
    this.stale = false;
    await this.edited();
  }

  async remove(name: string) {
    const doc = this.doc();
    if (doc === null) return;
    this.changes += 1;
    this.view = await api.deleteScenario(doc, name);
    this.stale = false;
    await this.edited();
  }
}

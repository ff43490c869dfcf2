// The Scenarios panel's state: the shown book's scenarios with pass or fail
// under the book as edited now (Rust runs them, docs/scenarios.md), and
// recording the preview shown as one.
//
// Running every scenario replays its chat under its rules, so they run off
// the keystroke path (`PausedQuery`).
import { api } from './ipc';
import { PausedQuery } from './paused.svelte';
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

export class Scenarios extends PausedQuery<ScenariosView> {
  counts = $derived(tallyScenarios(this.view));
  /** Called after a scenario was recorded, edited or removed (an edit of
   *  the book). */
  private readonly edited: () => Promise<void>;

  constructor(doc: () => number | null, run: Run, edited: () => Promise<void> = async () => {}) {
    super(doc, run, (d) => api.scenarios(d), RUN_PAUSE);
    this.edited = edited;
  }

  /** Save as scenario: the preview shown, expecting what it shows now. */
  async record(name: string) {
    const doc = this.doc();
    if (doc === null) return;
    this.take(await api.recordScenario(doc, name));
    await this.edited();
  }

  /** Loosens or edits scenario `name` (one undo step). */
  async edit(name: string, edit: ScenarioEdit) {
    const doc = this.doc();
    if (doc === null) return;
    this.take(await api.editScenario(doc, name, edit));
    await this.edited();
  }

  async remove(name: string) {
    const doc = this.doc();
    if (doc === null) return;
    this.take(await api.deleteScenario(doc, name));
    await this.edited();
  }
}

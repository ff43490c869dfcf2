// The impact strip's state: what the shown book's unsaved edits change over
// the chat's request log and its scenarios (Rust computes it without
// holding the workspace, docs/scenarios.md "Change impact"), asked for off
// the keystroke path (`PausedQuery`).
import { api } from './ipc';
import { PausedQuery } from './paused.svelte';
import type { Run } from './feedback.svelte';
import type { DocSummary, ImpactBaseAsk, ImpactStepView, ImpactView, TimelineRow } from './bindings';

/** How long after the last change the impact is computed again (ms). */
export const IMPACT_PAUSE = 150;

/** Whether the impact compares the book with something (its saved
 *  version, an undo step or a file), so its changes can be shown. */
export function comparing(view: ImpactView | null): boolean {
  return view !== null && (view.against === 'saved' || view.against === 'step' || view.against === 'file');
}

/** The strip's totals: requests changed, entries started, stopped and
 *  moved over all of them, scenarios now failing and now passing. */
export function impactTotals(view: ImpactView | null) {
  const rows = view?.rows ?? [];
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + f(r), 0);
  return {
    requests: rows.length,
    started: sum((r) => r.started.length),
    stopped: sum((r) => r.stopped.length),
    moved: sum((r) => r.moved.length),
    nowFailing: (view?.scenarios ?? []).filter((s) => s.was === true && s.now !== true).length,
    nowPassing: (view?.scenarios ?? []).filter((s) => s.was !== true && s.now === true).length,
  };
}

/** The timeline cells the impact changes, as `book:id:request`, `book`
 *  being the shown book's place among the attached ones. */
export function changedCells(view: ImpactView | null, docs: readonly Pick<DocSummary, 'id' | 'attached'>[], shown: number | null): Set<string> {
  const out = new Set<string>();
  if (!view || !comparing(view) || view.doc !== shown) return out;
  const book = docs.filter((d) => d.attached).findIndex((d) => d.id === view.doc);
  if (book < 0) return out;
  for (const r of view.rows) {
    for (const e of [...r.started, ...r.stopped, ...r.moved]) out.add(`${book}:${e.id}:${r.request}`);
  }
  return out;
}

/** Timeline rows for the entries the unsaved edits stopped that no request
 *  matches any more (the timeline lists only matched entries): all cells
 *  "not matched", so their changed cells can be ringed. */
export function stoppedRows(view: ImpactView | null, rows: readonly TimelineRow[], requests: number, docs: readonly Pick<DocSummary, 'id' | 'attached'>[], shown: number | null): TimelineRow[] {
  if (!view || !comparing(view) || view.doc !== shown) return [];
  const book = docs.filter((d) => d.attached).findIndex((d) => d.id === view.doc);
  if (book < 0) return [];
  const listed = new Set(rows.filter((r) => r.book === book).map((r) => r.id));
  const out = new Map<number, TimelineRow>();
  for (const r of view.rows) {
    for (const e of r.stopped) {
      if (!listed.has(e.id) && !out.has(e.id)) out.set(e.id, { book, id: e.id, name: e.name, folder: null, cells: '.'.repeat(requests) });
    }
  }
  return [...out.values()];
}

export class Impact extends PausedQuery<ImpactView> {
  /** The full list is shown (the strip alone otherwise). */
  open = $state(false);
  totals = $derived(impactTotals(this.view));

  /** The undo steps the author can compare with, newest first, asked
   *  for when the choice is opened. */
  steps = $state.raw<ImpactStepView[]>([]);

  constructor(doc: () => number | null, run: Run) {
    super(doc, run, (d) => api.impact(d), IMPACT_PAUSE);
  }

  async loadSteps() {
    const doc = this.doc();
    this.steps = doc === null ? [] : await api.impactSteps(doc);
  }

  /** Compares with the saved version or an undo step from now on. */
  async compareWith(base: ImpactBaseAsk) {
    const doc = this.doc();
    if (doc === null) return;
    this.take(await api.setImpactBase(doc, base));
  }

  /** Compare with a file…: the native dialog, then that file. */
  async compareWithFile() {
    const doc = this.doc();
    if (doc === null) return;
    this.take(await api.impactBaseDialog(doc));
  }
}

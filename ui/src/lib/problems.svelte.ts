// The Problems panel's state: the lint problems of the shown book under the
// preview's rules (Rust runs the checks, docs/lint.md), the panel's filters,
// and the worst problem of each entry for the entry list's badges.
//
// The checks need the whole book (duplicates, containment, recursion), so
// they run off the keystroke path: a short pause after the last change,
// then one check at a time, the newest asked for winning. Until the answer
// for the latest change arrives the panel says its list is out of date.
import { api } from './ipc';
import { debounce, latestWins } from './debounce';
import type { Run } from './feedback.svelte';
import type { LintEntryRef, Problem, ProblemsView, Severity } from './bindings';

/** How long after the last change the book is checked again (ms). */
export const CHECK_PAUSE = 250;

/** The severities the panel can be narrowed to; `all` is errors and
 *  warnings, with the hints too when they are shown. */
export type SeverityFilter = 'all' | Severity;

/** An entry's badge: its problems (hints not counted) and the worst. */
export interface Mark {
  count: number;
  worst: Severity;
}

const rank: Record<Severity, number> = { hint: 0, warning: 1, error: 2 };

/** The badges of `problems`: per entry id, hints left out (a hint is shown
 *  in the panel when asked for, never as a badge on a row). */
export function marks(problems: Problem[]): Map<number, Mark> {
  const out = new Map<number, Mark>();
  for (const p of problems) {
    if (p.severity === 'hint') continue;
    const m = out.get(p.entry.id);
    if (!m) out.set(p.entry.id, { count: 1, worst: p.severity });
    else {
      m.count += 1;
      if (rank[p.severity] > rank[m.worst]) m.worst = p.severity;
    }
  }
  return out;
}

/** The problems the panel lists under its filters: errors first, then
 *  warnings, then hints, each in entry order. */
export function filtered(problems: Problem[], severity: SeverityFilter, code: string, showHints: boolean): Problem[] {
  return problems
    .filter((p) => (severity === 'all' ? showHints || p.severity !== 'hint' : p.severity === severity) && (code === '' || p.code === code))
    .sort((a, b) => rank[b.severity] - rank[a.severity]);
}

/** How many problems of each severity. */
export function tally(problems: Problem[]): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warning: 0, hint: 0 };
  for (const p of problems) out[p.severity] += 1;
  return out;
}

export class Problems {
  /** The last answer, for book `view.doc`. */
  view = $state.raw<ProblemsView | null>(null);
  /** Whether the panel is shown. */
  open = $state(false);
  showHints = $state(false);
  severity = $state<SeverityFilter>('all');
  code = $state('');
  /** A change was made since the shown answer was asked for. */
  stale = $state(false);
  /** The badges of the shown book's entries. */
  marks = $derived(marks(this.view?.problems ?? []));
  shown = $derived(filtered(this.view?.problems ?? [], this.severity, this.code, this.showHints));
  counts = $derived(tally(this.view?.problems ?? []));
  /** The entries' names by `book:id`. */
  private names = $derived(new Map((this.view?.names ?? []).map((n) => [`${n.entry.book}:${n.entry.id}`, n.name])));
  /** The codes present, for the check filter. */
  codes = $derived([...new Set((this.view?.problems ?? []).map((p) => p.code))].sort());

  private changes = 0;
  private readonly doc: () => number | null;
  private readonly run: Run;

  constructor(doc: () => number | null, run: Run) {
    this.doc = doc;
    this.run = run;
  }

  private readonly check = latestWins(async () => {
    const doc = this.doc();
    if (doc === null) {
      this.view = null;
      this.stale = false;
      return;
    }
    const asked = this.changes;
    const view = await api.lintProblems(doc);
    if (this.doc() !== doc) return;
    this.view = view;
    this.stale = asked !== this.changes;
  });

  private readonly later = debounce(() => void this.run(() => this.check()), CHECK_PAUSE);

  /** Something the checks read changed: check again after a pause. */
  schedule = () => {
    this.changes += 1;
    this.stale = true;
    this.later();
  };

  /** Checks now (another book is shown): the old book's list goes. */
  async now() {
    this.changes += 1;
    if (this.view && this.view.doc !== this.doc()) this.view = null;
    this.stale = true;
    await this.check();
  }

  /** The name of an entry a problem mentions: its name (else its id),
   *  with its book's name when it is in another attached book. */
  nameOf(ref: LintEntryRef, untitled: (id: number) => string, inBook: (entry: string, book: string) => string): string {
    const v = this.view;
    const found = this.names.get(`${ref.book}:${ref.id}`) ?? '';
    const entry = found || untitled(ref.id);
    const own = v?.books.findIndex((b) => b.doc === v.doc) ?? 0;
    return ref.book === own ? entry : inBook(entry, v?.books[ref.book]?.name ?? '');
  }
}

// The Problems panel's state: the lint problems of the shown book under the
// preview's rules (Rust runs the checks, docs/lint.md), the panel's filters,
// and the worst problem of each entry for the entry list's badges.
//
// The checks need the whole book (duplicates, containment, recursion), so
// they run off the keystroke path (`PausedQuery`: a short pause after the
// last change, one check at a time, the list marked out of date meanwhile).
import { api } from './ipc';
import { PausedQuery } from './paused.svelte';
import type { Run } from './feedback.svelte';
import type { HintCount, LintEntryRef, Problem, ProblemsView, Severity } from './bindings';

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

/** How many problems of each severity, with the hints Rust only counted
 *  (`hidden`). */
export function tally(problems: Problem[], hidden: HintCount[] = []): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warning: 0, hint: 0 };
  for (const p of problems) out[p.severity] += 1;
  for (const h of hidden) out.hint += h.count;
  return out;
}

export class Problems extends PausedQuery<ProblemsView> {
  /** Whether the panel is shown. */
  open = $state(false);
  showHints = $state(false);
  severity = $state<SeverityFilter>('all');
  code = $state('');
  /** The badges of the shown book's entries. */
  marks = $derived(marks(this.view?.problems ?? []));
  shown = $derived(filtered(this.view?.problems ?? [], this.severity, this.code, this.showHints));
  counts = $derived(tally(this.view?.problems ?? [], this.view?.hidden_hints));
  /** The entries' names by `book:id`. */
  private names = $derived(new Map((this.view?.names ?? []).map((n) => [`${n.entry.book}:${n.entry.id}`, n.name])));
  /** The codes present, for the check filter. */
  codes = $derived([...new Set([...(this.view?.problems ?? []).map((p) => p.code), ...(this.view?.hidden_hints ?? []).map((h) => h.code)])].sort());

  /** The fingerprint of `view`, as Rust gave it: sent back with the next
   *  question, so an unchanged view (typing in a chat rarely changes a
   *  book's problems) is not sent and parsed again. */
  private held: { view: ProblemsView; hash: string } | null = null;

  constructor(doc: () => number | null, run: Run) {
    super(doc, run, (d) => this.fetchView(d, false), CHECK_PAUSE);
  }

  /** Book `doc`'s problems, with the hints or not: the view held when
   *  Rust says it is unchanged. */
  private async fetchView(doc: number, hints: boolean): Promise<ProblemsView> {
    const held = this.held && this.held.view === this.view && this.view?.doc === doc ? this.held : null;
    const answer = await api.lintProblems(doc, hints, held?.hash ?? null);
    if (answer.view === null) {
      if (held) return held.view;
      throw new Error('lint_problems sent no view for a question without one');
    }
    this.held = { view: answer.view, hash: answer.hash };
    return answer.view;
  }

  /** Whether the panel lists hints (shown, or the hint filter chosen):
   *  only then are they asked for, a big book having hundreds of
   *  thousands. */
  wantsHints(): boolean {
    return this.open && (this.showHints || this.severity === 'hint');
  }

  /** Whether the answer held lacks hints the panel now lists, so it must
   *  ask again. */
  missingHints(): boolean {
    return this.wantsHints() && (this.view?.hidden_hints.length ?? 0) > 0;
  }

  protected override query(doc: number): Promise<ProblemsView> {
    return this.fetchView(doc, this.wantsHints());
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

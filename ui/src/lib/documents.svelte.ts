// The open documents as Rust reports them, and the entry list of the one
// shown: its query, its rows and the selection. Documents live in Rust; this
// holds views of them.
import { api } from './ipc';
import type { AppStateView, EntryFilter, EntryRow, SortKey } from './bindings';

export type SelectMode = 'one' | 'toggle' | 'range';

export class Documents {
  app = $state<AppStateView | null>(null);
  /** The shown document. */
  doc = $state<number | null>(null);
  /** Raw state: the list is replaced, never changed in place, so its
   *  10,000 rows need no deep proxies (each keystroke replaces one row). */
  rows = $state.raw<EntryRow[]>([]);
  search = $state('');
  filter = $state<EntryFilter>('all');
  sort = $state<SortKey>('order');
  descending = $state(true);
  selected = $state<number[]>([]);
  /** Where a shift-click range starts. */
  anchor = $state<number | null>(null);
  /** Bumped to move the focus to the search box (the Find action). */
  focusSearch = $state(0);

  get current() {
    return this.app?.docs.find((d) => d.id === this.doc) ?? null;
  }

  /** Reloads the app state; a closed shown document gives way to the first. */
  async refresh() {
    this.app = await api.appState();
    if (this.doc !== null && !this.app.docs.some((d) => d.id === this.doc)) {
      this.doc = this.app.docs[0]?.id ?? null;
    }
  }

  async reloadList() {
    if (this.doc === null) {
      this.rows = [];
      return;
    }
    this.rows = await api.listEntries(this.doc, {
      search: this.search,
      filter: this.filter,
      sort: this.sort,
      descending: this.descending,
    });
  }

  /** Clears the search and the filter, so every entry is listed. */
  showAll() {
    this.search = '';
    this.filter = 'all';
  }

  /** Sorts by `key`; the same key again flips the direction. Numbers start
   *  high first, text starts at A. */
  sortBy(key: SortKey) {
    if (this.sort === key) this.descending = !this.descending;
    else {
      this.sort = key;
      this.descending = key === 'order' || key === 'priority' || key === 'tokens';
    }
  }

  /** Changes the selection as a click with `mode` does. */
  choose(id: number, mode: SelectMode) {
    if (mode === 'toggle') {
      this.selected = this.selected.includes(id) ? this.selected.filter((x) => x !== id) : [...this.selected, id];
    } else if (mode === 'range' && this.anchor !== null) {
      const a = this.rows.findIndex((r) => r.id === this.anchor);
      const b = this.rows.findIndex((r) => r.id === id);
      const [lo, hi] = a < b ? [a, b] : [b, a];
      this.selected = this.rows.slice(lo, hi + 1).map((r) => r.id);
    } else {
      this.selected = [id];
      this.anchor = id;
    }
  }

  /** The id of the row `delta` rows from the selected one, kept in the list. */
  neighbour(delta: number): number | null {
    if (this.rows.length === 0) return null;
    const current = this.rows.findIndex((r) => r.id === this.selected[0]);
    return this.rows[Math.min(this.rows.length - 1, Math.max(0, current + delta))].id;
  }

  /** Puts one updated row in place; the list is not reloaded, so typing
   *  stays cheap on 10,000-entry books. */
  replaceRow(row: EntryRow) {
    this.rows = this.rows.map((r) => (r.id === row.id ? row : r));
  }
}

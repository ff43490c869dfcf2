// The open documents as Rust reports them, and the entry list of the one
// shown: its query, its rows and the selection. Documents live in Rust; this
// holds views of them.
import { api } from './ipc';
import type { AppStateView, EntryFilter, EntryRow, ListPatch, SortKey, TokenStep } from './bindings';

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
  /** The collapsed folders, as `doc:id`: what is inside them is left out
   *  of the list shown. */
  collapsed = $state<string[]>([]);
  /** The rows the list shows: those inside a collapsed folder left out,
   *  unless a search or filter is on (its matches show wherever they are).
   *  Rows come in tree order with their depth, so one pass does it. */
  shown = $derived.by(() => {
    const doc = this.doc;
    if (this.collapsed.length === 0 || this.search.trim() !== '' || this.filter !== 'all') return this.rows;
    const shut = new Set(this.collapsed);
    const out: EntryRow[] = [];
    let below = -1;
    for (const r of this.rows) {
      if (below >= 0 && r.depth > below) continue;
      below = -1;
      out.push(r);
      if (r.folder && shut.has(`${doc}:${r.id}`)) below = r.depth;
    }
    return out;
  });
  /** Each folder's body tokens, from the rows inside it as their counts
   *  come in (a folder row's own `inside_tokens` is `null` until every
   *  count is known when the list is made); `null` while one is missing. */
  folderTokens = $derived.by(() => {
    const out = new Map<number, number | null>();
    const open: { id: number; depth: number; sum: number | null }[] = [];
    const close = (depth: number) => {
      while (open.length > 0 && open[open.length - 1].depth >= depth) {
        const f = open.pop()!;
        out.set(f.id, f.sum);
      }
    };
    for (const r of this.rows) {
      close(r.depth);
      if (r.folder) open.push({ id: r.id, depth: r.depth, sum: 0 });
      else for (const f of open) f.sum = f.sum === null || r.tokens === null ? null : f.sum + r.tokens;
    }
    close(-1);
    return out;
  });
  /** The listed folders with their paths ("Places › Harbor"), in list
   *  order: the choices of "Move to". */
  folders = $derived.by(() => {
    const parent = new Map<number, number | null>();
    const name = new Map<number, string>();
    for (const r of this.rows) {
      if (!r.folder) continue;
      parent.set(r.id, r.parent);
      name.set(r.id, r.name);
    }
    return [...name.keys()].map((id) => {
      const path: string[] = [];
      for (let at: number | null | undefined = id; at != null && path.length < 64; at = parent.get(at)) path.unshift(name.get(at) ?? '');
      return { id, path: path.join(' › ') };
    });
  });

  /** `report`: how a failure of a background step (`fillTokens`) is
   *  shown; the app passes its error banner. */
  constructor(report: (e: unknown) => void = () => {}) {
    this.report = report;
  }

  private readonly report: (e: unknown) => void;

  get current() {
    return this.app?.docs.find((d) => d.id === this.doc) ?? null;
  }

  /** Reloads the app state; a closed shown document gives way to the first. */
  async refresh() {
    this.take(await api.appState());
  }

  /** Takes the workspace's state from an answer that carries it. */
  take(app: AppStateView) {
    this.app = app;
    if (this.doc !== null && !app.docs.some((d) => d.id === this.doc)) {
      this.doc = app.docs[0]?.id ?? null;
    }
  }

  /** Reloads the entry list. A big book's rows may come without their
   *  token counts (Rust counts only so much per command, so the list is
   *  painted first); unless `fill` is false, the counts are then asked
   *  for in the background (`fillTokens`). */
  async reloadList(fill = true): Promise<void> {
    this.listLoads += 1;
    const doc = this.doc;
    if (doc === null) {
      this.clearList();
      return;
    }
    const have = this.listRev?.doc === doc ? this.listRev.rev : null;
    const changed = [...this.changedRows];
    const patch = await api.listEntries(
      doc,
      { search: this.search, filter: this.filter, sort: this.sort, descending: this.descending },
      have,
      changed,
    );
    // An answer older than the list held (two loads crossed), or for a
    // book no longer shown, is dropped.
    if (this.doc !== doc || (this.listRev !== null && patch.rev < this.listRev.rev)) return;
    const rows = this.applyPatch(patch);
    if (rows === null) {
      // Made against a list no longer held: ask for the whole list.
      this.listRev = null;
      return this.reloadList(fill);
    }
    this.rows = rows;
    this.listRev = { doc, rev: patch.rev };
    for (const id of changed) this.changedRows.delete(id);
    if (patch.base === null) this.changedRows.clear();
    if (fill) void this.fillTokens();
  }

  /** The rows after `patch` (Rust's `ListPatch`): the whole list, or the
   *  rows held with those it sends replaced, in its order. Rows it does
   *  not send keep their identity, so only changed rows are painted
   *  again. `null` when it does not fit the rows held. */
  private applyPatch(patch: ListPatch): EntryRow[] | null {
    if (patch.base === null) return patch.rows;
    if (patch.base !== this.listRev?.rev) return null;
    if (patch.rows.length === 0 && patch.order === null) return this.rows;
    const byId = new Map(this.rows.map((r) => [r.id, r]));
    for (const r of patch.rows) byId.set(r.id, r);
    if (patch.order === null) return this.rows.map((r) => byId.get(r.id)!);
    const out: EntryRow[] = [];
    for (const id of patch.order) {
      const r = byId.get(id);
      if (r === undefined) return null;
      out.push(r);
    }
    return out;
  }

  /** Empties the list (no book shown). */
  clearList() {
    this.rows = [];
    this.listRev = null;
    this.changedRows.clear();
  }

  /** The list last applied (`ListPatch.rev`) and its book: the next load
   *  asks for a change to it. */
  private listRev: { doc: number; rev: number } | null = null;
  /** Rows put in place on their own since that list (`replaceRow`), which
   *  Rust sends again with the next load. */
  private readonly changedRows = new Set<number>();

  /** Bumped per list load: a fill started for an older list stops. */
  private listLoads = 0;

  /** Fills in the token counts the list was sent without, one step (one
   *  command) at a time, so an edit or a preview goes between two steps
   *  instead of waiting for the whole book to be counted. Stops when every
   *  count is in, or when the list was loaded again (that load fills its
   *  own). A failed step is reported (see the constructor). */
  async fillTokens() {
    const doc = this.doc;
    const load = this.listLoads;
    if (doc === null || !this.rows.some((r) => r.tokens === null)) return;
    let from: number | null = 0;
    try {
      while (from !== null) {
        const step: TokenStep = await api.countListTokens(doc, from);
        if (this.doc !== doc || this.listLoads !== load) return;
        const got = new Map(step.counts.map((c) => [c.id, c.tokens]));
        if (this.rows.some((r) => r.tokens === null && got.has(r.id))) {
          this.rows = this.rows.map((r) => (r.tokens === null && got.has(r.id) ? { ...r, tokens: got.get(r.id)! } : r));
        }
        from = step.next;
      }
    } catch (e) {
      this.report(e);
    }
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

  /** The id of the row `delta` rows from the selected one, kept in the
   *  list as shown (entries of collapsed folders are passed over). */
  neighbour(delta: number): number | null {
    const rows = this.shown;
    if (rows.length === 0) return null;
    const current = rows.findIndex((r) => r.id === this.selected[0]);
    return rows[Math.min(rows.length - 1, Math.max(0, current + delta))].id;
  }

  /** Whether folder `id` of the shown book is collapsed. */
  isCollapsed(id: number): boolean {
    return this.collapsed.includes(`${this.doc}:${id}`);
  }

  /** Collapses or expands folder `id` of the shown book (`open`: expand;
   *  default: the other way). */
  toggleFolder(id: number, open?: boolean) {
    const key = `${this.doc}:${id}`;
    const shut = this.collapsed.includes(key);
    if (open ?? shut) this.collapsed = this.collapsed.filter((k) => k !== key);
    else if (!shut) this.collapsed = [...this.collapsed, key];
  }

  /** Puts one updated row in place; the list is not reloaded, so typing
   *  stays cheap on 10,000-entry books. */
  replaceRow(row: EntryRow) {
    this.rows = this.rows.map((r) => (r.id === row.id ? row : r));
    this.changedRows.add(row.id);
  }
}

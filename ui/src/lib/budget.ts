// Layout of the budget bar: one segment per kept entry, the limit line, and
// the first entry the budget cut.
import type { RequestResult } from './bindings';

export interface BarSegment {
  book: number;
  id: number;
  tokens: number;
  left: number; // percent
  width: number; // percent
  constant: boolean;
  cut: boolean;
}

export interface BarLayout {
  segments: BarSegment[];
  limitAt: number; // percent
  scale: number; // tokens represented by 100%
}

export function barLayout(r: RequestResult): BarLayout {
  const cutAt = r.budget.first_cut;
  const firstCut = cutAt ? r.dropped.find((d) => d.book === cutAt.book && d.id === cutAt.id) : undefined;
  const cutNeeded = firstCut && firstCut.reason.kind === 'budget' ? firstCut.reason.needed : 0;
  const scale = Math.max(r.budget.limit, r.budget.used + cutNeeded, 1);
  const segments: BarSegment[] = [];
  let at = 0;
  // Constants first, as the budget counts them.
  const kept = [...r.injected].sort((a, b) => Number(b.constant) - Number(a.constant));
  for (const i of kept) {
    const width = (i.tokens / scale) * 100;
    segments.push({ book: i.book, id: i.id, tokens: i.tokens, left: at, width, constant: i.constant, cut: false });
    at += width;
  }
  if (firstCut) {
    segments.push({ book: firstCut.book, id: firstCut.id, tokens: cutNeeded, left: at, width: (cutNeeded / scale) * 100, constant: false, cut: true });
  }
  return { segments, limitAt: (r.budget.limit / scale) * 100, scale };
}

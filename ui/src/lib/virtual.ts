// Windowing math for the virtualized entry list: only the rows in view
// (plus some overscan) are rendered, so 10,000 entries scroll smoothly.

export interface Window {
  start: number;
  end: number;
  padTop: number;
  padBottom: number;
}

export function visibleWindow(count: number, rowHeight: number, scrollTop: number, viewport: number, overscan = 8): Window {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  const start = Math.min(first, count);
  const end = Math.max(start, last);
  return { start, end, padTop: start * rowHeight, padBottom: (count - end) * rowHeight };
}

/** The scrollTop that brings row `index` into view, or null if it is visible. */
export function scrollToRow(index: number, rowHeight: number, scrollTop: number, viewport: number): number | null {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewport) return top + rowHeight - viewport;
  return null;
}

/** Row offsets for rows of varying height: `tops[i]` is where row `i`
 *  starts and `tops[count]` the whole height. */
export function offsets(heights: readonly number[]): number[] {
  const tops = new Array<number>(heights.length + 1);
  tops[0] = 0;
  for (let i = 0; i < heights.length; i++) tops[i + 1] = tops[i] + heights[i];
  return tops;
}

/** The row that holds `y`, the last row past the bottom (binary search
 *  over `tops`). */
function rowAt(tops: readonly number[], y: number): number {
  let lo = 0;
  let hi = tops.length - 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Like `visibleWindow`, for rows of varying height given by `tops`
 *  (from `offsets`): the rows that meet [scrollTop, scrollTop + viewport),
 *  plus `overscan` rows on each side. */
export function variableWindow(tops: readonly number[], scrollTop: number, viewport: number, overscan = 4): Window {
  const count = tops.length - 1;
  if (count <= 0) return { start: 0, end: 0, padTop: 0, padBottom: 0 };
  const first = rowAt(tops, Math.max(0, scrollTop));
  const last = rowAt(tops, Math.max(0, scrollTop + viewport - 1)) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, Math.max(last, first + 1) + overscan);
  return { start, end, padTop: tops[start], padBottom: tops[count] - tops[end] };
}

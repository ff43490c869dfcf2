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

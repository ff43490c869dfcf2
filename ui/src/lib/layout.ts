// The three panes' widths. The list and the editor have widths kept as
// fractions of the window (so a layout survives a different window size);
// the preview takes the rest. Every pane keeps a minimum width, whatever
// the window or the saved fractions say.

export type Panes = [number, number];

/** List and editor fractions of a fresh install. */
export const DEFAULT_PANES: Panes = [0.28, 0.36];

/** The narrowest each pane (list, editor, preview) may get, in pixels. */
export const MIN_WIDTH = [220, 260, 260] as const;

/** A keyboard step on a splitter, and with Shift held, in pixels. */
export const STEP = 16;
export const BIG_STEP = 80;

/** Pixel widths (whole pixels for the list and the editor) of the three
 *  panes for a window `width` wide. */
export function columns(panes: Panes, width: number): [number, number, number] {
  const [min0, min1, min2] = MIN_WIDTH;
  if (width <= min0 + min1 + min2) {
    // Too narrow for the minimums: share it out in their proportions.
    const sum = min0 + min1 + min2;
    return [(width * min0) / sum, (width * min1) / sum, (width * min2) / sum];
  }
  const list = Math.round(clamp(panes[0] * width, min0, width - min1 - min2));
  const editor = Math.round(clamp(panes[1] * width, min1, width - list - min2));
  return [list, editor, width - list - editor];
}

/** The fractions after moving splitter `which` (0: list|editor, 1:
 *  editor|preview) by `delta` pixels, within every pane's minimum. */
export function moveSplit(panes: Panes, which: 0 | 1, delta: number, width: number): Panes {
  if (width <= 0) return panes;
  const [list, editor, preview] = columns(panes, width);
  if (which === 0) {
    const d = clamp(delta, MIN_WIDTH[0] - list, editor - MIN_WIDTH[1]);
    return [(list + d) / width, (editor - d) / width];
  }
  const d = clamp(delta, MIN_WIDTH[1] - editor, preview - MIN_WIDTH[2]);
  return [list / width, (editor + d) / width];
}

/** The saved fractions if usable, else the defaults. */
export function restorePanes(saved: readonly number[] | undefined): Panes {
  if (!saved || saved.length !== 2) return [...DEFAULT_PANES];
  const [a, b] = saved;
  const ok = [a, b].every((f) => Number.isFinite(f) && f > 0 && f < 1) && a + b < 1;
  return ok ? [a, b] : [...DEFAULT_PANES];
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), Math.max(lo, hi));
}

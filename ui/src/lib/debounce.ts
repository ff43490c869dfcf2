// The one debounce of the UI. Typing in the entry editor, the search box,
// the chat and the book settings, and the preview refresh each wait for a
// pause instead of sending one command per keystroke.

/** Calls `fn` with the latest arguments once `ms` have passed without
 *  another call; earlier calls within the pause are dropped. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

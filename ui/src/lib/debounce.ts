// The UI's two ways of pacing commands. Typing in the book settings waits
// for a pause (`debounce`); what feeds the live preview (the chat, the
// entry draft, the preview itself) and the entry list's search box is sent
// at once and then paced by the answers (`latestWins`), so a keystroke
// never waits for a timer and a burst never queues one command per
// keystroke.

/** Calls `fn` with the latest arguments once `ms` have passed without
 *  another call; earlier calls within the pause are dropped. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Latest-wins scheduling of `task`. A call starts it at once when no run
 *  is in flight; calls during a run only leave their arguments as the next
 *  run's, the newest replacing older ones, and that run starts when the
 *  current one settles. A burst of calls thus costs two runs, the last
 *  with the newest arguments, however slow each run is.
 *
 *  The returned promise settles with the run that carries the call's
 *  arguments or newer ones, so `await` means "what I asked for, or
 *  something newer, has been done". */
export function latestWins<A extends unknown[]>(task: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  let busy = false;
  let next: { args: A; waiters: Waiter[] } | null = null;

  async function drive(args: A, waiters: Waiter[]) {
    busy = true;
    let run: { args: A; waiters: Waiter[] } | null = { args, waiters };
    while (run) {
      try {
        await task(...run.args);
        for (const w of run.waiters) w.resolve();
      } catch (e) {
        for (const w of run.waiters) w.reject(e);
      }
      run = next;
      next = null;
    }
    busy = false;
  }

  return (...args: A) =>
    new Promise<void>((resolve, reject) => {
      if (busy) {
        next = { args, waiters: [...(next?.waiters ?? []), { resolve, reject }] };
      } else {
        void drive(args, [{ resolve, reject }]);
      }
    });
}

/** Orders the answers of requests that may overlap: each request takes a
 *  ticket before it is sent, and its answer is fresh unless the answer of a
 *  later request was already taken. A slow answer to an old state then
 *  never replaces the newer one on screen. */
export class Tickets {
  private issued = 0;
  private taken = 0;

  /** A ticket for a request about to be sent. */
  issue(): number {
    this.issued += 1;
    return this.issued;
  }

  /** Whether the answer of `ticket` may be shown; if so, it becomes the
   *  newest shown. */
  take(ticket: number): boolean {
    if (ticket < this.taken) return false;
    this.taken = ticket;
    return true;
  }
}

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounce, latestWins, Tickets } from './debounce';

describe('debounce', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs once, with the last arguments, after a pause', () => {
    const seen: string[] = [];
    const typed = debounce((text: string) => seen.push(text), 100);
    typed('l');
    vi.advanceTimersByTime(60);
    typed('li');
    vi.advanceTimersByTime(60);
    typed('lig');
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(seen).toEqual(['lig']);
  });

  it('runs again for calls after the pause', () => {
    let calls = 0;
    const tick = debounce(() => (calls += 1), 50);
    tick();
    vi.advanceTimersByTime(50);
    tick();
    vi.advanceTimersByTime(50);
    expect(calls).toBe(2);
  });
});

/** A command whose answers the test releases by hand, in any order. */
function slowCommand() {
  const sent: string[] = [];
  const answers: Array<{ text: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  const send = (text: string) =>
    new Promise<void>((resolve, reject) => {
      sent.push(text);
      answers.push({ text, resolve, reject });
    });
  /** Lets the pending microtasks (the scheduler's next send) run. */
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { sent, answers, send, settle };
}

describe('latestWins', () => {
  it('sends at once when nothing is in flight', () => {
    const c = slowCommand();
    const schedule = latestWins(c.send);
    void schedule('a');
    expect(c.sent).toEqual(['a']);
  });

  it('sends only the newest state of a burst once the answer arrives', async () => {
    const c = slowCommand();
    const schedule = latestWins(c.send);
    const typed = ['l', 'li', 'lig', 'ligh', 'light'].map((t) => schedule(t));
    expect(c.sent).toEqual(['l']);
    c.answers[0].resolve();
    await c.settle();
    expect(c.sent).toEqual(['l', 'light']);
    c.answers[1].resolve();
    await Promise.all(typed);
    expect(c.sent).toEqual(['l', 'light']);
  });

  it('always requests the final state, however the calls and answers interleave', async () => {
    const c = slowCommand();
    const schedule = latestWins(c.send);
    const done: Promise<void>[] = [];
    for (let i = 1; i <= 20; i++) {
      done.push(schedule(`state ${i}`));
      if (i % 3 === 0) {
        c.answers[c.answers.length - 1].resolve();
        await c.settle();
      }
    }
    while (c.answers.length > 0 && c.sent.at(-1) !== 'state 20') {
      c.answers[c.answers.length - 1].resolve();
      await c.settle();
    }
    c.answers[c.answers.length - 1].resolve();
    await Promise.all(done);
    expect(c.sent.at(-1)).toBe('state 20');
    expect(c.sent.length).toBeLessThan(20);
  });

  it('goes on with the newest state after a failed send, and reports the failure to its callers', async () => {
    const c = slowCommand();
    const schedule = latestWins(c.send);
    const first = schedule('a');
    const second = schedule('ab');
    c.answers[0].reject(new Error('offline'));
    await expect(first).rejects.toThrow('offline');
    await c.settle();
    expect(c.sent).toEqual(['a', 'ab']);
    c.answers[1].resolve();
    await expect(second).resolves.toBeUndefined();
  });

  it('is idle again after the last answer: the next call is sent at once', async () => {
    const c = slowCommand();
    const schedule = latestWins(c.send);
    const first = schedule('a');
    c.answers[0].resolve();
    await first;
    void schedule('b');
    expect(c.sent).toEqual(['a', 'b']);
  });
});

describe('Tickets', () => {
  it('discards an answer that arrives after the answer of a later request', () => {
    const t = new Tickets();
    const shown: string[] = [];
    const old = t.issue();
    const newer = t.issue();
    // The newer request is answered first; the old one's answer is stale.
    if (t.take(newer)) shown.push('newer');
    if (t.take(old)) shown.push('old');
    expect(shown).toEqual(['newer']);
  });

  it('shows answers that arrive in order', () => {
    const t = new Tickets();
    const shown: number[] = [];
    const tickets = [t.issue(), t.issue(), t.issue()];
    for (const k of tickets) if (t.take(k)) shown.push(k);
    expect(shown).toEqual(tickets);
  });
});

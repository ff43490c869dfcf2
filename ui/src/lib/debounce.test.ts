import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { debounce } from './debounce';

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

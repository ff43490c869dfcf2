import { describe, expect, it, vi } from 'vitest';

const sent: string[] = [];
vi.mock('@tauri-apps/api/core', () => ({
  invoke: (cmd: string) => {
    sent.push(cmd);
    return Promise.resolve({ doc: 1, model: 'gpt-4o', figures: {}, chat: null });
  },
}));

const { Figures, shareOfBudget } = await import('./figures.svelte');

describe('the Figures panel', () => {
  it('asks for the figures only while open', async () => {
    const run = async (f: () => unknown) => {
      await f();
    };
    const figures = new Figures(() => 1, run);
    figures.changed();
    await new Promise((r) => setTimeout(r, 500));
    expect(sent).toEqual([]);
    await figures.toggle();
    expect(sent).toEqual(['book_figures']);
    expect(figures.view?.model).toBe('gpt-4o');
    await figures.toggle();
    figures.changed();
    await new Promise((r) => setTimeout(r, 500));
    expect(sent).toEqual(['book_figures']);
  });

  it('word the constant entries as a share of the budget', () => {
    expect(shareOfBudget(31, 200)).toBe(16);
    expect(shareOfBudget(5, 0)).toBe(0);
  });
});

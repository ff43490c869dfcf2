import { describe, expect, it, vi } from 'vitest';
import type { ProblemsView } from './bindings';

const calls: { cmd: string; args: Record<string, unknown> }[] = [];
vi.mock('@tauri-apps/api/core', () => ({
  invoke: async (cmd: string, args: Record<string, unknown>) => {
    calls.push({ cmd, args });
    const hints = args.hints === true;
    const view: ProblemsView = {
      doc: 1,
      rules: 'studio',
      chat: false,
      books: [{ doc: 1, name: 'B' }],
      problems: hints ? [{ entry: { book: 0, id: 4 }, severity: 'hint', span: { kind: 'entry' }, fix: null, code: 'key_contains_other' } as unknown as ProblemsView['problems'][number]] : [],
      names: [],
      hidden_hints: hints ? [] : [{ code: 'key_contains_other', count: 1 }],
    };
    // Rust's fingerprint, in short: the view's JSON.
    const hash = JSON.stringify(view);
    return { hash, view: args.have === hash ? null : view };
  },
}));
vi.mock('@tauri-apps/api/event', () => ({ listen: vi.fn(async () => () => {}) }));

const { Problems } = await import('./problems.svelte');

describe('the hints of the Problems panel', () => {
  it('are counted, not sent, until the panel lists them', async () => {
    const p = new Problems(() => 1, async (f) => void (await f()));
    await p.now();
    expect(calls.at(-1)?.args).toMatchObject({ doc: 1, hints: false, have: null });
    expect(p.counts.hint).toBe(1);
    expect(p.codes).toEqual(['key_contains_other']);
    expect(p.missingHints()).toBe(false);
    // Shown in an open panel: the answer held lacks them, so ask again.
    p.open = true;
    p.showHints = true;
    expect(p.missingHints()).toBe(true);
    await p.now();
    expect(calls.at(-1)?.args).toMatchObject({ doc: 1, hints: true });
    expect(p.shown.map((x) => x.entry.id)).toEqual([4]);
    expect(p.counts.hint).toBe(1);
    expect(p.missingHints()).toBe(false);
    // The hint filter alone asks for them too.
    p.showHints = false;
    p.severity = 'hint';
    expect(p.wantsHints()).toBe(true);
  });

  it('keeps the view it holds when Rust says it is unchanged', async () => {
    const p = new Problems(() => 1, async (f) => void (await f()));
    await p.now();
    const first = p.view;
    expect(first).not.toBeNull();
    await p.now();
    const asked = calls.at(-1)?.args;
    expect(asked?.have).toBe(JSON.stringify(first));
    // The same object: nothing parsed or drawn again.
    expect(p.view).toBe(first);
    expect(p.stale).toBe(false);
  });
});

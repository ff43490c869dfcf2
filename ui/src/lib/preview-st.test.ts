import { beforeEach, describe, expect, it, vi } from 'vitest';

// The rules in force decide which preview command is asked.
let rules = 'sillytavern';
const calls: string[] = [];
vi.mock('@tauri-apps/api/core', () => ({
  invoke: (cmd: string, args?: Record<string, unknown>) => {
    calls.push(cmd);
    const view = () => ({ rules, chosen: cmd === 'set_rules', st: { depth: 2 } });
    if (cmd === 'rules_view') return Promise.resolve(view());
    if (cmd === 'set_rules') {
      rules = String(args?.rules);
      return Promise.resolve(view());
    }
    if (cmd === 'st_preview') return Promise.resolve({ request: args?.request ?? 3, injected: [], dropped: [] });
    if (cmd === 'preview')
      return Promise.resolve({ result: { request: 3 }, names: [], prompt: { rev: 1, base: null, keep_head: 0, keep_tail: 0, middle: [] } });
    if (cmd === 'st_log') return Promise.resolve([{ request: 1, used: 0, limit: 10, injected: [], timed: [] }]);
    if (cmd === 'preview_log') return Promise.resolve([]);
    return Promise.resolve(null);
  },
}));

const { Preview } = await import('./preview.svelte');
const { Documents } = await import('./documents.svelte');

const make = () => new Preview(new Documents(), async (f) => void (await f()));

describe('preview rules', () => {
  beforeEach(() => {
    calls.length = 0;
    rules = 'sillytavern';
  });

  it("asks SillyTavern's preview when its rules are in force", async () => {
    const p = make();
    await p.refresh();
    expect(calls).toEqual(['rules_view', 'st_preview']);
    expect(p.sillytavern).toBe(true);
    expect(p.st?.request).toBe(3);
    expect(p.view).toBeNull();
  });

  it('switching to the studio rules asks the studio preview and its log', async () => {
    const p = make();
    await p.toggleLog(true);
    calls.length = 0;
    await p.setRules('studio');
    expect(calls).toEqual(['set_rules', 'preview', 'preview_log']);
    expect(p.sillytavern).toBe(false);
    expect(p.rules?.chosen).toBe(true);
    expect(p.view?.result.request).toBe(3);
  });

  it("opening the log under SillyTavern's rules asks its log", async () => {
    const p = make();
    await p.refresh();
    await p.toggleLog(true);
    expect(calls.at(-1)).toBe('st_log');
    expect(p.stLog[0].request).toBe(1);
  });
});

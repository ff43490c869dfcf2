import { beforeEach, describe, expect, it, vi } from 'vitest';

// The rules in force decide which preview command is asked.
let rules = 'sillytavern';
const calls: string[] = [];
const stArgs: Record<string, unknown>[] = [];
const risuArgs: Record<string, unknown>[] = [];
// The final prompt the mock sends: whole, then as a change to rev 1.
const msg = (content: string) => ({ role: 'user', name: null, content, block: 'chatHistory', sources: [], tokens: 1 });
let stPrompt: unknown = null;
vi.mock('@tauri-apps/api/core', () => ({
  invoke: (cmd: string, args?: Record<string, unknown>) => {
    calls.push(cmd);
    const view = () => ({ rules, chosen: cmd === 'set_rules', st: { depth: 2 } });
    if (cmd === 'rules_view') return Promise.resolve(view());
    if (cmd === 'set_rules') {
      rules = String(args?.rules);
      return Promise.resolve(view());
    }
    if (cmd === 'preview') {
      // One command for every rules: the answer follows the rules in force.
      const ask = (args?.ask ?? {}) as Record<string, unknown>;
      if (rules === 'risu') {
        risuArgs.push(ask);
        const prompt = ask.prompt ? { messages: [{ role: 'system', content: 'Lore.', source: { kind: 'entry', book: 0, id: 1 } }], absent: [] } : null;
        return Promise.resolve({ rules, view: { request: 3, requests: 3, injected: [], dropped: [], prompt } });
      }
      if (rules === 'sillytavern') {
        stArgs.push(ask);
        return Promise.resolve({ rules, view: { request: ask.request ?? 3, injected: [], dropped: [], prompt: ask.prompt ? stPrompt : null } });
      }
      return Promise.resolve({ rules, view: { result: { request: 3 }, names: [], prompt: { rev: 1, base: null, keep_head: 0, keep_tail: 0, middle: [] } } });
    }
    if (cmd === 'preview_log') return Promise.resolve(rules === 'sillytavern' ? [{ request: 1, used: 0, limit: 10, injected: [], cut: [], held: [] }] : []);
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
    expect(calls).toEqual(['rules_view', 'preview']);
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

  it("opening the log under SillyTavern's rules asks the one log command", async () => {
    const p = make();
    await p.refresh();
    await p.toggleLog(true);
    expect(calls.at(-1)).toBe('preview_log');
    expect(p.log[0].request).toBe(1);
  });

  it("SillyTavern's final prompt is asked only while its panel is open, then as changes", async () => {
    const p = make();
    await p.refresh();
    expect(stArgs.at(-1)).toMatchObject({ prompt: false, have: null });
    stPrompt = { rev: 1, base: null, keep_head: 0, keep_tail: 0, middle: [msg('a'), msg('b'), msg('c')] };
    await p.toggleStPrompt(true);
    expect(stArgs.at(-1)).toMatchObject({ prompt: true, have: null });
    expect(p.stPrompt.map((m) => m.content)).toEqual(['a', 'b', 'c']);
    stPrompt = { rev: 2, base: 1, keep_head: 1, keep_tail: 1, middle: [msg('B')] };
    await p.refresh();
    expect(stArgs.at(-1)).toMatchObject({ prompt: true, have: 1 });
    expect(p.stPrompt.map((m) => m.content)).toEqual(['a', 'B', 'c']);
    await p.toggleStPrompt(false);
    expect(p.stPrompt).toEqual([]);
    await p.refresh();
    expect(stArgs.at(-1)).toMatchObject({ prompt: false, have: null });
  });

  it("RisuAI's final prompt is asked only while its panel is open", async () => {
    rules = 'risu';
    const p = make();
    await p.refresh();
    expect(risuArgs.at(-1)).toMatchObject({ rules: 'risu', prompt: false });
    expect(p.risu?.prompt).toBeNull();
    await p.toggleRisuPrompt(true);
    expect(risuArgs.at(-1)).toMatchObject({ rules: 'risu', prompt: true });
    expect(p.risu?.prompt?.messages.map((m) => m.content)).toEqual(['Lore.']);
    await p.toggleRisuPrompt(false);
    expect(risuArgs.at(-1)).toMatchObject({ prompt: false });
    expect(p.risu?.prompt).toBeNull();
  });
});

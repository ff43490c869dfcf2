import { describe, expect, it, vi } from 'vitest';
import type { StInputsView } from './bindings';

// The persona, character and Author's Note inputs: typed here, sent paced
// by the answers, never overwritten by an older answer.
const sent: StInputsView[] = [];
const calls: string[] = [];
const release: (() => void)[] = [];
const inputs = (persona: string): StInputsView => ({
  persona,
  description: null,
  personality: null,
  scenario: null,
  examples: null,
  creator_notes: null,
  character_note: null,
  authors_note: { text: '', interval: 1, position: 'in_chat', depth: 4, role: 'system' },
});
const view = (persona: string) => ({ rules: 'sillytavern', chosen: true, st: { depth: 2 }, inputs: inputs(persona), card: null });
vi.mock('@tauri-apps/api/core', () => ({
  invoke: (cmd: string, args?: Record<string, unknown>) => {
    calls.push(cmd);
    if (cmd === 'rules_view') return Promise.resolve(view('saved'));
    if (cmd === 'set_st_inputs') {
      const v = args?.inputs as StInputsView;
      sent.push(v);
      // Answers wait until released, as a slow command would.
      return new Promise((resolve) => release.push(() => resolve(view(v.persona))));
    }
    if (cmd === 'preview') return Promise.resolve({ rules: 'sillytavern', view: { request: 1, injected: [], dropped: [], prompt: null } });
    return Promise.resolve(null);
  },
}));

const { Preview } = await import('./preview.svelte');
const { Documents } = await import('./documents.svelte');

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('SillyTavern preview inputs', () => {
  it('takes the saved inputs once, then sends the newest typing without losing any', async () => {
    const docs = new Documents();
    const p = new Preview(docs, async (f) => void (await f()));
    await p.refresh();
    expect(p.stInputs?.persona).toBe('saved');
    const typing = [p.setStInputs(inputs('a')), p.setStInputs(inputs('ab')), p.setStInputs(inputs('abc'))];
    expect(p.stInputs?.persona).toBe('abc');
    // One command in flight, the newest waiting: the middle one is skipped.
    expect(sent.map((v) => v.persona)).toEqual(['a']);
    release.shift()?.();
    await flush();
    // The answer to "a" came; what was typed after it is still shown.
    expect(p.stInputs?.persona).toBe('abc');
    expect(sent.map((v) => v.persona)).toEqual(['a', 'abc']);
    release.shift()?.();
    await Promise.all(typing);
    expect(p.stInputs?.persona).toBe('abc');
    // Chosen rules are asked again when the attached books change (an
    // attached card fills the character's fields), the typed inputs kept.
    calls.length = 0;
    docs.app = { docs: [{ id: 1, attached: true, sillytavern: true }] } as unknown as typeof docs.app;
    await p.refresh();
    expect(calls[0]).toBe('rules_view');
    expect(p.stInputs?.persona).toBe('abc');
  });
});

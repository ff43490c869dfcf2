import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AiRunView, AiSuggestionView } from './bindings';

const calls: { cmd: string; args: Record<string, unknown> }[] = [];
const responses: Record<string, (args: Record<string, unknown>) => unknown> = {};
vi.mock('@tauri-apps/api/core', () => ({
  invoke: async (cmd: string, args: Record<string, unknown>) => {
    calls.push({ cmd, args });
    const r = responses[cmd];
    if (!r) return null;
    return r(args);
  },
}));
let progress: ((e: { payload: number }) => void) | null = null;
const unlisten = vi.fn();
vi.mock('@tauri-apps/api/event', () => ({
  listen: vi.fn(async (_name: string, h: (e: { payload: number }) => void) => {
    progress = h;
    return unlisten;
  }),
}));

const { AiAssistant } = await import('./ai.svelte');

function suggestion(index: number, passed: boolean): AiSuggestionView {
  return {
    index, name: `S${index}`, keys: ['k'], secondary_keys: [], content: 'c', merge: 'new', target: null, target_name: null, locked: false,
    fires_on_source: passed, requests: [], tokens: 3, kept_by_budget: true, cut_in: [], problems: [], passed, failed: passed ? [] : [{ code: 'no_fire_on_source' }],
  };
}

const run: AiRunView = { doc: 1, action: 'draft', suggestions: [suggestion(0, true), suggestion(1, false), suggestion(2, true)], findings: [], prompt_tokens: 40, chat_requests: 3, exchanges: 1 };

describe('the AI assistant', () => {
  beforeEach(() => {
    calls.length = 0;
    unlisten.mockClear();
    responses.ai_run = () => {
      progress?.({ payload: 12 });
      return run;
    };
    responses.ai_accept = (a) => a.picks;
  });

  it('picks what passed, follows the progress and accepts the picks in order', async () => {
    const ai = new AiAssistant();
    await ai.run(1, { action: 'draft', entry: null, entries: [], source: 'text', tokens: 100, max_entries: 4, lang: 'en' });
    expect(ai.received).toBe(12);
    expect(unlisten).toHaveBeenCalledOnce();
    expect(ai.running).toBe(false);
    expect(ai.picked).toEqual([0, 2]);
    ai.toggle(1);
    ai.toggle(0);
    expect(ai.picked).toEqual([2, 1]);
    const touched = await ai.accept();
    expect(calls.find((c) => c.cmd === 'ai_accept')?.args).toEqual({ doc: 1, picks: [1, 2] });
    expect(touched).toEqual([1, 2]);
    expect(ai.result).toBeNull();
  });

  it('sends a typed key once and an empty one as none', async () => {
    responses.ai_configure = (a) => ({ address: a.address, model: a.model, context: a.context, key_saved: false, key_held: a.key !== null, not_remembered: null, prompts_folder: '/p' });
    const ai = new AiAssistant();
    await ai.configure('http://h:1', 'm', 4096, '', false);
    expect(calls.at(-1)?.args.key).toBeNull();
    await ai.configure('http://h:1', 'm', 4096, 'sk-1', true);
    expect(calls.at(-1)?.args).toMatchObject({ key: 'sk-1', remember: true });
    expect(ai.config?.key_held).toBe(true);
  });

  it('stops following the progress when the run fails', async () => {
    responses.ai_run = () => {
      throw { kind: 'model', message: 'down', code: { code: 'model', problem: 'unreachable', detail: 'down' } };
    };
    const ai = new AiAssistant();
    await expect(ai.run(1, { action: 'review', entry: null, entries: [], source: null, tokens: 1, max_entries: 1, lang: 'en' })).rejects.toBeTruthy();
    expect(ai.running).toBe(false);
    expect(unlisten).toHaveBeenCalledOnce();
  });
});

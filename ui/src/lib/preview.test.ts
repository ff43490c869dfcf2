import { describe, expect, it, vi } from 'vitest';
import type { PreviewView } from './bindings';

// Each `preview` command waits until the test answers it, in any order.
const asked: Array<{ answer: (v: unknown) => void }> = [];
vi.mock('@tauri-apps/api/core', () => ({
  invoke: (cmd: string) => {
    if (cmd === 'preview') return new Promise((answer) => asked.push({ answer }));
    if (cmd === 'rules_view') return Promise.resolve({ rules: 'studio', chosen: false, st: {} });
    return Promise.resolve(null);
  },
}));

const { Preview } = await import('./preview.svelte');
const { Documents } = await import('./documents.svelte');

const view = (request: number) => ({ result: { request } }) as unknown as PreviewView;
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('preview', () => {
  it('shows the newest answer when an older one arrives last', async () => {
    asked.length = 0;
    const p = new Preview(new Documents(), async (f) => void (await f()));
    const old = p.refresh();
    const newer = p.refresh();
    await settle();
    asked[1].answer(view(2));
    await newer;
    asked[0].answer(view(1));
    await old;
    expect(p.view?.result.request).toBe(2);
  });

  it('asks once more after a burst of edits, with none in between', async () => {
    asked.length = 0;
    const p = new Preview(new Documents(), async (f) => void (await f()));
    for (let i = 0; i < 10; i++) p.schedule();
    await settle();
    expect(asked.length).toBe(1);
    asked[0].answer(view(1));
    await settle();
    expect(asked.length).toBe(2);
    asked[1].answer(view(2));
    await settle();
    expect(asked.length).toBe(2);
    expect(p.view?.result.request).toBe(2);
  });
});

import { describe, expect, it, vi } from 'vitest';
import type { AppStateView, PreviewView } from './bindings';

// Each `preview` command waits until the test answers it, in any order.
const asked: Array<{ answer: (v: unknown) => void; fail: (e: unknown) => void }> = [];
const sent: Array<{ cmd: string; args: unknown }> = [];
// What `chat_text` answers.
let chatFile = 'User: hello';
vi.mock('@tauri-apps/api/core', () => ({
  invoke: (cmd: string, args: unknown) => {
    sent.push({ cmd, args });
    if (cmd === 'preview') return new Promise((answer, fail) => asked.push({ answer, fail }));
    if (cmd === 'rules_view') return Promise.resolve({ rules: 'studio', chosen: false, st: {} });
    if (cmd === 'set_chat' || cmd === 'edit_chat') return Promise.resolve({ chat_error: { line: 2, problem: { code: 'line_not_object' } }, chat_warnings: [] });
    if (cmd === 'chat_text') return Promise.resolve(chatFile);
    return Promise.resolve(null);
  },
}));

const { Preview } = await import('./preview.svelte');
const { CHAT_TAIL } = await import('./chatBox');
const { Documents } = await import('./documents.svelte');

const view = (request: number) => ({
  rules: 'studio',
  view: { result: { request }, names: [], prompt: { rev: request, base: null, keep_head: 0, keep_tail: 0, middle: [] } } as unknown as PreviewView,
});
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

  it('asks again, without reporting it, for a preview that gave way to a save', async () => {
    asked.length = 0;
    const p = new Preview(new Documents(), async (f) => void (await f()));
    const first = p.refresh();
    await settle();
    asked[0].fail({ kind: 'cancelled', message: 'gave way' });
    await first;
    expect(p.view).toBeNull();
    await new Promise((r) => setTimeout(r, 150));
    expect(asked.length).toBe(2);
    asked[1].answer(view(3));
    await settle();
    expect(p.view?.result.request).toBe(3);
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

  it('sends the typed chat without asking for the text or the whole state back', async () => {
    asked.length = 0;
    sent.length = 0;
    const docs = new Documents();
    docs.app = { docs: [], chat_error: null, chat_warnings: [], settings: { seed: 0, model: 'gpt-4o', template: { blocks: [] } }, recent: [], tokenizer_file: null, approximate: false } as AppStateView;
    const app = docs.app;
    const p = new Preview(docs, async (f) => void (await f()));
    await p.setChat('User: hi\nnot a message');
    await settle();
    // The rules are asked once, not on every keystroke.
    expect(sent.map((c) => c.cmd)).toEqual(['set_chat', 'rules_view', 'preview']);
    asked[0].answer(view(1));
    await settle();
    sent.length = 0;
    await p.setChat('User: hi\nnot a message!');
    await settle();
    expect(sent.map((c) => c.cmd)).toEqual(['edit_chat', 'preview']);
    // The state is patched, not replaced: nothing else re-renders.
    expect(docs.app).toBe(app);
    expect(docs.app?.chat_error).toEqual({ line: 2, problem: { code: 'line_not_object' } });
  });

  it('loads the chat box text only when asked (start-up, a chat file)', async () => {
    const p = new Preview(new Documents(), async (f) => void (await f()));
    expect(p.chatLoads).toBe(0);
    await p.loadChat();
    expect(p.chatText).toBe('User: hello');
    expect(p.chatLoads).toBe(1);
  });

  it('sends a keystroke as the change to the chat Rust holds', async () => {
    sent.length = 0;
    const p = new Preview(new Documents(), async (f) => void (await f()));
    await p.loadChat();
    await p.setChat('User: hello!');
    await p.setChat('User: hello!?');
    const edits = sent.filter((c) => c.cmd === 'edit_chat' || c.cmd === 'set_chat');
    expect(edits).toEqual([
      { cmd: 'edit_chat', args: { at: 11, remove: 0, insert: '!', len: 11, doc: null } },
      { cmd: 'edit_chat', args: { at: 12, remove: 0, insert: '?', len: 12, doc: null } },
    ]);
  });

  it('keeps the earlier part of a long chat out of the box and sends edits at their place', async () => {
    const long = Array.from({ length: 2000 }, (_, i) => `User: message ${i} about the harbor`).join('\n');
    chatFile = long;
    sent.length = 0;
    const p = new Preview(new Documents(), async (f) => void (await f()));
    await p.loadChat();
    chatFile = 'User: hello';
    expect(p.chatHead.length).toBeGreaterThan(0);
    expect(p.chatHead + p.chatTail).toBe(long);
    expect(p.chatTail.length).toBeLessThan(CHAT_TAIL + 100);
    expect(p.chatTail.startsWith('User: message')).toBe(true);
    await p.setChat(p.chatTail + '!');
    // Everything back into the box: the chat Rust holds does not change.
    const box = p.editFrom(0, p.chatTail + '!');
    expect(box).toBe(long + '!');
    expect(p.chatHead).toBe('');
    await p.setChat(box + '?');
    // A paste moves the start of the box to the read-only part again.
    p.moveToHead(long.slice(0, 100));
    await p.setChat(long.slice(100) + '!?.');
    const edits = sent.filter((c) => c.cmd === 'edit_chat' || c.cmd === 'set_chat');
    expect(edits).toEqual([
      { cmd: 'edit_chat', args: { at: long.length, remove: 0, insert: '!', len: long.length, doc: null } },
      { cmd: 'edit_chat', args: { at: long.length + 1, remove: 0, insert: '?', len: long.length + 1, doc: null } },
      { cmd: 'edit_chat', args: { at: long.length + 2, remove: 0, insert: '.', len: long.length + 2, doc: null } },
    ]);
  });

  it('a chat send names its book, and showing another tab waits for it before loading that tab\'s chat', async () => {
    sent.length = 0;
    chatFile = 'User: harbor';
    const docs = new Documents();
    docs.doc = 1;
    const p = new Preview(docs, async (f) => void (await f()));
    await p.loadChat();
    p.trackChat(p.setChat('User: harbor!'));
    chatFile = 'User: forest';
    await p.showDoc(2);
    const order = sent.map((c) => c.cmd).filter((c) => ['edit_chat', 'set_chat', 'show_doc', 'chat_text'].includes(c));
    expect(order).toEqual(['chat_text', 'edit_chat', 'show_doc', 'chat_text']);
    expect(sent.find((c) => c.cmd === 'edit_chat')?.args).toMatchObject({ doc: 1 });
    expect(sent.find((c) => c.cmd === 'show_doc')?.args).toEqual({ doc: 2 });
    expect(p.chatText).toBe('User: forest');
    // The next keystroke is a change to the shown tab's chat.
    sent.length = 0;
    docs.doc = 2;
    await p.setChat('User: forest?');
    expect(sent.find((c) => c.cmd === 'edit_chat')?.args).toEqual({ at: 12, remove: 0, insert: '?', len: 12, doc: 2 });
    chatFile = 'User: hello';
  });
});

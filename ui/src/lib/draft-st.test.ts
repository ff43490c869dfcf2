import { describe, expect, it, vi } from 'vitest';
import { detail } from './testing';

const calls: { cmd: string; args: Record<string, unknown> }[] = [];
vi.mock('@tauri-apps/api/core', () => ({
  invoke: async (cmd: string, args: Record<string, unknown>) => {
    calls.push({ cmd, args });
    if (cmd === 'update_entry') return { detail: { ...detail(1, 'x'), entry: args.entry }, state: null, preview: null };
    if (cmd === 'set_st_field') {
      const d = detail(1, 'typed');
      return { ...d, entry: { ...d.entry, order: 250 }, st: { ...d.st, order: 250 } };
    }
    return null;
  },
}));

const { EntryDraft } = await import('./draft.svelte');

describe('SillyTavern fields in the editor', () => {
  it('sends typing first, then the field by its SillyTavern name, and shows what Rust returns', async () => {
    const saved: number[] = [];
    const d = new EntryDraft({ doc: () => 7, run: async (f) => void (await f()), previewAsk: () => null, saved: async (x) => void saved.push(x.entry.order) });
    d.detail = detail(1, 'Body');
    d.draft = detail(1, 'Body').entry;
    d.edit({ content: 'typed' });
    await d.setStField({ field: 'order', value: 250 });
    expect(calls.map((c) => c.cmd)).toEqual(['update_entry', 'set_st_field']);
    expect(calls[1].args).toEqual({ doc: 7, id: 1, edit: { field: 'order', value: 250 } });
    expect(d.draft?.order).toBe(250);
    expect(d.detail?.st.order).toBe(250);
    expect(saved.at(-1)).toBe(250);
  });
});

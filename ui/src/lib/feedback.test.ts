import { describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => ({ invoke: async () => null }));
vi.mock('@tauri-apps/api/event', () => ({ listen: async () => () => {} }));

const { Feedback } = await import('./feedback.svelte');

describe('notices', () => {
  it('keeps sentences and structured notices in one panel until dismissed', () => {
    const f = new Feedback();
    f.notify('Saved to /tmp/a.json');
    f.add([{ kind: 'message', text: 'repaired' }]);
    f.add([]);
    expect(f.notices).toEqual([
      { kind: 'message', text: 'Saved to /tmp/a.json' },
      { kind: 'message', text: 'repaired' },
    ]);
    f.dismiss();
    expect(f.notices).toEqual([]);
  });
});

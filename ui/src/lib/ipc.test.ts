import { beforeEach, describe, expect, it, vi } from 'vitest';

// The IPC is mocked in one place: Tauri's invoke.
const invoke = vi.fn();
vi.mock('@tauri-apps/api/core', () => ({ invoke: (...args: unknown[]) => invoke(...args) }));
vi.mock('@tauri-apps/api/event', () => ({ listen: vi.fn(async () => () => {}) }));

const { api, IpcError, toIpcError } = await import('./ipc');

describe('ipc', () => {
  beforeEach(() => invoke.mockReset());

  it('calls commands by name with their arguments', async () => {
    invoke.mockResolvedValueOnce(['a', '/b,c/']);
    expect(await api.splitKeys('a, /b,c/')).toEqual(['a', '/b,c/']);
    expect(invoke).toHaveBeenCalledWith('split_keys', { text: 'a, /b,c/' });
    invoke.mockResolvedValueOnce(undefined);
    await api.bulkUpdate(1, [2, 3], { enabled: false, order: null, priority: null, st: [] });
    expect(invoke).toHaveBeenLastCalledWith('bulk_update', { doc: 1, ids: [2, 3], patch: { enabled: false, order: null, priority: null, st: [] } });
  });

  it('turns Rust errors into {kind, message}', async () => {
    invoke.mockRejectedValueOnce({ kind: 'format', message: 'line 3: bad' });
    await expect(api.openRecent('/x')).rejects.toMatchObject({ kind: 'format', message: 'line 3: bad' });
    expect(toIpcError('plain string')).toMatchObject({ kind: 'internal', message: 'plain string' });
    expect(toIpcError(new IpcError('io', 'disk'))).toBeInstanceOf(IpcError);
  });
});

import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls: { cmd: string; args: unknown }[] = [];
const responses: Record<string, (args: Record<string, unknown>) => unknown> = {};
vi.mock('@tauri-apps/api/core', () => ({
  invoke: async (cmd: string, args: Record<string, unknown>) => {
    calls.push({ cmd, args });
    const r = responses[cmd];
    return r ? r(args ?? {}) : null;
  },
}));
vi.mock('@tauri-apps/api/event', () => ({ listen: async () => () => {} }));

import { ServerLink } from './server.svelte';

describe('ServerLink', () => {
  beforeEach(() => {
    calls.length = 0;
    for (const k of Object.keys(responses)) delete responses[k];
  });

  it('connects through Rust, lists books and characters, and keeps no password', async () => {
    responses.st_connect = () => ({ address: 'http://127.0.0.1:8000', user: 'alice', login: 'account' });
    responses.st_books = () => [{ file_id: 'Eldoria', name: 'Eldoria', open: null }];
    responses.st_characters = () => [{ name: 'Seraphina', avatar: 'default_Seraphina.png', world: 'Eldoria', chats: ['Talk'] }];
    const link = new ServerLink();
    await link.connect('127.0.0.1:8000', ' alice ', 'hunter2');
    expect(calls[0]).toEqual({ cmd: 'st_connect', args: { address: '127.0.0.1:8000', user: 'alice', password: 'hunter2', remember: false } });
    expect(link.books.map((b) => b.file_id)).toEqual(['Eldoria']);
    expect(link.characters[0].chats).toEqual(['Talk']);
    expect(JSON.stringify(link)).not.toContain('hunter2');
    expect(link.busy).toBe(false);
  });

  it('sends no user when none is typed, and forgets the lists on disconnect', async () => {
    responses.st_connect = () => ({ address: 'http://h', user: null, login: 'open' });
    responses.st_books = () => [];
    responses.st_characters = () => [];
    const link = new ServerLink();
    await link.connect('http://h', '  ', '');
    expect(calls[0].args).toMatchObject({ user: null });
    await link.disconnect();
    expect(link.connection).toBeNull();
    expect(calls.map((c) => c.cmd)).toContain('st_disconnect');
  });

  it('uses the remembered password only for the server and user it was remembered for', async () => {
    responses.st_connection = () => null;
    responses.st_last_server = () => ({ address: 'http://h', user: 'alice', password_saved: true });
    responses.st_connect = () => ({ address: 'http://h', user: 'alice', login: 'basic', password_saved: true, not_remembered: null });
    responses.st_books = () => [];
    responses.st_characters = () => [];
    const link = new ServerLink();
    await link.load();
    await link.connect('http://h', 'alice', '');
    await link.connect('http://h', 'bob', '');
    await link.connect('http://h', 'alice', 'typed', true);
    const sent = calls.filter((c) => c.cmd === 'st_connect').map((c) => c.args);
    expect(sent).toEqual([
      { address: 'http://h', user: 'alice', password: null, remember: false },
      { address: 'http://h', user: 'bob', password: '', remember: false },
      { address: 'http://h', user: 'alice', password: 'typed', remember: true },
    ]);
    await link.forgetPassword();
    expect(calls.at(-1)).toEqual({ cmd: 'st_forget_password', args: { address: 'http://h', user: 'alice' } });
    expect(link.last?.password_saved).toBe(false);
  });

  it('is not busy after a refused connection', async () => {
    responses.st_connect = () => Promise.reject({ kind: 'server', message: 'refused' });
    const link = new ServerLink();
    await expect(link.connect('http://h', 'u', 'p')).rejects.toBeTruthy();
    expect(link.busy).toBe(false);
    expect(link.connection).toBeNull();
  });
});

// The connection to a running SillyTavern, as the server dialog shows it:
// the connection in force, the server's books and characters. Every call
// goes to Rust (`src-tauri/src/commands/server.rs`), which talks to the
// server; the webview never does. The password is handed to Rust to
// connect and not kept here.
import { api } from './ipc';
import type { ServerBookView, ServerCharacterView, ServerView } from './bindings';

export class ServerLink {
  connection = $state<ServerView | null>(null);
  books = $state<ServerBookView[]>([]);
  characters = $state<ServerCharacterView[]>([]);
  /** A call to the server is under way. */
  busy = $state(false);

  /** What Rust holds (the dialog opened again, the app started). */
  async load() {
    this.connection = await api.stConnection();
    if (this.connection) await this.refresh();
  }

  async connect(address: string, user: string, password: string) {
    await this.busyWith(async () => {
      this.connection = await api.stConnect(address, user.trim() === '' ? null : user.trim(), password);
      await this.list();
    });
  }

  async disconnect() {
    await api.stDisconnect();
    this.connection = null;
    this.books = [];
    this.characters = [];
  }

  async refresh() {
    await this.busyWith(() => this.list());
  }

  private async list() {
    this.books = await api.stBooks();
    this.characters = await api.stCharacters();
  }

  private async busyWith(f: () => Promise<void>) {
    this.busy = true;
    try {
      await f();
    } finally {
      this.busy = false;
    }
  }
}

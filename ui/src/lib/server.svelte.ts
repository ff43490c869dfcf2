// The connection to a running SillyTavern, as the server dialog shows it:
// the connection in force, the server's books and characters. Every call
// goes to Rust (`src-tauri/src/commands/server.rs`), which talks to the
// server; the webview never does. The password is handed to Rust to
// connect and not kept here.
import { api } from './ipc';
import type { LastServer, ServerBookView, ServerCharacterView, ServerView } from './bindings';

export class ServerLink {
  connection = $state<ServerView | null>(null);
  books = $state<ServerBookView[]>([]);
  characters = $state<ServerCharacterView[]>([]);
  /** A call to the server is under way. */
  busy = $state(false);

  /** The last server connected to, offered in the form. */
  last = $state<LastServer | null>(null);

  /** What Rust holds (the dialog opened again, the app started). */
  async load() {
    this.connection = await api.stConnection();
    this.last = await api.stLastServer();
    if (this.connection) await this.refresh();
  }

  /** An empty `password` uses the one remembered for this server and
   *  user, when there is one. */
  async connect(address: string, user: string, password: string, remember = false) {
    const who = user.trim() === '' ? null : user.trim();
    const saved = this.last?.password_saved === true && this.last.address === address && this.last.user === who;
    await this.busyWith(async () => {
      this.connection = await api.stConnect(address, who, password === '' && saved ? null : password, remember);
      await this.list();
    });
  }

  /** Removes the remembered password of the last server. */
  async forgetPassword() {
    const l = this.last;
    if (!l?.user) return;
    await api.stForgetPassword(l.address, l.user);
    this.last = { ...l, password_saved: false };
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

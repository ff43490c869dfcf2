// What the user is told: errors and notices. Every action started from the
// UI goes through `run`, so a failure is reported the same way wherever it
// happens and never escapes as an unhandled rejection.
import type { Notice } from './bindings';
import { toIpcError, type IpcError } from './ipc';

export class Feedback {
  errors = $state<string[]>([]);
  notices = $state<Notice[]>([]);

  /** `word` says an error in the UI's language (by its code when it has
   *  one); by default its English message. */
  constructor(private readonly word: (e: IpcError) => string = (e) => e.message) {}

  /** Adds notices in sentences (save and export paths, repaired values). */
  notify = (...messages: string[]) => {
    this.add(messages.map((text) => ({ kind: 'message', text })));
  };

  /** Adds notices as Rust sends them (start-up imports carry a report). */
  add = (notices: Notice[]) => {
    if (notices.length > 0) this.notices = [...this.notices, ...notices];
  };

  /** Closes the notice panel. */
  dismiss = () => {
    this.notices = [];
  };

  /** Runs `action` and shows its error, if any; a cancelled dialog is not
   *  an error. Never throws. */
  run = async (action: () => unknown): Promise<void> => {
    try {
      await action();
    } catch (e) {
      const err = toIpcError(e);
      if (err.kind !== 'cancelled') this.errors = [...this.errors, this.word(err)];
    }
  };
}

/** The signature of `Feedback.run`, for stores that report their own
 *  background failures (debounced sends). */
export type Run = Feedback['run'];

/** The chat box of a long chat holds only its newest part.
 *
 *  WebKit edits a long `<textarea>` slowly: deleting a message at the end
 *  of a 100 KB chat spends 80–100 ms in WebKit's own editing before the
 *  app hears of it, and a keystroke in a 2.5 MB chat far more (see
 *  BENCHMARKS.md). So a chat longer than {@link CHAT_BOX_MAX} characters,
 *  when it is loaded or pasted, keeps its newest messages (about the last
 *  {@link CHAT_TAIL} characters) in the box, and the earlier part is shown
 *  above it, read-only, with a way to bring any of it back into the box.
 *  Rust always holds the whole chat: the box's edits are sent at their
 *  place in it. */

/** A chat longer than this (in UTF-16 units, as the box counts) is split. */
export const CHAT_BOX_MAX = 32 * 1024;

/** About how much of a split chat the box keeps. */
export const CHAT_TAIL = 8 * 1024;

/** An insertion at least this long (a paste, a chat dropped in) splits a
 *  chat that has grown past {@link CHAT_BOX_MAX}; typing never does, so the
 *  text never moves away under the caret. */
export const CHAT_SPLIT_INSERT = 4 * 1024;

/** How far back, in lines, a split looks for a line that starts a
 *  message before it settles for any line. */
const LOOK_BACK = 200;

/** A line that starts a message of the pasted-chat format (`Name: text`). */
const MESSAGE_START = /^[^\n:]{1,64}:[ \t]/;

/** Where the box's part of `text` starts: 0 when the whole text fits in
 *  the box. Otherwise the start of a line in about the last
 *  {@link CHAT_TAIL} characters: the nearest one that starts a message
 *  (`Name: `) at or before that point, else the line there. */
export function tailStart(text: string, max = CHAT_BOX_MAX, keep = CHAT_TAIL): number {
  if (text.length <= max) return 0;
  const from = text.lastIndexOf('\n', text.length - keep);
  if (from < 0) return 0;
  let at = from + 1;
  for (let i = 0; i < LOOK_BACK && at > 0; i++) {
    if (MESSAGE_START.test(text.slice(at, at + 80))) return at;
    const prev = text.lastIndexOf('\n', at - 2);
    if (prev < 0) break;
    at = prev + 1;
  }
  return from + 1;
}

/** The read-only part's lines, each with where it starts in the part. */
export function headLines(head: string): { at: number; text: string }[] {
  const out: { at: number; text: string }[] = [];
  let at = 0;
  for (const line of head.split('\n')) {
    out.push({ at, text: line });
    at += line.length + 1;
  }
  // The part ends with its last line's newline: no empty line after it.
  if (out.length > 1 && out[out.length - 1].text === '') out.pop();
  return out;
}

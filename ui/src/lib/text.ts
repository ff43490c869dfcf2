// Text helpers for rendering engine results. The engine reports byte
// offsets into UTF-8 text; JavaScript strings index UTF-16 code units.

/** Converts a UTF-8 byte offset in `text` to a UTF-16 index. */
export function byteToIndex(text: string, byte: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byte) {
    const cp = text.codePointAt(i) ?? 0;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

export interface Segment {
  text: string;
  mark: boolean;
}

/**
 * Splits `text` around the byte range [start, end) so the match can be
 * rendered highlighted — as text nodes, never as HTML.
 */
export function highlight(text: string, start: number, end: number): Segment[] {
  const a = byteToIndex(text, start);
  const b = byteToIndex(text, end);
  const out: Segment[] = [];
  if (a > 0) out.push({ text: text.slice(0, a), mark: false });
  if (b > a) out.push({ text: text.slice(a, b), mark: true });
  if (b < text.length) out.push({ text: text.slice(b), mark: false });
  return out;
}

/** Like `highlight`, but cut to about `context` characters on each side
 *  of the match, and a match longer than `2 × context` characters (a
 *  regex key over a whole message) to its head and tail: an excerpt has a
 *  bounded length however long the message, so the preview never lays
 *  out a whole long message to show one match. */
export function excerpt(text: string, start: number, end: number, context = 60): Segment[] {
  const a = byteToIndex(text, start);
  const b = byteToIndex(text, end);
  const from = Math.max(0, a - context);
  const to = Math.min(text.length, b + context);
  const out: Segment[] = [];
  const pre = (from > 0 ? '…' : '') + text.slice(from, a);
  if (pre) out.push({ text: pre, mark: false });
  const matched = b - a > 2 * context ? `${text.slice(a, a + context)}…${text.slice(b - context, b)}` : text.slice(a, b);
  out.push({ text: matched, mark: true });
  const post = text.slice(b, to) + (to < text.length ? '…' : '');
  if (post) out.push({ text: post, mark: false });
  return out;
}

/** The content's lines, marking the first `blockLines` as the decorator block. */
export function contentLines(content: string, blockLines: number): { text: string; decorator: boolean }[] {
  return content.split('\n').map((text, i) => ({ text, decorator: i < blockLines }));
}

/** The decorator name being typed on the caret's line, if the line is `@@name`. */
export function typedDecorator(content: string, caret: number): string | null {
  const lineStart = content.lastIndexOf('\n', caret - 1) + 1;
  const line = content.slice(lineStart, caret);
  const m = /^@@@?([a-z_]*)$/.exec(line);
  return m ? m[1] : null;
}

/** Replaces the decorator name being typed at `caret` with `name`. */
export function completeDecorator(content: string, caret: number, name: string): { content: string; caret: number } {
  const lineStart = content.lastIndexOf('\n', caret - 1) + 1;
  const line = content.slice(lineStart, caret);
  const prefix = line.startsWith('@@@') ? '@@@' : '@@';
  const inserted = `${prefix}${name}`;
  const rest = content.slice(caret);
  return { content: content.slice(0, lineStart) + inserted + rest, caret: lineStart + inserted.length };
}

/** The change from `before` to `after` as one splice, in UTF-16 units:
 *  `remove` units at `at` replaced by `insert` (the common start and end
 *  kept). Never cuts a surrogate pair, so Rust can apply it to its UTF-8
 *  copy of the text. */
export function splice(before: string, after: string): { at: number; remove: number; insert: string } {
  const high = (s: string, i: number) => {
    const c = s.charCodeAt(i);
    return c >= 0xd800 && c <= 0xdbff;
  };
  const max = Math.min(before.length, after.length);
  let head = 0;
  while (head < max && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  if (head > 0 && high(before, head - 1)) head--;
  let tail = 0;
  while (tail < max - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  if (tail > 0 && high(before, before.length - tail - 1) && before.length - tail - 1 >= head) tail--;
  return { at: head, remove: before.length - head - tail, insert: after.slice(head, after.length - tail) };
}

/** Where key `index` of `keys` sits in the keys field, which shows them
 *  joined by `, `. */
export function keyRange(keys: readonly string[], index: number): { start: number; end: number } {
  let start = 0;
  for (let i = 0; i < index && i < keys.length; i++) start += keys[i].length + 2;
  return { start, end: start + (keys[index]?.length ?? 0) };
}

// The words a replacement changes: a text before and after, cut into
// words, spaces and marks, compared word by word so that a paragraph where
// one word changes shows that word struck and its replacement, not the
// whole paragraph twice.

export type DiffPart = { kind: 'same' | 'del' | 'ins'; text: string };

/** Words (letters, digits, `_`), runs of spaces, and single other marks. */
function tokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? [];
}

/** Above this many token pairs the middle is not compared word by word
 *  (shown struck and inserted whole): the comparison stays instant. */
const MAX_PAIRS = 250_000;

function push(parts: DiffPart[], kind: DiffPart['kind'], text: string) {
  if (!text) return;
  const last = parts[parts.length - 1];
  if (last && last.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/** `before` and `after` as parts: unchanged text, deleted and inserted
 *  words, in reading order (a deletion before the insertion replacing it). */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = tokens(before);
  const b = tokens(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const parts: DiffPart[] = [];
  push(parts, 'same', a.slice(0, head).join(''));
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (x.length * y.length > MAX_PAIRS) {
    push(parts, 'del', x.join(''));
    push(parts, 'ins', y.join(''));
  } else {
    // Longest common subsequence, table from the end.
    const n = x.length;
    const m = y.length;
    const table = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => i * (m + 1) + j;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[at(i, j)] = x[i] === y[j] ? table[at(i + 1, j + 1)] + 1 : Math.max(table[at(i + 1, j)], table[at(i, j + 1)]);
      }
    }
    let i = 0;
    let j = 0;
    // Deletions and insertions between two kept tokens are gathered, so
    // a changed word reads "old new", not interleaved letters.
    let del = '';
    let ins = '';
    const flush = () => {
      push(parts, 'del', del);
      push(parts, 'ins', ins);
      del = '';
      ins = '';
    };
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) {
        flush();
        push(parts, 'same', x[i]);
        i++;
        j++;
      } else if (j >= m || (i < n && table[at(i + 1, j)] >= table[at(i, j + 1)])) {
        del += x[i++];
      } else {
        ins += y[j++];
      }
    }
    flush();
  }
  push(parts, 'same', a.slice(a.length - tail).join(''));
  return parts;
}

/** Unchanged text longer than `keep * 2` characters, shortened to its
 *  ends around the changes (`…`): the first part keeps its end, the last
 *  its start, one between changes both. */
export function trimSame(parts: DiffPart[], keep = 60): DiffPart[] {
  return parts.map((p, i) => {
    if (p.kind !== 'same' || p.text.length <= keep * 2) return p;
    const first = i === 0;
    const last = i === parts.length - 1;
    if (first && last) return p;
    if (first) return { kind: 'same', text: '…' + p.text.slice(-keep) };
    if (last) return { kind: 'same', text: p.text.slice(0, keep) + '…' };
    return { kind: 'same', text: p.text.slice(0, keep) + ' … ' + p.text.slice(-keep) };
  });
}

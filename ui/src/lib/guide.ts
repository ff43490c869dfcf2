// The user guide (docs/user-guide.md) read into blocks the Help window
// renders as text: headings, paragraphs, lists, tables and code. Only this
// subset of Markdown is read; links and images keep their words, never a
// way out of the app, and nothing is ever inserted as HTML.

export type Inline = { kind: 'text' | 'code' | 'strong'; text: string };
export type Block =
  | { kind: 'heading'; level: number; id: string; text: string }
  | { kind: 'para'; inline: Inline[] }
  | { kind: 'list'; items: Inline[][] }
  | { kind: 'table'; head: Inline[][]; rows: Inline[][][] }
  | { kind: 'pre'; text: string };

/** A heading's anchor, as GitHub makes it (lower case, spaces to `-`). */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** `text` read as inline Markdown: code spans, bold, links and images as
 *  their words. */
export function inline(text: string): Inline[] {
  const out: Inline[] = [];
  const push = (kind: Inline['kind'], t: string) => {
    if (!t) return;
    const last = out[out.length - 1];
    if (last && last.kind === kind && kind === 'text') last.text += t;
    else out.push({ kind, text: t });
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i) {
        push('code', text.slice(i + 1, end));
        i = end + 1;
        continue;
      }
    }
    if (text.startsWith('**', i)) {
      const end = text.indexOf('**', i + 2);
      if (end > i + 2) {
        // Bold may hold code or links: their words, plainly.
        push('strong', inline(text.slice(i + 2, end)).map((p) => p.text).join(''));
        i = end + 2;
        continue;
      }
    }
    if (c === '[' || (c === '!' && text[i + 1] === '[')) {
      const open = c === '!' ? i + 1 : i;
      const close = text.indexOf('](', open);
      const end = close > open ? text.indexOf(')', close) : -1;
      if (close > open && end > close) {
        for (const p of inline(text.slice(open + 1, close))) push(p.kind, p.text);
        i = end + 1;
        continue;
      }
    }
    push('text', c);
    i++;
  }
  return out;
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    // A `|` inside a code span (`a \| b`) is escaped in Markdown tables.
    .split(/(?<!\\)\|/)
    .map((c) => inline(c.trim().replace(/\\\|/g, '|')));

/** The guide's Markdown as blocks. */
export function parseGuide(md: string): Block[] {
  const blocks: Block[] = [];
  const lines = md.split(/\r?\n/);
  let para: string[] = [];
  const endPara = () => {
    if (para.length) blocks.push({ kind: 'para', inline: inline(para.join(' ')) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('```')) {
      endPara();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      blocks.push({ kind: 'pre', text: code.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      endPara();
      const text = inline(heading[2]).map((p) => p.text).join('');
      blocks.push({ kind: 'heading', level: heading[1].length, id: slug(text), text });
      continue;
    }
    if (line.trim().startsWith('|')) {
      endPara();
      const rows: string[] = [];
      for (; i < lines.length && lines[i].trim().startsWith('|'); i++) rows.push(lines[i]);
      i--;
      const body = rows.filter((r) => !/^\s*\|?[\s:|-]+\|?\s*$/.test(r));
      const [head, ...rest] = body.map(cells);
      blocks.push({ kind: 'table', head: head ?? [], rows: rest });
      continue;
    }
    const item = /^\s{0,3}(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (item) {
      endPara();
      const items: string[] = [item[1]];
      for (i++; i < lines.length; i++) {
        const next = /^\s{0,3}(?:[-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
        if (next) items.push(next[1]);
        else if (/^\s{2,}\S/.test(lines[i])) items[items.length - 1] += ' ' + lines[i].trim();
        else break;
      }
      i--;
      blocks.push({ kind: 'list', items: items.map(inline) });
      continue;
    }
    if (line.trim() === '') endPara();
    else para.push(line.trim());
  }
  endPara();
  return blocks;
}

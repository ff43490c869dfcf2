import { describe, expect, it } from 'vitest';
import { inline, parseGuide, slug } from './guide';
import guide from '../../../docs/user-guide.md?raw';

describe('guide', () => {
  it('reads headings, paragraphs, lists, tables and code into blocks', () => {
    const blocks = parseGuide(
      [
        '# Title',
        '',
        'A **bold** word and `code`,',
        'on two lines with a [link](other.md).',
        '',
        '- one',
        '  continued',
        '- two',
        '',
        '| Action | Keys |',
        '|---|---|',
        '| Save | `Ctrl+S` |',
        '',
        '```sh',
        '<script>alert(1)</script>',
        '```',
      ].join('\n'),
    );
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'para', 'list', 'table', 'pre']);
    expect(blocks[0]).toEqual({ kind: 'heading', level: 1, id: 'title', text: 'Title' });
    expect(blocks[1]).toEqual({
      kind: 'para',
      inline: [
        { kind: 'text', text: 'A ' },
        { kind: 'strong', text: 'bold' },
        { kind: 'text', text: ' word and ' },
        { kind: 'code', text: 'code' },
        { kind: 'text', text: ', on two lines with a link.' },
      ],
    });
    expect(blocks[2]).toMatchObject({ kind: 'list', items: [[{ text: 'one continued' }], [{ text: 'two' }]] });
    expect(blocks[3]).toMatchObject({ kind: 'table', head: [[{ text: 'Action' }], [{ text: 'Keys' }]], rows: [[[{ text: 'Save' }], [{ kind: 'code', text: 'Ctrl+S' }]]] });
    // Code stays text: the renderer never inserts it as HTML.
    expect(blocks[4]).toEqual({ kind: 'pre', text: '<script>alert(1)</script>' });
  });

  it('keeps the words of links and images, never where they point', () => {
    expect(inline('see ![the list](shot.png) and [docs](https://example.invalid)')).toEqual([{ kind: 'text', text: 'see the list and docs' }]);
    expect(slug('Find & replace (issue 22)')).toBe('find--replace-issue-22');
  });

  it('reads the real user guide, with its keyboard table', () => {
    const blocks = parseGuide(guide);
    const headings = blocks.filter((b) => b.kind === 'heading');
    expect(headings.length).toBeGreaterThan(3);
    expect(blocks.some((b) => b.kind === 'table' && JSON.stringify(b).includes('Ctrl+S'))).toBe(true);
    // No Markdown syntax left in the text shown.
    const text = JSON.stringify(blocks.filter((b) => b.kind === 'para'));
    expect(text).not.toMatch(/\]\(/);
  });
});

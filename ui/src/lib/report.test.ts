import { describe, expect, it } from 'vitest';
import type { Report } from './bindings';
import { format, type Locale } from './i18n';
import { fileName, groupNotes, importSummary, type Say } from './report';

const say = (locale: Locale): Say => (key, params = {}) => format(locale, key, params);

const empty = { carried: [], approximated: [], not_carried: [] };

/** A SillyTavern import of `n` entries whose whole-words setting was
 *  assumed, one of which lost a field. */
function report(n: number): Report {
  return {
    direction: 'import',
    format: 'SillyTavern world info',
    book: empty,
    notes: [{ code: 'chunk_not_read', chunk: 'chara', used: 'ccv3' }],
    entries: Array.from({ length: n }, (_, i) => ({
      id: i,
      name: i === 0 ? '' : `Entry ${i}`,
      carried: [],
      approximated: [{ field: 'matchWholeWords', note: { code: 'whole_words_global' } }],
      not_carried: i === 1 ? [{ field: 'automationId', note: { code: 'source_field_no_place', tool: 'Agnai' } }] : [],
    })),
  };
}

describe('import reports', () => {
  it('groups a note shared by many entries once', () => {
    const groups = groupNotes(report(3), (e) => e.approximated);
    expect(groups).toHaveLength(1);
    expect(groups[0].names).toEqual(['#0', 'Entry 1', 'Entry 2']);
  });

  it('sums an import up in one line, in both languages', () => {
    expect(importSummary(say('en'), report(338), 338)).toBe(
      '338 entries imported; the "chara" chunk was not read (the "ccv3" chunk was); automationId not carried for 1 entry; whole words approximated for 338 entries',
    );
    expect(importSummary(say('pt-BR'), report(1), 1)).toBe(
      '1 entrada importada; o bloco "chara" não foi lido (o bloco "ccv3" foi); valor de palavras inteiras aproximado em 1 entrada',
    );
  });

  // The summary of a real SillyTavern book said "uid approximated for 1
  // entry" twice: two entries had different uid notes.
  it('names a field once in the summary, whatever its notes say', () => {
    const r = report(3);
    r.notes = [];
    r.entries[1].approximated.push({ field: 'uid', note: { code: 'no_usable_uid', new: 7 } });
    r.entries[2].approximated.push({ field: 'uid', note: { code: 'uid_used_twice', old: 2, new: 8 } });
    expect(importSummary(say('en'), r, 3)).toBe(
      '3 entries imported; automationId not carried for 1 entry; whole words approximated for 3 entries; 2 ids renumbered',
    );
    // Issue 12: the summary names fields in words in the UI's language, and
    // says ids were renumbered rather than "uid approximated".
    expect(importSummary(say('pt-BR'), r, 3)).toBe(
      '3 entradas importadas; valor de automationId não levado em 1 entrada; valor de palavras inteiras aproximado em 3 entradas; 2 ids renumerados',
    );
  });

  it('counts what the summary leaves out', () => {
    const r = report(2);
    r.notes = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ code: 'minimal_card', name }));
    const card = (n: string) => `no card was imported with this book; a minimal card named "${n}" was written`;
    expect(importSummary(say('en'), r, 2)).toBe(`2 entries imported; ${card('a')}; ${card('b')}; ${card('c')}; ${card('d')}; 3 more`);
  });

  it('groups entries by the code and parameters of a note, not by its wording', () => {
    const r = report(2);
    r.entries[1].approximated = [{ field: 'matchWholeWords', note: { code: 'not_bool', value: '"yes"', read: true } }];
    expect(groupNotes(r, (e) => e.approximated)).toHaveLength(2);
  });

  it('shows a file by its name', () => {
    expect(fileName('/home/me/books/Saltmere Coast.json')).toBe('Saltmere Coast.json');
    expect(fileName('C:\\Books\\zzz.json')).toBe('zzz.json');
    expect(fileName('plain.json')).toBe('plain.json');
  });
});

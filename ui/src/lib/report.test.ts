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
    notes: ['2 ids were renumbered'],
    entries: Array.from({ length: n }, (_, i) => ({
      id: i,
      name: i === 0 ? '' : `Entry ${i}`,
      carried: [],
      approximated: [{ field: 'matchWholeWords', note: 'unset; whole words assumed' }],
      not_carried: i === 1 ? [{ field: 'automationId', note: 'no equivalent' }] : [],
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
      '338 entries imported; 2 ids were renumbered; automationId not carried for 1 entry; matchWholeWords approximated for 338 entries',
    );
    expect(importSummary(say('pt-BR'), report(1), 1)).toBe(
      '1 entrada importada; 2 ids were renumbered; matchWholeWords aproximado em 1 entrada',
    );
  });

  // The summary of a real SillyTavern book said "uid approximated for 1
  // entry" twice: two entries had different uid notes.
  it('names a field once in the summary, whatever its notes say', () => {
    const r = report(3);
    r.notes = [];
    r.entries[1].approximated.push({ field: 'uid', note: 'missing; the next free id' });
    r.entries[2].approximated.push({ field: 'uid', note: 'repeated; the next free id' });
    expect(importSummary(say('en'), r, 3)).toBe(
      '3 entries imported; automationId not carried for 1 entry; matchWholeWords approximated for 3 entries; uid approximated for 2 entries',
    );
  });

  it('counts what the summary leaves out', () => {
    const r = report(2);
    r.notes = ['a', 'b', 'c', 'd', 'e'];
    expect(importSummary(say('en'), r, 2)).toBe('2 entries imported; a; b; c; d; 3 more');
  });

  it('shows a file by its name', () => {
    expect(fileName('/home/me/books/Saltmere Coast.json')).toBe('Saltmere Coast.json');
    expect(fileName('C:\\Books\\zzz.json')).toBe('zzz.json');
    expect(fileName('plain.json')).toBe('plain.json');
  });
});

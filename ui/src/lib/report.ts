// Import and export reports as the notice panel and the dialogs show them:
// the notes shared by many entries grouped once, and a one-line summary
// ("338 entries imported; matchWholeWords approximated for 338 entries").
// The notes arrive as codes (crates/engine/src/formats/note.rs), worded by
// `noteText` in the UI's language.

import type { FieldNote, Report } from './bindings';
import type { MessageKey, PluralKey } from './i18n';
import { noteText } from './messages';

/** Formats a catalog message, plural ones by `params.n` (the studio's `t`). */
export type Say = (key: MessageKey | PluralKey, params?: Record<string, string | number>) => string;

/** One note and the entries that share it. */
export interface NoteGroup {
  note: FieldNote;
  names: string[];
}

/** The entries' notes picked by `pick`, one group per field and sentence,
 *  in the order they first appear (the CLI lists them the same way). */
export function groupNotes(report: Report, pick: (e: Report['entries'][number]) => FieldNote[]): NoteGroup[] {
  const by = new Map<string, NoteGroup>();
  for (const e of report.entries) {
    for (const n of pick(e)) {
      const key = `${n.field}\u0000${JSON.stringify(n.note)}`;
      const g = by.get(key) ?? { note: n, names: [] };
      g.names.push(e.name || `#${e.id}`);
      by.set(key, g);
    }
  }
  return [...by.values()];
}

/** The entries' notes picked by `pick`, one group per field however many
 *  different sentences it has: the summary names a field once. */
function byField(report: Report, pick: (e: Report['entries'][number]) => FieldNote[]): { field: string; n: number }[] {
  const by = new Map<string, Set<number>>();
  for (const e of report.entries) {
    for (const n of pick(e)) {
      const ids = by.get(n.field) ?? new Set<number>();
      ids.add(e.id);
      by.set(n.field, ids);
    }
  }
  return [...by].map(([field, ids]) => ({ field, n: ids.size }));
}

// The source fields the summary names in words (the details keep the
// source's own spelling); any other field is named as the file spells it.
const FIELD_WORDS: Record<string, MessageKey> = {
  matchWholeWords: 'reportField.wholeWords',
  match_whole_words: 'reportField.wholeWords',
  'extensions.match_whole_words': 'reportField.wholeWords',
  caseSensitive: 'reportField.caseSensitive',
  case_sensitive: 'reportField.caseSensitive',
  'extensions.case_sensitive': 'reportField.caseSensitive',
  role: 'reportField.role',
  'extensions.role': 'reportField.role',
  '@@role': 'reportField.role',
  key: 'reportField.keys',
  keys: 'reportField.keys',
  keysecondary: 'reportField.secondaryKeys',
  secondary_keys: 'reportField.secondaryKeys',
  selective: 'reportField.selective',
  use_regex: 'reportField.regex',
  group: 'reportField.group',
  order: 'reportField.order',
  insertion_order: 'reportField.order',
  '@@order': 'reportField.order',
  priority: 'reportField.priority',
  '@@priority': 'reportField.priority',
  position: 'reportField.position',
  depth: 'reportField.depth',
  probability: 'reportField.probability',
  enabled: 'reportField.enabled',
  disable: 'reportField.enabled',
  constant: 'reportField.constant',
};

/** Fields that hold an entry's id: an approximated one was renumbered. */
const ID_FIELDS = new Set(['uid', 'id']);

/** A source field as the summary names it. */
export function fieldWords(say: Say, field: string): string {
  const key = FIELD_WORDS[field];
  return key ? say(key) : field;
}

/** How many parts the summary line names before it counts the rest. */
const SUMMARY_PARTS = 4;

/** The summary line of an import of `entries` entries with `report`. */
export function importSummary(say: Say, report: Report, entries: number): string {
  const parts = [say('report.summary.imported', { n: entries })];
  const details = [
    ...report.notes.map((n) => noteText(say, n)),
    ...byField(report, (e) => e.not_carried).map(({ field, n }) => say('report.summary.lost', { field: fieldWords(say, field), n })),
    ...byField(report, (e) => e.approximated).map(({ field, n }) =>
      ID_FIELDS.has(field) ? say('report.summary.renumbered', { n }) : say('report.summary.approximated', { field: fieldWords(say, field), n }),
    ),
  ];
  parts.push(...details.slice(0, SUMMARY_PARTS));
  if (details.length > SUMMARY_PARTS) parts.push(say('report.summary.more', { n: details.length - SUMMARY_PARTS }));
  return parts.join('; ');
}

/** The last part of a file path, for showing a file by its name (the full
 *  path goes in a tooltip). */
export { fileName } from './path';

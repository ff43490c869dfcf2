// Fixtures shared by the unit tests of the stores (never imported by the app).
import type { EntryDetail } from './bindings';

/** An entry as the editor receives it, keyed `moon`, with `content`. */
export function detail(id: number, content: string): EntryDetail {
  return {
    entry: {
      id, comment: 'c', keys: ['moon'], secondary_keys: [], selective: false, secondary_logic: 'and_any', constant: false,
      enabled: true, whole_words: true, case_sensitive: false, use_regex: false, order: 100, priority: 100, role: 'system',
      content, extensions: {}, extra: {}, folder: false, parent: null,
    },
    decorator_lines: [], body_line: 0, diagnostics: [], tokens: 3,
    row: { id, name: 'c', keys: 'moon', enabled: true, constant: false, order: 100, priority: 100, tokens: 3, diagnostics: 0, severity: null, folder: false, parent: null, depth: 0, inside: null, inside_tokens: null },
    st: { position: 0, depth: 4, group: '' },
  };
}

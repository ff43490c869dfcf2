// RisuAI's rules in the UI's words: the final prompt's sources, why an
// entry is in or out and where it goes (codes with parameters from
// crates/engine/src/risu/, each naming the RisuAI rule). Split from
// messages.ts, which re-exports it.

import type { Found, RisuDrop, RisuInjectedView, RisuSource, RisuWhy } from './bindings';
import type { MessageKey } from './i18n';
import type { Translate } from './messages';

const risuSourceKinds: Record<RisuSource['kind'], 0> = {
  main: 0,
  description: 0,
  persona: 0,
  example: 0,
  new_chat: 0,
  greeting: 0,
  chat: 0,
  entry: 0,
  global_note: 0,
  author_note: 0,
};

/** The catalog keys of RisuAI's final prompt panel. */
export const risuPromptKeys: MessageKey[] = [
  ...Object.keys(risuSourceKinds).map((k) => `risuSource.${k}` as MessageKey),
  'risuPrompt.title',
  'risuPrompt.summary.one',
  'risuPrompt.summary.other',
  'risuPrompt.absent',
  'risuPrompt.absentWhy',
];

/** Where a message of RisuAI's prompt comes from: an entry by its name,
 *  a chat message by its 1-based number, or the slot it fills. */
export function risuSourceText(t: Translate, source: RisuSource, name: (book: number, id: number) => string): string {
  switch (source.kind) {
    case 'entry':
      return t('risuSource.entry', { name: name(source.book, source.id) });
    case 'chat':
      return t('risuSource.chat', { n: source.index + 1 });
    default:
      return t(`risuSource.${source.kind}`);
  }
}

// RisuAI's rules: why an entry is in or out, as codes with parameters
// (crates/engine/src/risu/detail.rs), each naming the RisuAI rule. Each
// code has a catalog message `risuWhy.<kind>` / `risuDrop.<kind>`.

const risuWhySet = { always: 0, forced: 0, kept: 0, key: 0, child: 0 } satisfies Record<RisuWhy['kind'], 0>;
const risuDropSet = {
  empty_key: 0,
  no_match: 0,
  regex: 0,
  secondary: 0,
  additional: 0,
  excluded: 0,
  excluded_all: 0,
  only_after: 0,
  only_every: 0,
  greeting: 0,
  probability: 0,
  forced_off: 0,
  not_again: 0,
  child: 0,
  budget: 0,
  injected_into: 0,
  inject_lost: 0,
  negative_depth: 0,
  no_inject_place: 0,
  failed: 0,
} satisfies Record<RisuDrop['kind'], 0>;
/** The group a left-out entry is listed under. */
const risuGroupOf: Record<RisuDrop['kind'], string> = {
  empty_key: 'keys',
  no_match: 'keys',
  regex: 'keys',
  secondary: 'keys',
  additional: 'keys',
  excluded: 'keys',
  excluded_all: 'keys',
  only_after: 'gated',
  only_every: 'gated',
  greeting: 'gated',
  probability: 'probability',
  forced_off: 'gated',
  not_again: 'gated',
  child: 'gated',
  budget: 'budget',
  injected_into: 'placement',
  inject_lost: 'placement',
  negative_depth: 'placement',
  no_inject_place: 'placement',
  failed: 'placement',
};
const RISU_POSITIONS = ['lorebook', 'depth', 'reverse_depth', 'before_desc', 'after_desc', 'personality', 'scenario'] as const;

export const risuKeys: MessageKey[] = [
  ...Object.keys(risuWhySet).map((k) => `risuWhy.${k}` as MessageKey),
  ...Object.keys(risuDropSet)
    .filter((k) => k !== 'regex')
    .map((k) => `risuDrop.${k}` as MessageKey),
  ...(['regex_no_slash', 'regex_invalid', 'regex_no_match'] as const).map((k) => `risuDrop.${k}` as MessageKey),
  ...[...new Set(Object.values(risuGroupOf))].map((g) => `risuGroup.${g}` as MessageKey),
  ...RISU_POSITIONS.map((p) => `risuPos.${p}` as MessageKey),
  'risuPos.template',
  'risuPos.inject_at',
  'risuFound.message',
  'risuFound.entry',
];

/** The group a left-out entry is listed under, as its catalog key. */
export function risuDropKind(d: RisuDrop): MessageKey {
  return `risuGroup.${risuGroupOf[d.kind]}` as MessageKey;
}

function foundText(t: Translate, f: Found): string {
  return f.kind === 'message' ? t('risuFound.message', { n: f.n }) : t('risuFound.entry', { name: f.name });
}

/** A number RisuAI read with `parseInt` (NaN arrives as null). */
function jsNumber(n: number | null): string {
  return n === null ? 'NaN' : String(n);
}

/** Why an entry activated under RisuAI's rules. */
export function risuWhyText(t: Translate, w: RisuWhy): string {
  if (w.kind === 'key') return t('risuWhy.key', { key: w.key, found: foundText(t, w.found) });
  return t(`risuWhy.${w.kind}`);
}

/** The RisuAI rule that left an entry out, with its numbers. */
export function risuDropText(t: Translate, d: RisuDrop): string {
  switch (d.kind) {
    case 'regex':
      return t(d.end.kind === 'no_slash' ? 'risuDrop.regex_no_slash' : d.end.kind === 'invalid' ? 'risuDrop.regex_invalid' : 'risuDrop.regex_no_match');
    case 'additional':
    case 'excluded_all':
      return t(`risuDrop.${d.kind}`, { line: d.line });
    case 'excluded':
      return t('risuDrop.excluded', { key: d.key, found: foundText(t, d.found) });
    case 'only_after':
    case 'only_every':
      return t(`risuDrop.${d.kind}`, { n: jsNumber(d.n as number | null), length: d.length });
    case 'greeting':
      return t('risuDrop.greeting', { n: jsNumber(d.n as number | null), greeting: d.greeting });
    case 'probability':
      return t('risuDrop.probability', { percent: jsNumber(d.percent as number | null), roll: d.roll.toFixed(1) });
    case 'budget':
      return t('risuDrop.budget', { tokens: d.tokens, left: d.left });
    case 'injected_into':
    case 'inject_lost':
      return t(`risuDrop.${d.kind}`, { target: d.target });
    case 'negative_depth':
      return t('risuDrop.negative_depth', { depth: jsNumber(d.depth as number | null) });
    default:
      return t(`risuDrop.${d.kind}`);
  }
}

/** Where RisuAI puts an injected entry, with its depth and role. */
export function risuPositionText(t: Translate, i: Pick<RisuInjectedView, 'position' | 'depth' | 'role'>): string {
  const role = t(`role.${i.role}`);
  if ((i.position === 'depth' || i.position === 'reverse_depth') && i.depth !== null) {
    return t(`risuPos.${i.position}`, { depth: i.depth, role });
  }
  if (i.position.startsWith('pt_')) return t('risuPos.template', { name: i.position.slice(3) });
  if (i.position.startsWith('inject_at ')) return t('risuPos.inject_at', { location: i.position.slice('inject_at '.length) });
  if ((RISU_POSITIONS as readonly string[]).includes(i.position)) return t(`risuPos.${i.position}` as MessageKey, { depth: '', role });
  return i.position;
}

// SillyTavern's rules in the UI's words: positions, the rules that drop an
// entry, the final prompt's blocks and sources, and why an entry is in or
// out (codes with parameters from crates/engine/src/sillytavern/, each a
// catalog message). Split from messages.ts, which re-exports it.

import { ST_POSITIONS } from './bindings';
import type {
  AbsentReason,
  DropKind,
  GroupLoss,
  MacroDecision,
  PromptBlock,
  StDetail,
  StInjectedView,
  StPromptSourceView,
  StReason,
} from './bindings';
import type { MessageKey, PluralKey } from './i18n';
import type { Translate } from './messages';

// SillyTavern's rules: positions and the rules that drop an entry, as codes
// the engine sends (crates/engine/src/sillytavern/). Each has a catalog
// message `stPos.<code>` / `stDrop.<code>`.
/** A prompt role worded in the UI language; a role the UI does not know
 * (a name from a chat) is shown as it is. */
export function roleText(t: Translate, role: string): string {
  return role === 'system' || role === 'user' || role === 'assistant' ? t(`role.${role}`) : role;
}

// The compiler checks the list covers the engine's DropKind.
const stDropKindSet = {
  disabled: 0,
  trigger: 0,
  character_filter: 0,
  delay: 0,
  cooldown: 0,
  recursion: 0,
  decorator: 0,
  no_keys: 0,
  no_match: 0,
  secondary: 0,
  group: 0,
  probability: 0,
  budget: 0,
  not_placed: 0,
} satisfies Record<DropKind, 0>;
export const stDropKinds = Object.keys(stDropKindSet) as DropKind[];

// The final prompt under SillyTavern's rules: its blocks (SillyTavern's
// prompt manager identifiers), what a message is made of, and why an
// injected entry is absent from it.
const stBlockSet = {
  main: 0,
  worldInfoBefore: 0,
  personaDescription: 0,
  charDescription: 0,
  charPersonality: 0,
  scenario: 0,
  worldInfoAfter: 0,
  dialogueExamples: 0,
  chatHistory: 0,
} satisfies Record<PromptBlock, 0>;
export const stBlocks = Object.keys(stBlockSet) as PromptBlock[];
const stSourceKinds: Record<StPromptSourceView['kind'], 0> = {
  main: 0,
  persona: 0,
  description: 0,
  personality: 0,
  scenario: 0,
  entry: 0,
  new_example_chat: 0,
  example: 0,
  new_chat: 0,
  chat: 0,
  authors_note: 0,
  character_note: 0,
};
const stAbsentReasonSet = {
  note_not_due: 0,
  note_position: 0,
  note_depth_or_role: 0,
  example_without_speakers: 0,
  depth: 0,
  outlet_unused: 0,
} satisfies Record<AbsentReason, 0>;
export const stAbsentReasons = Object.keys(stAbsentReasonSet) as AbsentReason[];

export const stKeys: MessageKey[] = [
  ...ST_POSITIONS.map((p) => `stPos.${p}` as MessageKey),
  ...stDropKinds.map((k) => `stDrop.${k}` as MessageKey),
  ...stBlocks.map((b) => `stBlock.${b}` as MessageKey),
  ...Object.keys(stSourceKinds).map((k) => `stSource.${k}` as MessageKey),
  ...stAbsentReasons.map((r) => `stAbsent.${r}` as MessageKey),
];

/** A prompt manager block's name (`worldInfoBefore` → "world info (before)"). */
export function stBlockText(t: Translate, block: PromptBlock): string {
  return t(`stBlock.${block}`);
}

/** One piece of a prompt message: an entry by its name and position, a
 *  chat message by its 1-based number, or the part it names. */
export function stSourceText(t: Translate, source: StPromptSourceView, name: (book: number, id: number) => string): string {
  switch (source.kind) {
    case 'entry':
      return t('stSource.entry', { name: name(source.book, source.id), position: t(`stPos.${source.position}`) });
    case 'chat':
      return t('stSource.chat', { n: source.index + 1 });
    case 'example':
      return t('stSource.example', { n: source.block + 1 });
    default:
      return t(`stSource.${source.kind}`);
  }
}

/** Why an injected entry is not in the final prompt. */
export function stAbsentText(t: Translate, reason: AbsentReason): string {
  return t(`stAbsent.${reason}`);
}

/** Where an injected entry goes: the position, with its depth and role or
 *  its outlet name. */
export function stPositionText(t: Translate, i: Pick<StInjectedView, 'position' | 'depth' | 'role' | 'outlet'>): string {
  const base = t(`stPos.${i.position}`);
  if (i.position === 'at_depth' && i.depth !== null) {
    return t('stPos.atDepthDetail', { depth: i.depth, role: i.role === null ? '' : t(`role.${i.role}`) });
  }
  if (i.position === 'outlet' && i.outlet) return t('stPos.outletDetail', { name: i.outlet });
  return base;
}

/** The SillyTavern rule that dropped an entry, in the current language. */
export function stRuleText(t: Translate, kind: DropKind): string {
  return t(`stDrop.${kind}`);
}

/** The budget line: "25% of 8,192 = 2,048 tokens" (and the cap when it
 *  applies), numbers in the locale's grouping. */
export function stBudgetText(
  t: Translate,
  locale: string,
  b: { percent: number; context: number; cap: number; budget: number; used: number },
): string {
  const n = (x: number) => x.toLocaleString(locale);
  const capped = b.cap > 0 && b.budget === b.cap;
  return t(capped ? 'stBudget.capped' : 'stBudget.line', {
    percent: b.percent,
    context: n(b.context),
    budget: n(b.budget),
    cap: n(b.cap),
    used: n(b.used),
  });
}

// Why an entry is in or out under SillyTavern's rules: codes with
// parameters (crates/engine/src/sillytavern/detail.rs), worded here as
// `stReason.<code>`, `stDetail.<code>` and `stLoss.<code>`. The records
// keep the lists exhaustive: a code added in Rust fails `npm run check`.
const stReasonCodes: Record<StReason['code'], 0> = { activate: 0, constant: 0, sticky: 0, key: 0 };
const stDetailCodes: Record<StDetail['code'], 0> = {
  disabled: 0,
  triggers: 0,
  character_filter: 0,
  delay: 0,
  cooldown: 0,
  delayed_until_recursion: 0,
  delayed_until_level: 0,
  non_recursable: 0,
  dont_activate: 0,
  no_keys: 0,
  no_match: 0,
  secondary: 0,
  group: 0,
  probability: 0,
  budget_reached: 0,
  budget: 0,
  empty_content: 0,
  outlet_without_name: 0,
  unknown_position: 0,
  regex_too_slow: 0,
  regex_budget_spent: 0,
  regex_too_large: 0,
};
const stLossCodes: Record<GroupLoss['code'], 0> = {
  sticky_holds: 0,
  on_cooldown: 0,
  delayed: 0,
  scoring: 0,
  already_activated: 0,
  prioritized: 0,
  lost_roll: 0,
};
// Codes whose message depends on a count: `.one` and `.other` forms.
const stPlural = new Set(['stReason.sticky', 'stDetail.cooldown', 'stDetail.no_match', 'stDetail.delay', 'stLoss.scoring']);
const stCodeKey = (prefix: string, code: string) => `${prefix}.${code}`;

export const stExplainKeys: (MessageKey | PluralKey)[] = [
  ...Object.keys(stReasonCodes).map((c) => stCodeKey('stReason', c)),
  ...Object.keys(stDetailCodes).map((c) => stCodeKey('stDetail', c)),
  ...Object.keys(stLossCodes).map((c) => stCodeKey('stLoss', c)),
  'stReason.keyWidened',
  'stReason.keyMacro',
  'stMacro.if.then',
  'stMacro.if.else',
  'stMacro.if.nothing',
  'stMacro.var',
  'stMacro.unset',
  'stReason.keyMacroWidened',
  'stDetail.unknownLogic',
  'stDetail.budgetCapped',
].flatMap((k) => (stPlural.has(k) ? [`${k}.one`, `${k}.other`] : [k])) as (MessageKey | PluralKey)[];

/** How an entry activated under SillyTavern's rules. */
export function stReasonText(t: Translate, r: StReason): string {
  switch (r.code) {
    case 'sticky':
      return t('stReason.sticky', { n: r.left });
    case 'key':
      // A key the macros changed is shown as they made it too.
      if (r.expanded) {
        return r.widened === null
          ? t('stReason.keyMacro', { key: r.key, expanded: r.expanded, pass: r.pass })
          : t('stReason.keyMacroWidened', { key: r.key, expanded: r.expanded, pass: r.pass, depth: r.widened });
      }
      return r.widened === null
        ? t('stReason.key', { key: r.key, pass: r.pass })
        : t('stReason.keyWidened', { key: r.key, pass: r.pass, depth: r.widened });
    default:
      return t(`stReason.${r.code}`);
  }
}

/** Where SillyTavern's macros decided in an entry's content. */
export function macroDecisionText(t: Translate, d: MacroDecision): string {
  if (d.kind === 'if') {
    return t(`stMacro.if.${d.branch}`, { condition: d.condition, value: d.value });
  }
  const name = `${d.global ? '$' : '.'}${d.name}`;
  return d.value === null ? t('stMacro.unset', { name }) : t('stMacro.var', { name, value: d.value });
}

/** Why a group member lost, with the winner by name. */
function stLossText(t: Translate, l: GroupLoss): string {
  switch (l.code) {
    case 'scoring':
      return t('stLoss.scoring', { n: l.score, best: l.best });
    case 'prioritized':
      return t('stLoss.prioritized', { winner: l.winner_name.trim() || `#${l.winner}` });
    case 'lost_roll':
      return t('stLoss.lost_roll', { winner: l.winner_name.trim() || `#${l.winner}`, roll: l.roll, total: l.total, weight: l.weight });
    default:
      return t(`stLoss.${l.code}`);
  }
}

/** The particulars of why an entry is out under SillyTavern's rules. */
export function stDetailText(t: Translate, d: StDetail): string {
  switch (d.code) {
    case 'triggers':
      return t('stDetail.triggers', { triggers: d.triggers.join(', ') });
    case 'character_filter':
      return t('stDetail.character_filter', { character: d.character });
    case 'delay':
      return t('stDetail.delay', { n: d.delay, length: d.length });
    case 'cooldown':
      return t('stDetail.cooldown', { n: d.left });
    case 'delayed_until_level':
      return t('stDetail.delayed_until_level', { level: d.level });
    case 'no_match':
      return t('stDetail.no_match', { n: d.depth });
    case 'secondary':
      return t('stDetail.secondary', { logic: d.logic ?? t('stDetail.unknownLogic'), hits: d.hits, count: d.n });
    case 'group':
      return t('stDetail.group', { group: d.group, loss: stLossText(t, d.loss) });
    case 'probability':
      return t('stDetail.probability', { roll: d.roll, chance: d.chance });
    case 'budget_reached':
      return t('stDetail.budget_reached', { budget: d.budget });
    case 'regex_too_slow':
      return t('stDetail.regex_too_slow', { key: d.key });
    case 'regex_budget_spent':
      return t('stDetail.regex_budget_spent', { key: d.key });
    case 'regex_too_large':
      return t('stDetail.regex_too_large', { key: d.key });
    case 'budget':
      return t(d.cap > 0 ? 'stDetail.budgetCapped' : 'stDetail.budget', {
        total: d.total,
        budget: d.budget,
        percent: d.percent,
        context: d.context,
        cap: d.cap,
      });
    default:
      return t(`stDetail.${d.code}`);
  }
}

// The engine's diagnostics and gate details arrive as a code with parameters
// (see crates/engine/src/diagnostic.rs); this module words them through the
// message catalog, so each language shows its own sentence. A code's message
// is the catalog key `<prefix>.<code>` with the same parameter names.

import { ST_POSITIONS } from './bindings';
import type {
  AbsentReason,
  ArgProblem,
  DropKind,
  ChatError,
  ChatProblem,
  ChatWarning,
  CommonReason,
  Contradiction,
  DiagnosticMessage,
  ErrorCode,
  ExportReason,
  Finding,
  Fix,
  Format,
  GateDetail,
  GroupLoss,
  ImportReason,
  LintEntryRef,
  NeverReason,
  NoEffectReason,
  MacroLeft,
  MacroDecision,
  Note,
  PromptBlock,
  RisuDrop,
  RisuInjectedView,
  RisuSource,
  RisuWhy,
  Rules,
  Found,
  SavedSetting,
  StDetail,
  StInjectedView,
  StPromptSourceView,
  StReason,
} from './bindings';
import { NOTE_CODES } from './bindings';
import { fileName } from './path';
import type { MessageKey, PluralKey } from './i18n';
import { en } from './locales/en';

/** Formats a catalog message in the current language (the studio's `t`). */
export type Translate = (key: MessageKey | PluralKey, params?: Record<string, string | number>) => string;

// Every code of each union. The type checker keeps these exhaustive: a code
// added in Rust fails `npm run check` until it is listed here, and the
// catalog test then demands its message in both languages.
const diagnosticCodes = {
  fallback_without_previous: 0,
  empty_decorator_name: 0,
  unknown_decorator: 0,
  no_effect_in_risu: 0,
  bad_argument: 0,
  repeated: 0,
  invalid_regex: 0,
  regex_too_large: 0,
  selective_without_secondary: 0,
  no_keys: 0,
} satisfies Record<DiagnosticMessage['code'], 0>;

const argCodes = {
  missing_number: 0,
  not_whole_number: 0,
  below: 0,
  out_of_range: 0,
  missing_role: 0,
  not_role: 0,
  unexpected_argument: 0,
  missing_position: 0,
  not_position: 0,
  missing_keys: 0,
} satisfies Record<ArgProblem['code'], 0>;

const gateCodes = {
  too_few_messages: 0,
  not_a_multiple: 0,
  user_has_spoken: 0,
  already_matched: 0,
} satisfies Record<GateDetail['code'], 0>;

const chatCodes = {
  too_many_values: 0,
  malformed_json: 0,
  not_messages: 0,
  message_not_object: 0,
  unknown_role: 0,
  missing_role: 0,
  content_not_text: 0,
  line_not_object: 0,
  mes_not_text: 0,
} satisfies Record<ChatProblem['code'], 0>;

const chatWarningCodes = {
  tool_message_skipped: 0,
  not_a_message: 0,
} satisfies Record<ChatWarning['code'], 0>;



// The errors a user can meet (src-tauri/src/error.rs), and the reasons a
// file is not a book (`ImportError::code` in crates/engine/src/formats/error.rs).
const errorCodes = {
  file_not_found: 0,
  permission_denied: 0,
  disk_full: 0,
  too_large: 0,
  not_a_file: 0,
  not_text: 0,
  unreadable: 0,
  unwritable: 0,
  read_only: 0,
  export_over_book: 0,
  save_over_source: 0,
  fix_outdated: 0,
  out_of_range: 0,
  not_a_book: 0,
  cannot_export: 0,
  internal: 0,
  nothing_chosen: 0,
  gave_way: 0,
  book_not_open: 0,
  entry_not_found: 0,
  import_not_pending: 0,
  recovered_book_gone: 0,
  needs_path: 0,
  changed_on_disk: 0,
  never_saved: 0,
  not_recent: 0,
  book_setting_out_of_range: 0,
  note_number_out_of_range: 0,
  copy_name_without_name: 0,
  chat_out_of_step: 0,
  bad_preview_settings: 0,
  tokenizer_unavailable: 0,
  bad_tokenizer_file: 0,
  bad_st_field: 0,
  not_st_settings: 0,
  risu_setting_out_of_range: 0,
  st_preview_failed: 0,
  scenario_name_empty: 0,
  no_such_undo_step: 0,
  not_a_folder: 0,
  not_a_book_folder: 0,
  folder_holds_book: 0,
  no_merge_pending: 0,
  folder_into_itself: 0,
  bad_pattern: 0,
  scenarios_unreadable: 0,
  scenario_cannot_run: 0,
  st_preview_not_built: 0,
  menu_failed: 0,
  prefs_not_saved: 0,
  server: 0,
  changed_on_server: 0,
  not_connected: 0,
} satisfies Record<ErrorCode['code'], 0>;

// Why a book could not be exported or imported (`ExportReason` and
// `ImportReason` in crates/engine/src/formats/error.rs); the compiler checks
// the lists cover every code.
const exportReasonSet = {
  not_a_card_format: 0,
  no_writer: 0,
  bad_png: 0,
  png_without_card: 0,
  bad_card_chunk: 0,
} satisfies Record<ExportReason, 0>;
export const exportReasons = Object.keys(exportReasonSet) as ExportReason[];

const importReasonSet = {
  malformed_json: 0,
  unknown_format: 0,
  png_without_card: 0,
  bad_png: 0,
  bad_card_chunk: 0,
  card_without_book: 0,
  bad_charx: 0,
  bad_shape: 0,
  bad_field: 0,
} satisfies Record<ImportReason, 0>;
export const importReasons = Object.keys(importReasonSet) as ImportReason[];

// The formats by id (`Format` in crates/engine/src/formats/format.rs).
const formatIds = {
  native: 0,
  sillytavern: 0,
  card_v2: 0,
  card_v3: 0,
  character_book: 0,
  png_card: 0,
  charx: 0,
  byaf: 0,
  risu: 0,
  novelai: 0,
  agnai: 0,
  marinara: 0,
} satisfies Record<Format, 0>;

/** A format's name in the UI language. */
export function formatName(t: Translate, id: Format): string {
  return t(`formatName.${id}`);
}

/** The catalog key of every code the engine can send. */
export const codeKeys: MessageKey[] = [
  ...Object.keys(chatCodes).map((c) => `chat.${c}` as MessageKey),
  ...Object.keys(chatWarningCodes).map((c) => `chatWarning.${c}` as MessageKey),
  ...Object.keys(diagnosticCodes).map((c) => `diag.${c}` as MessageKey),
  ...Object.keys(argCodes).map((c) => `arg.${c}` as MessageKey),
  ...Object.keys(gateCodes).map((c) => `gate.${c}` as MessageKey),
  ...NOTE_CODES.map((c) => `note.${c}` as MessageKey),
  ...Object.keys(errorCodes).map((c) => `appError.${c}` as MessageKey),
  ...importReasons.map((r) => `notABook.${r}` as MessageKey),
  ...exportReasons.map((r) => `notExported.${r}` as MessageKey),
  'appError.cannot_export_book',
  ...Object.keys(formatIds).map((f) => `formatName.${f}` as MessageKey),
];

/** What a report note says. Ids stay verbatim (no digit grouping); a
 *  true/false is worded as on/off. */
export function noteText(t: Translate, n: Note): string {
  const params: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(n)) {
    if (k === 'code' || v === null) continue;
    if (typeof v === 'boolean') params[k] = t(v ? 'note.on' : 'note.off');
    else if (typeof v === 'number' && (k === 'old' || k === 'new')) params[k] = String(v);
    else params[k] = v;
  }
  if (n.code === 'read_from_chunk' && n.spec === null) return t('note.read_from_chunk_no_spec', params);
  return t(`note.${n.code}` as MessageKey, params);
}

/** What went wrong, in the UI's language: every error from Rust has a code
 *  (an error raised in the UI itself may not); a file is named by its name
 *  (the message keeps the whole path). */
export function errorText(t: Translate, e: { message: string; code: ErrorCode | null }): string {
  const c = e.code;
  if (c === null) return e.message;
  switch (c.code) {
    case 'internal':
      return t('appError.internal', { command: c.command, detail: c.detail });
    case 'out_of_range':
      return t('appError.out_of_range', { setting: t(`stSettings.${c.setting}`), min: c.min, max: c.max });
    case 'book_setting_out_of_range':
      return t('appError.book_setting_out_of_range', {
        setting: t(c.setting === 'scan_depth' ? 'book.scanDepth' : 'book.tokenBudget'),
        min: c.min,
        max: c.max,
      });
    case 'note_number_out_of_range':
      return t('appError.note_number_out_of_range', { setting: t(`noteNumber.${c.setting}`), max: c.max });
    case 'cannot_export': {
      const reason = t(`notExported.${c.reason}`, { detail: c.detail });
      const file = fileName(c.file);
      return file ? t('appError.cannot_export', { file, reason }) : t('appError.cannot_export_book', { reason });
    }
    case 'not_a_book':
      return t('appError.not_a_book', { file: fileName(c.file), reason: t(`notABook.${c.reason}`, { detail: c.detail }) });
    case 'too_large':
      return t('appError.too_large', { file: fileName(c.file), mb: Math.round(c.limit / (1024 * 1024)) });
    case 'changed_on_disk':
      return t(c.gone ? 'appError.changed_on_disk_gone' : 'appError.changed_on_disk', { file: fileName(c.file) });
    case 'server':
      return t(`serverProblem.${c.problem}`, { address: c.address || t('server.theServer'), detail: c.detail });
    case 'not_connected':
      return t('appError.not_connected', { address: c.address || t('server.theServer') });
    // Ids are shown verbatim, without digit grouping.
    case 'entry_not_found':
    case 'book_not_open':
    case 'import_not_pending':
      return t(`appError.${c.code}`, { id: String('id' in c ? c.id : c.doc) });
    default: {
      const { code, ...params } = c;
      const named = 'file' in params ? { ...params, file: fileName(params.file) } : params;
      return t(`appError.${code}`, named);
    }
  }
}

/** Why a preview setting of the last run was dropped as the app started. */
export function settingDroppedText(t: Translate, n: { setting: SavedSetting; value: string; detail: string; using: string }): string {
  const value = n.setting === 'tokenizer_file' ? fileName(n.value) : n.value;
  return t(`settingDropped.${n.setting}`, { value, detail: n.detail, using: n.using });
}

/** Why a decorator refused its argument. */
export function argProblemText(t: Translate, p: ArgProblem): string {
  const { code, ...params } = p;
  return t(`arg.${code}`, params);
}

/** What a diagnostic of an entry says. */
export function diagnosticText(t: Translate, m: DiagnosticMessage): string {
  switch (m.code) {
    case 'bad_argument':
      return t('diag.bad_argument', { decorator: m.decorator, problem: argProblemText(t, m.problem) });
    case 'invalid_regex':
      return t('diag.invalid_regex', { which: t(m.secondary ? 'keyKind.secondary' : 'keyKind.primary'), key: m.key, error: m.error });
    case 'regex_too_large':
      return t('diag.regex_too_large', {
        which: t(m.secondary ? 'keyKind.secondary' : 'keyKind.primary'),
        key: m.key.length > 60 ? `${m.key.slice(0, 60)}…` : m.key,
        max: m.max,
        limit: t(`patternLimit.${m.limit}`),
      });
    default: {
      const { code, ...params } = m;
      return t(`diag.${code}`, params);
    }
  }
}

/** Why a gate decorator kept an entry out. */
export function gateText(t: Translate, d: GateDetail): string {
  const { code, ...params } = d;
  return t(`gate.${code}`, params);
}

/** Why the pasted or opened chat could not be read, with its line. */
export function chatErrorText(t: Translate, e: ChatError): string {
  const { code, ...params } = e.problem;
  const problem = t(`chat.${code}`, params);
  return e.line === null ? t('chat.error', { problem }) : t('chat.errorAtLine', { line: e.line, problem });
}

/** What was skipped while reading the chat. */
export function chatWarningText(t: Translate, w: ChatWarning): string {
  const { code, ...params } = w;
  return t(`chatWarning.${code}`, params);
}

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

// The lint checks (crates/engine/src/lint, docs/lint.md): each finding is a
// code with parameters, some with a reason that picks the sentence.
export const lintCodes = {
  key_never_matches: 0,
  regex_invalid: 0,
  regex_matches_empty: 0,
  regex_rewritten: 0,
  key_too_common: 0,
  duplicate_key: 0,
  key_contains_other: 0,
  secondary_unused: 0,
  constant_with_keys: 0,
  selective_without_secondary: 0,
  no_keys: 0,
  decorator_unknown: 0,
  decorator_bad_argument: 0,
  decorator_contradictory: 0,
  decorator_no_effect: 0,
  entry_over_budget: 0,
  constants_over_budget: 0,
  never_survives: 0,
  recursion_loop: 0,
  recursion_too_deep: 0,
  content_empty: 0,
  macro_as_text: 0,
  content_duplicate: 0,
  name_duplicate: 0,
} satisfies Record<Finding['code'], 0>;

const neverReasons = { empty: 0, space_in_full_word: 0, regex_no_slash: 0, regex_no_flags: 0, split_at_comma: 0 } satisfies Record<NeverReason, 0>;
const commonReasons = { chat: 0, single_letter: 0, stop_word: 0, short: 0, whitespace: 0 } satisfies Record<CommonReason['reason'], 0>;
const contradictions = { keep_gated: 0, activate_wins: 0, no_request: 0 } satisfies Record<Contradiction['reason'], 0>;
const noEffectReasons = { other_rules: 0, repeated: 0, constant: 0, lone_fallback: 0, risu_ignores: 0, no_key: 0 } satisfies Record<NoEffectReason['reason'], 0>;
const macroLeft = { new_engine_only: 0, unknown: 0, varies: 0 } satisfies Record<MacroLeft, 0>;
const fixKinds = {
  remove_key: 0,
  clear_secondary_keys: 0,
  clear_keys: 0,
  set_selective: 0,
  delete_content: 0,
  replace_content: 0,
} satisfies Record<Fix['kind'], 0>;

/** Every catalog key the lint messages use (the catalog test checks both
 *  languages have them). */
export const lintKeys: (MessageKey | PluralKey)[] = [
  ...Object.keys(neverReasons).map((r) => `lint.key_never_matches.${r}` as MessageKey),
  'lint.regex_invalid.never',
  'lint.regex_invalid.plain',
  ...Object.keys(commonReasons).map((r) => `lint.key_too_common.${r}` as MessageKey),
  ...Object.keys(contradictions).map((r) => `lint.decorator_contradictory.${r}` as MessageKey),
  ...Object.keys(noEffectReasons).map((r) => `lint.decorator_no_effect.${r}` as MessageKey),
  ...Object.keys(macroLeft).map((r) => `lint.macro_as_text.${r}` as MessageKey),
  ...(['regex_matches_empty', 'regex_rewritten', 'duplicate_key', 'key_contains_other', 'selective_without_secondary', 'no_keys', 'decorator_unknown',
    'decorator_bad_argument', 'entry_over_budget', 'constants_over_budget', 'never_survives', 'recursion_loop', 'recursion_too_deep',
    'content_empty', 'content_duplicate', 'name_duplicate'] as const).map((c) => `lint.${c}` as MessageKey),
  'lint.secondary_unused',
  'lint.constant_with_keys',
  ...Object.keys(fixKinds)
    .filter((k) => k !== 'set_selective')
    .map((k) => `fix.${k}` as MessageKey),
  'fix.set_selective.on',
  'fix.set_selective.off',
];

/** Names the entries a problem mentions. */
export type NameEntry = (entry: LintEntryRef) => string;

/** `A, B and 3 more`. */
function entryList(t: Translate, name: NameEntry, others: LintEntryRef[], more: number): string {
  const list = others.map(name).join(', ');
  return more > 0 ? t('problems.andMore', { list, n: more }) : list;
}

function languageName(t: Translate, language: string): string {
  return language === 'en' || language === 'pt' ? t(`lint.language.${language}`) : language;
}

/** What a lint finding says, in the UI's language. */
export function findingText(t: Translate, f: Finding, name: NameEntry): string {
  switch (f.code) {
    case 'key_never_matches':
      return t(`lint.key_never_matches.${f.reason}`, { key: f.key });
    case 'regex_invalid':
      return t(f.plain ? 'lint.regex_invalid.plain' : 'lint.regex_invalid.never', { key: f.key, error: f.error });
    case 'key_too_common':
      switch (f.reason) {
        case 'chat':
          return t('lint.key_too_common.chat', { key: f.key, matched: f.matched, messages: f.messages });
        case 'stop_word':
          return t('lint.key_too_common.stop_word', { key: f.key, language: languageName(t, f.language) });
        default:
          return t(`lint.key_too_common.${f.reason}`, { key: f.key });
      }
    case 'duplicate_key': {
      const base = t('lint.duplicate_key', { key: f.key, others: entryList(t, name, f.others, f.more) });
      // The evidence that makes a shared key a warning, when there is some.
      const effect = f.effect;
      if (!effect) return base;
      if (effect.kind === 'same_text') return base + t('lint.duplicate_key.same_text', { other: name(effect.other) });
      if (effect.kind === 'same_group') return base + t('lint.duplicate_key.same_group', { group: effect.group });
      return base + t('lint.duplicate_key.always_cut', { n: effect.requests });
    }
    case 'entry_over_budget':
    case 'constants_over_budget':
    case 'never_survives': {
      const { code, assumed, ...params } = f;
      return t(`lint.${code}`, params as Record<string, number>) + (assumed ? t('lint.assumedBudget') : '');
    }
    case 'key_contains_other':
      return t('lint.key_contains_other', { key: f.key, otherKey: f.other_key, other: name(f.other) });
    case 'secondary_unused':
    case 'constant_with_keys':
      return t(`lint.${f.code}`, { n: f.count });
    case 'decorator_bad_argument':
      return t('lint.decorator_bad_argument', { decorator: f.decorator, problem: argProblemText(t, f.problem) });
    case 'decorator_contradictory':
      return t(`lint.decorator_contradictory.${f.reason}`, {
        first: f.first,
        second: f.second,
        messages: f.reason === 'no_request' ? f.messages : 0,
      });
    case 'decorator_no_effect': {
      const rules = f.reason === 'other_rules' ? t(f.rules === 'sillytavern' ? 'rules.sillytavern' : 'rules.studio') : '';
      return t(`lint.decorator_no_effect.${f.reason}`, { decorator: f.decorator, rules, winner: f.reason === 'repeated' ? f.winner : 0 });
    }
    case 'recursion_loop':
      return t(f.dead ? 'lint.recursion_loop.dead' : 'lint.recursion_loop', { chain: f.cycle.map(name).join(' → ') });
    case 'recursion_too_deep':
      return t('lint.recursion_too_deep', { chain: f.chain.map(name).join(' → '), limit: f.limit });
    case 'macro_as_text':
      return t(`lint.macro_as_text.${f.reason}`, { text: f.text, engine: t(`stSettings.engine.${f.engine}`) });
    case 'content_duplicate':
      return t('lint.content_duplicate', { others: entryList(t, name, f.others, f.more) });
    case 'name_duplicate':
      return t('lint.name_duplicate', { name: f.name, others: entryList(t, name, f.others, f.more) });
    default: {
      const { code, ...params } = f;
      return t(`lint.${code}`, params as Record<string, string | number>);
    }
  }
}

/** The label of a quick fix's button. */
export function fixText(t: Translate, fix: Fix): string {
  switch (fix.kind) {
    case 'set_selective':
      return t(fix.value ? 'fix.set_selective.on' : 'fix.set_selective.off');
    case 'replace_content':
      return t('fix.replace_content', { text: fix.text.length > 40 ? `${fix.text.slice(0, 40)}…` : fix.text });
    default:
      return t(`fix.${fix.kind}`);
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


/** A rule profile's name in the rules picker: `rules.<id>`, one catalog
 *  word per row of the engine's profile table. */
export function rulesName(t: Translate, id: Rules): string {
  const key = `rules.${id}`;
  return key in en ? t(key as MessageKey) : id;
}

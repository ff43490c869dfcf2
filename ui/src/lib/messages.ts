// The engine's diagnostics and gate details arrive as a code with parameters
// (see crates/engine/src/diagnostic.rs); this module words them through the
// message catalog, so each language shows its own sentence. A code's message
// is the catalog key `<prefix>.<code>` with the same parameter names.

import type {
  ArgProblem,
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
  ImportReason,
  LintEntryRef,
  NeverReason,
  NoEffectReason,
  MacroLeft,
  Note,
  Rules,
  SavedSetting,
} from './bindings';
import { NOTE_CODES } from './bindings';
import { fileName } from './path';
import type { MessageKey, PluralKey } from './i18n';
import { en } from './locales/en';

// The wording of each rule profile's codes, in their own modules.
export * from './messagesSt';
export * from './messagesRisu';

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
  model: 0,
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
    case 'model':
      return t(`aiProblem.${c.problem}`, { detail: c.detail });
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

/** A rule profile's name in the rules picker: `rules.<id>`, one catalog
 *  word per row of the engine's profile table. */
export function rulesName(t: Translate, id: Rules): string {
  const key = `rules.${id}`;
  return key in en ? t(key as MessageKey) : id;
}

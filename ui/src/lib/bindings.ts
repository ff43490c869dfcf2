// Generated from the Rust types by ts-rs (src-tauri/src/bindings.rs). Do not edit.
// 64-bit integers travel as JSON numbers: entry ids stay within 2^53 - 1 (model::MAX_ID), and
// the JSON an entry carries (extensions, unknown fields) is never taken back from the UI.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export type ErrorKind = "not_found" | "invalid" | "io" | "format" | "needs_path" | "changed_on_disk" | "changed_on_server" | "server" | "model" | "cancelled" | "menu" | "internal";

export type AppError = { kind: ErrorKind, 
/**
 * English, for the CLI and the logs.
 */
message: string, code: ErrorCode, };

export type Book = { name: string, description: string, 
/**
 * How many of the most recent messages are scanned (0–100).
 */
scan_depth: number, 
/**
 * Ceiling in tokens for all injected entries together (100–32000).
 */
token_budget: number, 
/**
 * Whether activated entries' bodies are scanned again (≤ 3 extra passes).
 */
recursive_scanning: boolean, entries: Array<Entry>, 
/**
 * Kept verbatim on every save, import and export.
 */
extensions: { [key in string]?: JsonValue }, 
/**
 * Fields of the file's book object that the model does not own.
 */
extra: { [key in string]?: JsonValue }, 
/**
 * Fields of the file's outer wrapper (beside `spec` and `data`).
 */
wrapper_extra: { [key in string]?: JsonValue }, };

export type Entry = { 
/**
 * Unique inside its book, stable across saves.
 */
id: number, 
/**
 * Display name for the editor; never sent to the model.
 */
comment: string, keys: Array<string>, secondary_keys: Array<string>, selective: boolean, secondary_logic: SecondaryLogic, constant: boolean, enabled: boolean, whole_words: boolean, case_sensitive: boolean, use_regex: boolean, 
/**
 * Placement: higher appears earlier in the prompt.
 */
order: number, 
/**
 * Budget: higher is kept first.
 */
priority: number, role: Role, 
/**
 * Decorator lines, then the injected body.
 */
content: string, 
/**
 * Kept verbatim.
 */
extensions: { [key in string]?: JsonValue }, 
/**
 * Fields of the file's entry object that the model does not own.
 */
extra: { [key in string]?: JsonValue }, 
/**
 * A folder: it holds entries and never activates under the guide's or
 * SillyTavern's rules (see [`crate::folders`]).
 */
folder: boolean, 
/**
 * The id of the folder this entry is in; `None` at the top.
 */
parent: number | null, };

export type Role = "system" | "user" | "assistant";

export type SecondaryLogic = "and_any" | "and_all" | "not_any" | "not_all";

export type Decorators = { probability: number | null, scan_depth: number | null, order: number | null, priority: number | null, role: Role | null, activate_only_after: number | null, activate_only_every: number | null, keep: boolean, dont_activate_after_match: boolean, is_greeting: boolean, };

export type LineStatus = { "kind": "applied" } | { "kind": "overridden", by_line: number, } | { "kind": "unknown" } | { "kind": "invalid", problem: ArgProblem, } | { "kind": "fallback_unused" };

export type DecoratorLine = { 
/**
 * 1-based line number in the content.
 */
line: number, 
/**
 * Byte range of the line in the content, without its line break.
 */
start: number, end: number, name: string, arg: string | null, 
/**
 * Written `@@@name`: applies only if the line before failed.
 */
fallback: boolean, status: LineStatus, };

export type Severity = "hint" | "warning" | "error";

export type ArgProblem = { "code": "missing_number" } | { "code": "not_whole_number", arg: string, } | { "code": "below", value: number, min: number, } | { "code": "out_of_range", value: number, min: number, max: number, } | { "code": "missing_role" } | { "code": "not_role", arg: string, } | { "code": "unexpected_argument", arg: string, } | { "code": "missing_position" } | { "code": "not_position", arg: string, } | { "code": "missing_keys" };

export type PatternLimit = "length" | "alternatives" | "groups" | "nesting";

export type DiagnosticMessage = { "code": "fallback_without_previous", name: string, } | { "code": "empty_decorator_name" } | { "code": "unknown_decorator", name: string, } | { "code": "no_effect_in_risu", name: string, } | { "code": "bad_argument", decorator: string, problem: ArgProblem, } | { "code": "repeated", decorator: string, winner: number, } | { "code": "invalid_regex", key: string, secondary: boolean, error: string, } | { "code": "regex_too_large", key: string, secondary: boolean, limit: PatternLimit, max: number, } | { "code": "selective_without_secondary" } | { "code": "no_keys" };

export type Diagnostic = { 
/**
 * 1-based content line, when the problem is on one.
 */
line: number | null, severity: Severity, message: DiagnosticMessage, };

export type Speaker = "system" | "user" | "assistant";

export type Message = { role: Speaker, name?: string | null, text: string, };

export type ChatProblem = { "code": "too_many_values", limit: number, } | { "code": "malformed_json", column: number, detail: string, } | { "code": "not_messages" } | { "code": "message_not_object", index: number, } | { "code": "unknown_role", index: number, role: string, } | { "code": "missing_role", index: number, } | { "code": "content_not_text", index: number, } | { "code": "line_not_object" } | { "code": "mes_not_text" };

export type ChatError = { line: number | null, problem: ChatProblem, };

export type ChatWarning = { "code": "tool_message_skipped", index: number, } | { "code": "not_a_message", line: number, };

export type Block = { "kind": "system_prompt", text: string, } | { "kind": "lorebook" } | { "kind": "chat_history" };

export type Template = { blocks: Array<Block>, };

export type Origin = { "kind": "system_prompt" } | { "kind": "entry", book: number, id: number, } | { "kind": "chat", index: number, };

export type PromptMessage = { role: string, 
/**
 * Shared, not copied: a chat message's text is one allocation for
 * every request of a log (request k holds k messages, so copies would
 * grow with the square of the chat).
 */
content: string, origin: Origin, };

export type Settings = { 
/**
 * Seed of the probability rolls; "reroll" picks a new one.
 */
seed: number, 
/**
 * The model whose tokenizer counts the budget.
 */
model: string, template: Template, };

export type Source = { "kind": "message", index: number, } | { "kind": "entry", book: number, id: number, };

export type KeyMatch = { key: string, source: Source, start: number, end: number, 
/**
 * 0 for the chat scan, 1–3 for recursion passes.
 */
pass: number, };

export type Activation = { "kind": "constant" } | { "kind": "kept", since_request: number, } | { "kind": "key", primary: KeyMatch, 
/**
 * The secondary keys that matched, when the entry is selective.
 */
secondary: Array<KeyMatch>, };

export type Roll = { roll: number, chance: number, };

export type GateDetail = { "code": "too_few_messages", needed: number, has: number, } | { "code": "not_a_multiple", has: number, every: number, } | { "code": "user_has_spoken" } | { "code": "already_matched", request: number, };

export type DropReason = { "kind": "disabled" } | { "kind": "gated", 
/**
 * The decorator's name, e.g. `activate_only_after`.
 */
decorator: string, detail: GateDetail, } | { "kind": "no_match", 
/**
 * A key appears only in a body activated in the last pass, which
 * recursion does not scan.
 */
recursion_stopped: boolean, 
/**
 * The entry has no usable primary key at all.
 */
no_keys: boolean, 
/**
 * A primary key the scan gave up on in a text within the entry's
 * reach (the text's work budget ran out, `matcher::scan_budget`):
 * it counts as not matching, though it might have matched.
 */
gave_up: string | null, } | { "kind": "secondary", logic: string, primary: KeyMatch, 
/**
 * The secondary keys that did match.
 */
matched: Array<KeyMatch>, } | { "kind": "probability", roll: number, chance: number, activation: Activation, } | { "kind": "budget", needed: number, left: number, activation: Activation, };

export type Injected = { 
/**
 * Position of the book among the attached books.
 */
book: number, id: number, 
/**
 * Effective role, order and priority (decorators applied).
 */
role: Role, order: number, priority: number, tokens: number, constant: boolean, 
/**
 * The roll it passed, when it has `@@probability`.
 */
roll: Roll | null, reason: Activation, };

export type Dropped = { book: number, id: number, reason: DropReason, };

export type BudgetUse = { 
/**
 * The largest `token_budget` of the attached books.
 */
limit: number, 
/**
 * Tokens of every kept entry.
 */
used: number, 
/**
 * Tokens of the kept constant entries.
 */
constants: number, 
/**
 * Constants alone exceed the limit: nothing else was kept.
 */
over_by_constants: boolean, 
/**
 * The first entry the budget dropped (the highest priority that did not
 * fit): where the cut line falls.
 */
first_cut: EntryKey | null, };

export type EntryKey = { book: number, id: number, };

export type RequestResult = { 
/**
 * 1-based: request k sees the first k messages (0 = empty chat).
 */
request: number, budget: BudgetUse, 
/**
 * Kept entries, in placement order.
 */
injected: Array<Injected>, 
/**
 * Every other entry, sorted by book and then id (not by position in
 * the book, so an incrementally edited preview keeps the same order as
 * one built from scratch), but those counted in `unlisted`.
 */
dropped: Array<Dropped>, 
/**
 * The dropped entries counted rather than listed: none unless the
 * preview was asked to ([`crate::preview::Preview::count_plain_drops`]).
 */
unlisted: Unlisted, 
/**
 * The messages the model receives.
 */
messages: Array<PromptMessage>, 
/**
 * How many recursion passes ran (0 when recursion is off).
 */
passes: number, };

export type Unlisted = { no_match: number, disabled: number, };

export type DocSummary = { id: number, 
/**
 * The name to show: the book's name, else its file's stem, else empty
 * (the UI words "untitled" in its language).
 */
name: string, path: string | null, dirty: boolean, 
/**
 * Attached to the preview.
 */
attached: boolean, entries: number, can_undo: boolean, can_redo: boolean, 
/**
 * Imported from SillyTavern or a character card (or carrying their
 * fields): SillyTavern is its target.
 */
sillytavern: boolean, 
/**
 * Imported from RisuAI: RisuAI's rules are its default.
 */
risu: boolean, 
/**
 * The file it was imported from, when it was.
 */
source: string | null, 
/**
 * The format it is written back in over that file (SillyTavern world
 * info for a SillyTavern book): Save As offers it first.
 */
save_back: ExportFormat | null, 
/**
 * The SillyTavern server it was opened from, which Save sends it back
 * to.
 */
server: ServerBookRef | null, };

export type DiskChange = { doc: number, 
/**
 * The book has unsaved changes: the user is asked which version to
 * keep. Otherwise the book is read again.
 */
dirty: boolean, };

export type AppStateView = { docs: Array<DocSummary>, chat_error: ChatError | null, chat_warnings: Array<ChatWarning>, settings: Settings, recent: Array<string>, 
/**
 * The user's tokenizer file counting instead of the model's, if any.
 */
tokenizer_file: string | null, 
/**
 * Whether every token count is approximate (shown with "≈").
 */
approximate: boolean, };

export type BookSettings = { name: string, description: string, scan_depth: number, token_budget: number, recursive_scanning: boolean, };

export type EntryFilter = "all" | "enabled" | "disabled" | "constant" | "diagnostics";

export type SortKey = "id" | "name" | "keys" | "order" | "priority" | "tokens" | "enabled" | "constant";

export type ListQuery = { search: string, filter: EntryFilter, sort: SortKey, descending: boolean, };

export type ListPatch = { 
/**
 * This list's number, for the UI to send back as the one it has.
 */
rev: number, 
/**
 * The list this changes; `None` when `rows` is the whole list, in
 * order.
 */
base: number | null, 
/**
 * With a base: the rows that are new or differ from the base's (and
 * those the UI said it changed on its own), in any order.
 */
rows: Array<EntryRow>, 
/**
 * With a base: every row's id in list order, when the order or the
 * rows listed changed; `None` keeps the base's.
 */
order: Array<number> | null, };

export type EntryRow = { id: number, 
/**
 * Comment, falling back to the first key.
 */
name: string, keys: string, enabled: boolean, constant: boolean, order: number, priority: number, 
/**
 * Body tokens under the selected model; `None` while not counted yet
 * (a big book's list comes before its counts: see
 * `Workspace::count_list_tokens`).
 */
tokens: number | null, 
/**
 * How many diagnostics, hints included.
 */
diagnostics: number, 
/**
 * The worst of them, for the row's badge.
 */
severity: Severity | null, 
/**
 * A folder (see `lorebook_engine::folders`): a heading for the
 * entries in it, not an entry that fires.
 */
folder: boolean, 
/**
 * The folder this entry is in, when that folder is in the book.
 */
parent: number | null, 
/**
 * How many listed folders hold it (its indent).
 */
depth: number, 
/**
 * A folder's entries at any depth, filters aside (`None`: no folder).
 */
inside: number | null, 
/**
 * Their body tokens; `None` while one is not counted yet.
 */
inside_tokens: number | null, };

export type EntryDetail = { entry: Entry, decorator_lines: Array<DecoratorLine>, 
/**
 * 0-based line of `content` where the body starts: the lines before it
 * are the decorator block. The editor colours by line so a draft one
 * keystroke ahead of this view stays aligned.
 */
body_line: number, diagnostics: Array<Diagnostic>, 
/**
 * Body tokens under the selected model.
 */
tokens: number, 
/**
 * Its row in the entry list, so one edit updates one row.
 */
row: EntryRow, 
/**
 * Its SillyTavern fields as a SillyTavern export writes them
 * (`formats::st_fields`), by SillyTavern's names.
 */
st: { [key in string]?: JsonValue }, };

export type BulkPatch = { enabled: boolean | null, order: number | null, priority: number | null, 
/**
 * SillyTavern fields set on every entry (position, depth, group…).
 */
st: Array<StEdit>, };

export type FolderContents = "keep" | "delete";

export type MergeAlone = { id: number, name: string, };

export type MergeField = { field: string, mine: string, theirs: string, };

export type MergePair = { 
/**
 * The entry here.
 */
mine: number, 
/**
 * Its match in the other book.
 */
theirs: number, name: string, 
/**
 * How they were matched: `id`, `name` or `keys`.
 */
by: string, fields: Array<MergeField>, };

export type MergeView = { doc: number, 
/**
 * The other book's file name.
 */
file: string, only_theirs: Array<MergeAlone>, only_mine: Array<MergeAlone>, different: Array<MergePair>, same: number, };

export type Take = "mine" | "theirs" | "both";

export type PairChoice = { mine: number, take: Take, };

export type MergeChoices = { 
/**
 * Entries only in their book to add (their ids).
 */
add: Array<number>, 
/**
 * Entries only in this book to delete (ids here).
 */
delete: Array<number>, pairs: Array<PairChoice>, };

export type MergeSummary = { added: number, replaced: number, kept_both: number, deleted: number, };

export type OpenResult = { doc: number, 
/**
 * Values repaired on load (clamped settings, new ids).
 */
notes: Array<Note>, };

export type SaveResult = { path: string, notes: Array<Note>, };

export type AttachedBook = { doc: number, name: string, };

export type EntryName = { book: number, id: number, name: string, };

export type SourceText = { source: Source, text: string, };

export type ChatStatus = { chat_error: ChatError | null, chat_warnings: Array<ChatWarning>, };

export type EntryRef = { book: number, id: number, };

export type PreviewView = { 
/**
 * Attached books; `book` indices in the result point here.
 */
books: Array<AttachedBook>, 
/**
 * Number of requests (chat length).
 */
requests: number, 
/**
 * Display names of every entry in the result.
 */
names: Array<EntryName>, 
/**
 * The texts the injected entries' primary key matches point into,
 * each once: only these, not the whole chat, so a keystroke's view
 * stays small on long chats.
 */
sources: Array<SourceText>, 
/**
 * The request; `dropped` lists at most a hundred entries of each
 * plentiful kind (`no_match`, `disabled`), the rest are in `omitted`.
 * Its `messages` are empty: the final prompt is in `prompt`.
 */
result: RequestResult, prompt: PromptPatch, omitted: Array<OmittedDropped>, };

export type PromptPatch = { 
/**
 * This prompt's number, for the UI to send back as the one it has.
 */
rev: number, 
/**
 * The prompt this changes; `None` when `middle` is the whole prompt.
 */
base: number | null, 
/**
 * How many messages of the base stay at the start and at the end.
 */
keep_head: number, keep_tail: number, 
/**
 * The messages between them.
 */
middle: Array<PromptMessage>, };

export type OmittedDropped = { kind: DropReasonKind, count: number, };

export type StOmittedDropped = { kind: DropKind, count: number, };

export type DropReasonKind = "disabled" | "gated" | "no_match" | "secondary" | "probability" | "budget";

export type LogEntry = { book: number, id: number, name: string, };

export type TimelineRow = { book: number, id: number, name: string, folder: string | null, cells: string, };

export type TimelineView = { requests: number, 
/**
 * Rows in all (entries some request matched).
 */
total: number, 
/**
 * Attached entries no request matched (not listed).
 */
never: number, offset: number, rows: Array<TimelineRow>, };

export type LogRow = { request: number, used: number, limit: number, injected: Array<LogEntry>, 
/**
 * The entries the budget cut in this request (they activated but did
 * not fit).
 */
cut: Array<LogEntry>, 
/**
 * Entries held out by what earlier requests left behind (SillyTavern's
 * cooldown and delay; `@@dont_activate_after_match`).
 */
held: Array<LogEntry>, };

export type DecoratorInfo = { name: string, aliases: Array<string>, 
/**
 * `none`, `int` or `role`.
 */
arg: string, min: number | null, max: number | null, summary: string, };

export type Catalog = { decorators: Array<DecoratorInfo>, 
/**
 * RisuAI's decorators, in the panel's order.
 */
risu_decorators: Array<RisuDecoratorInfo>, models: Array<string>, scan_depth: [number, number], token_budget: [number, number], export_formats: Array<ExportChoice>, 
/**
 * The model names whose counts are approximate, shown with "≈".
 */
approximate_models: Array<string>, 
/**
 * The tokenizer families, OpenAI's first, for the model picker.
 */
families: Array<FamilyView>, 
/**
 * The rule profiles, in the order the rules picker offers them
 * (worded by the UI: `rules.<id>`).
 */
profiles: Array<Rules>, };

export type About = { version: string, 
/**
 * The program's licence (SPDX).
 */
license: string, 
/**
 * Where preferences, recovery copies and the model choice are kept.
 */
data_dir: string, 
/**
 * The folder the tokenizer files were found in, if any family is
 * installed.
 */
tokenizers_dir: string | null, 
/**
 * Every tokenizer family: its source with its data's licence.
 */
tokenizers: Array<AboutTokenizer>, };

export type AboutTokenizer = { id: string, 
/**
 * The package it comes from and its data's licence.
 */
source: string, 
/**
 * Built in, or its file was found (else it is not installed).
 */
available: boolean, };

export type Format = "native" | "sillytavern" | "card_v2" | "card_v3" | "character_book" | "png_card" | "charx" | "byaf" | "risu" | "novelai" | "agnai" | "marinara";

export type ExportFormat = "native" | "sillytavern" | "card_v2" | "card_v3" | "character_book" | "risu" | "novelai" | "agnai" | "marinara" | "charx";

export type Direction = "import" | "export";

export type FieldNote = { 
/**
 * The field, in the source's spelling (`matchWholeWords`, `@@keep`).
 */
field: string, note: Note, };

export type Section = { carried: Array<string>, approximated: Array<FieldNote>, not_carried: Array<FieldNote>, };

export type EntryReport = { 
/**
 * The entry's id in the model.
 */
id: number, 
/**
 * Its display name (comment, else first key).
 */
name: string, carried: Array<string>, approximated: Array<FieldNote>, not_carried: Array<FieldNote>, };

export type Report = { direction: Direction, 
/**
 * The format's human name (see [`super::Format::name`]).
 */
format: string, book: Section, entries: Array<EntryReport>, 
/**
 * Remarks that are not about one field (which chunk was read, …).
 */
notes: Array<Note>, };

export type PendingImport = { id: number, file: string, format: Format, name: string, entries: number, report: Report, };

export type ImportOutcome = { "kind": "opened" } & OpenResult | { "kind": "pending" } & PendingImport;

export type Notice = { "kind": "message", text: string, } | { "kind": "imported" } & PendingImport | { "kind": "repaired", file: string, note: Note, } | { "kind": "failed", error: AppError, } | { "kind": "setting_dropped", setting: SavedSetting, value: string, detail: string, using: string, };

export type ExportChoice = { 
/**
 * The serde name of `ExportFormat`.
 */
id: string, name: string, 
/**
 * Whether it can be written into a card PNG.
 */
card: boolean, };

export type RecoveredBook = { 
/**
 * The key to restore or discard it by.
 */
id: string, title: string, 
/**
 * The file the book belongs to; `None` for a book never saved.
 */
original_path: string | null, 
/**
 * When the copy was written, in seconds since the Unix epoch.
 */
saved_at: number, 
/**
 * The recovery copy itself, so the user can find it by hand.
 */
file: string, };

export type Prefs = { 
/**
 * `system`, `light` or `dark`; `None` until the user picks one.
 */
theme?: string | null, 
/**
 * `en` or `pt-BR`; `None` follows the system language.
 */
locale?: string | null, 
/**
 * The widths of the entry list and the editor, as fractions of the
 * window's width (the preview takes the rest); empty for the default.
 */
panes: Array<number>, 
/**
 * The format Export as… chose last (an export format's id), offered
 * first next time.
 */
export_format?: string | null, 
/**
 * The first-run hint was dismissed.
 */
welcomed: boolean, };

export type Rules = "studio" | "sillytavern" | "risu";

export type StSettingsView = { 
/**
 * Scan depth (messages), 0–1000.
 */
depth: number, 
/**
 * Budget, percent of the context, 1–100.
 */
budget_percent: number, 
/**
 * Budget cap in tokens; 0 is none.
 */
budget_cap: number, 
/**
 * Context size minus the response length, in tokens.
 */
max_context: number, recursive: boolean, 
/**
 * Most scan passes; 0 is no limit.
 */
max_recursion_steps: number, min_activations: number, 
/**
 * Deepest scan min activations widens to; 0 is the chat length.
 */
min_activations_depth_max: number, include_names: boolean, case_sensitive: boolean, match_whole_words: boolean, use_group_scoring: boolean, user_name: string, char_name: string, 
/**
 * SillyTavern's macro engine for keys and content
 * (`power_user.experimental_macro_engine`).
 */
macro_engine: MacroEngine, 
/**
 * The global variables (`extension_settings.variables.global`), as
 * text.
 */
global_vars: { [key in string]?: string }, };

export type RulesView = { 
/**
 * The rules in force.
 */
rules: Rules, 
/**
 * Chosen by the user (else taken from the attached books' origin).
 */
chosen: boolean, st: StSettingsView, 
/**
 * The character, persona and Author's Note texts of the preview.
 */
inputs: StInputsView, 
/**
 * The card of the first attached book that came from a character
 * card: the texts the inputs follow while not edited.
 */
card: StCardView | null, 
/**
 * RisuAI's lorebook settings.
 */
risu: RisuSettingsView, 
/**
 * The chat's own variables under SillyTavern's rules
 * (`chat_metadata.variables` of the chat, or as edited here).
 */
chat_vars: { [key in string]?: string }, 
/**
 * The chat's variables were edited in the app (else the chat's).
 */
chat_vars_edited: boolean, };

export type ScenarioItem = { name: string, rules: Rules, 
/**
 * How many entries it expects in and out of the prompt.
 */
expected_in: number, expected_out: number, 
/**
 * Its expectations, for the editor.
 */
injected: Array<ExpectedView>, not_injected: Array<ExpectedView>, exactly: boolean, nothing_cut: boolean, max_used: number | null, 
/**
 * Its answer; `None` when it cannot run (`error` says why).
 */
verdict: Verdict | null, error: string | null, };

export type ScenariosView = { doc: number, items: Array<ScenarioItem>, 
/**
 * The book's scenarios do not read (nothing is shown or changed).
 */
error: string | null, };

export type ExpectedView = { id: number, name: string, 
/**
 * `None`: the last request.
 */
request: number | null, position: string | null, depth: number | null, };

export type ScenarioEdit = { "edit": "remove_expected", out: boolean, index: number, } | { "edit": "any_place", index: number, } | { "edit": "exactly", on: boolean, } | { "edit": "nothing_cut", on: boolean, } | { "edit": "max_used", tokens: number | null, };

export type ImpactAgainst = "clean" | "saved" | "unreachable" | "step" | "file" | "planned";

export type ImpactBaseAsk = { "kind": "saved" } | { "kind": "step", back: number, };

export type ImpactStepView = { 
/**
 * How many steps back (1: the state before the last edit).
 */
back: number, 
/**
 * The entry the step edited, when it edited one.
 */
entry: string | null, 
/**
 * How long ago it was made.
 */
seconds_ago: number, };

export type ImpactEntry = { id: number, name: string, now: Reason | null, was: Reason | null, };

export type ImpactMove = { id: number, name: string, from: string, to: string, };

export type ImpactRow = { request: number, started: Array<ImpactEntry>, stopped: Array<ImpactEntry>, moved: Array<ImpactMove>, budget_before: number, budget_after: number, };

export type ScenarioFlip = { name: string, was: boolean | null, now: boolean | null, };

export type ImpactView = { doc: number, against: ImpactAgainst, base_steps: number | null, base_file: string | null, rules: Rules, rows: Array<ImpactRow>, scenarios: Array<ScenarioFlip>, 
/**
 * The preview cannot run (a chat or setting it refuses).
 */
error: string | null, };

export type BookFiguresView = { doc: number, model: string, figures: BookFigures, chat: ChatFigures | null, };

export type ReplaceField = "name" | "keys" | "secondary_keys" | "content";

export type FindAsk = { pattern: string, with: string, regex: boolean, case_sensitive: boolean, whole_word: boolean, fields: Array<ReplaceField>, only: Array<number> | null, };

export type FoundMatch = { id: number, name: string, field: ReplaceField, index: number | null, start: number, before: string, matched: string, after: string, };

export type MatchRef = { id: number, field: ReplaceField, index: number | null, start: number, };

export type ReplaceEditView = { id: number, name: string, field: ReplaceField, index: number | null, before: string, after: string, };

export type FindView = { doc: number, total: number, matches: Array<FoundMatch>, changes: number, edits: Array<ReplaceEditView>, error: string | null, };

export type BookFigures = { entries: number, enabled: number, constant: number, 
/**
 * Every entry's body, enabled or not.
 */
tokens: number, enabled_tokens: number, 
/**
 * The enabled constant entries', which every request injects first.
 */
constant_tokens: number, 
/**
 * The book's token budget (the guide's rules).
 */
budget: number, 
/**
 * The largest entries, largest first.
 */
largest: Array<EntryTokens>, 
/**
 * The book's folders, in the book's order, each named by its path.
 */
folders: Array<FolderTotals>, };

export type EntryTokens = { id: number, name: string, tokens: number, };

export type FolderTotals = { 
/**
 * The folder entry's id.
 */
id: number, name: string, entries: number, tokens: number, };

export type ChatFigures = { requests: number, 
/**
 * Entries and tokens injected in the last request.
 */
last_entries: number, last_tokens: number, 
/**
 * Entries injected in at least one request, and their tokens (each
 * counted once, at the most it took).
 */
log_entries: number, log_tokens: number, };

export type Verdict = { name: string, rules: Rules, passed: boolean, failures: Array<Failure>, };

export type Failure = { "code": "not_injected", id: number, name: string, request: number, 
/**
 * The rules' reason, in English and typed.
 */
why: string, reason: Reason | null, } | { "code": "injected", id: number, name: string, request: number, why: string, reason: Reason | null, } | { "code": "moved", id: number, name: string, request: number, expected: string, found: string, } | { "code": "missing", id: number, name: string, } | { "code": "over_budget", request: number, used: number, max: number, } | { "code": "cut", request: number, names: Array<string>, } | { "code": "no_such_request", request: number, requests: number, };

export type Reason = { "is": "studio_in", why: Activation, } | { "is": "studio_out", why: DropReason, } | { "is": "sillytavern_in", why: StReason, } | { "is": "sillytavern_out", why: StDetail, } | { "is": "risu_in", why: RisuWhy, } | { "is": "risu_out", why: RisuDrop, } | { "is": "risu_failed", entry: string, };

export type PreviewAsk = { "rules": "studio", request: number | null, have: number | null, } | { "rules": "sillytavern", request: number | null, prompt: boolean, have: number | null, } | { "rules": "risu", request: number | null, prompt: boolean, };

export type PreviewAnswer = { "rules": "studio", view: PreviewView, } | { "rules": "sillytavern", view: StPreviewView, } | { "rules": "risu", view: RisuPreviewView, };

export type EntryEdited = { detail: EntryDetail, state: AppStateView, preview: PreviewAnswer | null, };

export type StField = "position" | "depth" | "role" | "outletName" | "order" | "probability" | "useProbability" | "scanDepth" | "caseSensitive" | "matchWholeWords" | "group" | "groupOverride" | "groupWeight" | "useGroupScoring" | "excludeRecursion" | "preventRecursion" | "delayUntilRecursion" | "sticky" | "cooldown" | "delay" | "ignoreBudget" | "matchPersonaDescription" | "matchCharacterDescription" | "matchCharacterPersonality" | "matchCharacterDepthPrompt" | "matchScenario" | "matchCreatorNotes" | "selectiveLogic";

export type StEdit = { field: StField, value: JsonValue, };

export type StInjectedView = { book: number, id: number, name: string, position: Position, depth: number | null, role: Role | null, outlet: string | null, order: number, 
/**
 * 1-based place within its position (its depth and role, its outlet).
 */
rank: number, tokens: number, pass: number, 
/**
 * How it activated, as a code (key, constant, sticky…).
 */
reason: StReason, 
/**
 * Where its content's macros decided (`{{if}}` branches, variables).
 */
decided: Array<MacroDecision>, };

export type StDroppedView = { book: number, id: number, name: string, 
/**
 * The rule, as the engine's typed code.
 */
kind: DropKind, 
/**
 * The rule's particulars, as a code with parameters.
 */
detail: StDetail, };

export type StPreviewView = { books: Array<AttachedBook>, requests: number, request: number, 
/**
 * Budget in tokens, what the injected text used, and where it came
 * from: `percent` of `context`, capped at `cap` when above 0.
 */
budget: number, used: number, overflowed: boolean, percent: number, context: number, cap: number, passes: number, injected: Array<StInjectedView>, dropped: Array<StDroppedView>, omitted: Array<StOmittedDropped>, 
/**
 * The final prompt, only when asked for (its panel is open).
 */
prompt: StPromptPatch | null, };

export type RisuSettingsView = { 
/**
 * Messages scanned (RisuAI's default 5).
 */
scan_depth: number, 
/**
 * Token budget (RisuAI's default 800).
 */
token_budget: number, 
/**
 * Recursive scanning (on by default).
 */
recursive: boolean, 
/**
 * Whole-word matching (off by default: keys match inside words).
 */
full_word: boolean, 
/**
 * The greeting in use for `@@is_greeting`: −1 the first message, k
 * the alternate greeting k (RisuAI's `fmIndex`).
 */
fm_index: number, 
/**
 * The RisuAI whose rules apply where versions differ: `2026` (the
 * 2026 mainline: the budget counts CBS-evaluated bodies) or
 * `460ecae`.
 */
version: string, 
/**
 * What CBS reads, by RisuAI's names: `username`, the character's
 * `name`, `nickname` and `defaultVariables`, the chat's variables
 * (`scriptstate`, shown without RisuAI's `$`), the global ones and
 * `templateDefaultVariables`.
 */
username: string, char_name: string, char_nickname: string, default_variables: string, template_default_variables: string, chat_variables: { [key in string]?: string }, global_variables: { [key in string]?: string }, };

export type RisuDecoratorInfo = { name: string, 
/**
 * `none`, `int`, `keys`, `role`, `position` or `text`.
 */
arg: string, 
/**
 * Whether it changes anything in RisuAI 460ecae.
 */
effect: boolean, };

export type RisuInjectedView = { book: number, id: number, name: string, 
/**
 * `lorebook`, `depth`, `reverse_depth`, `before_desc`, `after_desc`,
 * `personality`, `scenario`, `pt_<name>` or `inject_at <location>`.
 */
position: string, 
/**
 * For `depth` and `reverse_depth`.
 */
depth: number | null, role: Role, 
/**
 * `insertorder`.
 */
order: number, 
/**
 * The budget's rank (`@@priority`, else `insertorder`).
 */
priority: number, tokens: number, 
/**
 * The pass it activated in (1: the chat).
 */
pass: number, why: RisuWhy, 
/**
 * What RisuAI sends for it when that is not its body as written (CBS
 * evaluated, `{{position::name}}` filled in).
 */
sent: string | null, };

export type RisuDroppedView = { book: number, id: number, name: string, why: RisuDrop, };

export type RisuFailureView = { book: number, id: number, name: string, };

export type RisuPreviewView = { books: Array<AttachedBook>, 
/**
 * The request shown (messages it sees) and how many there are.
 */
request: number, requests: number, budget: number, used: number, passes: number, injected: Array<RisuInjectedView>, 
/**
 * Everything left out but the entries whose keys were not found.
 */
dropped: Array<RisuDroppedView>, 
/**
 * Entries whose keys were not found anywhere (counted, not listed).
 */
unmatched: number, 
/**
 * Left-out entries past the first `SHOWN_PER_KIND` of a reason
 * (counted, not listed).
 */
more: number, failure: RisuFailureView | null, 
/**
 * The final prompt RisuAI sends (without a prompt template), only
 * when asked for (its panel is open).
 */
prompt: RisuPromptView | null, };

export type RisuPromptView = { messages: Array<RisuPromptMessage>, absent: Array<RisuAbsentView>, };

export type RisuAbsentView = { book: number, id: number, name: string, position: string, };

export type RisuPromptMessage = { role: Role, content: string, source: RisuSource, };

export type RisuSource = { "kind": "main" } | { "kind": "description" } | { "kind": "persona" } | { "kind": "example" } | { "kind": "new_chat" } | { "kind": "greeting" } | { "kind": "chat", index: number, } | { "kind": "entry", book: number, id: number, } | { "kind": "global_note" } | { "kind": "author_note" };

export type RisuWhy = { "kind": "always" } | { "kind": "forced" } | { "kind": "kept" } | { "kind": "key", key: string, found: Found, } | { "kind": "child" };

export type RisuDrop = { "kind": "empty_key" } | { "kind": "no_match" } | { "kind": "regex", end: RegexEnd, } | { "kind": "secondary" } | { "kind": "additional", line: number, } | { "kind": "excluded", key: string, found: Found, } | { "kind": "excluded_all", line: number, } | { "kind": "only_after", n: number, length: number, } | { "kind": "only_every", n: number, length: number, } | { "kind": "greeting", n: number, greeting: number, } | { "kind": "probability", percent: number, roll: number, } | { "kind": "forced_off" } | { "kind": "not_again" } | { "kind": "child" } | { "kind": "budget", tokens: number, left: number, } | { "kind": "injected_into", target: string, } | { "kind": "inject_lost", target: string, } | { "kind": "negative_depth", depth: number, } | { "kind": "no_inject_place" } | { "kind": "failed" };

export type Found = { "kind": "message", n: number, } | { "kind": "entry", name: string, };

export type RegexEnd = { "kind": "matched", text: number, } | { "kind": "no_match" } | { "kind": "no_slash" } | { "kind": "invalid" };

export type FamilyView = { 
/**
 * The family's id (`llama-3`, `claude`).
 */
id: string, 
/**
 * The vendor or model line it is grouped under (`Llama 3.x`).
 */
group: string, 
/**
 * Whether its counts equal the models' own tokenizer.
 */
exact: boolean, 
/**
 * The model names the picker offers for it.
 */
models: Array<string>, };

export type StPromptPatch = { rev: number, base: number | null, keep_head: number, keep_tail: number, middle: Array<StPromptMessageView>, 
/**
 * Messages in the whole prompt, and their tokens.
 */
messages: number, tokens: number, 
/**
 * Whether the Author's Note (with its top and bottom entries) is
 * inserted in this request.
 */
authors_note_due: boolean, 
/**
 * Injected entries that appear nowhere in the prompt, with why.
 */
absent: Array<StAbsentView>, };

export type StPromptMessageView = { role: Role, 
/**
 * `example_user` / `example_assistant` on dialogue examples.
 */
name: string | null, content: string, 
/**
 * SillyTavern's prompt manager block.
 */
block: PromptBlock, 
/**
 * What the content is made of, in order.
 */
sources: Array<StPromptSourceView>, tokens: number, };

export type StPromptSourceView = { "kind": "main" } | { "kind": "persona" } | { "kind": "description" } | { "kind": "personality" } | { "kind": "scenario" } | { "kind": "entry", book: number, id: number, position: Position, } | { "kind": "new_example_chat" } | { "kind": "example", block: number, } | { "kind": "new_chat" } | { "kind": "chat", index: number, } | { "kind": "authors_note" } | { "kind": "character_note" };

export type StAbsentView = { book: number, id: number, position: Position, 
/**
 * Why, as a code.
 */
reason: AbsentReason, };

export type Position = "before" | "after" | "an_top" | "an_bottom" | "at_depth" | "em_top" | "em_bottom" | "outlet";

export type PromptBlock = "main" | "worldInfoBefore" | "personaDescription" | "charDescription" | "charPersonality" | "scenario" | "worldInfoAfter" | "dialogueExamples" | "chatHistory";

export type AbsentReason = "note_not_due" | "note_position" | "note_depth_or_role" | "example_without_speakers" | "depth" | "outlet_unused";

export type ImportReason = "malformed_json" | "unknown_format" | "png_without_card" | "bad_png" | "bad_card_chunk" | "card_without_book" | "bad_charx" | "bad_shape" | "bad_field";

export type ExportReason = "not_a_card_format" | "no_writer" | "bad_png" | "png_without_card" | "bad_card_chunk";

export type StReason = { "code": "activate" } | { "code": "constant" } | { "code": "sticky", left: number, } | { "code": "key", key: string, pass: number, widened: number | null, 
/**
 * The key as SillyTavern's macros made it, when they changed it
 * (`{{user}} smiled` → `Alice smiled`).
 */
expanded?: string | null, };

export type GroupLoss = { "code": "sticky_holds" } | { "code": "on_cooldown" } | { "code": "delayed" } | { "code": "scoring", score: number, best: number, } | { "code": "already_activated" } | { "code": "prioritized", winner: number, winner_name: string, } | { "code": "lost_roll", roll: number, total: number, weight: number, winner: number, winner_name: string, };

export type StDetail = { "code": "disabled" } | { "code": "triggers", triggers: Array<string>, } | { "code": "character_filter", character: string, } | { "code": "delay", length: number, delay: number, } | { "code": "cooldown", left: number, } | { "code": "delayed_until_recursion" } | { "code": "delayed_until_level", level: number, } | { "code": "non_recursable" } | { "code": "dont_activate" } | { "code": "no_keys" } | { "code": "no_match", depth: number, } | { "code": "secondary", logic: string | null, hits: number, n: number, } | { "code": "group", group: string, loss: GroupLoss, } | { "code": "probability", roll: number, chance: number, } | { "code": "budget_reached", budget: number, } | { "code": "budget", total: number, budget: number, percent: number, context: number, cap: number, } | { "code": "empty_content" } | { "code": "outlet_without_name" } | { "code": "unknown_position" } | { "code": "regex_too_slow", key: string, } | { "code": "regex_budget_spent", key: string, } | { "code": "regex_too_large", key: string, };

export type Note = { "code": "clamped", field: string, value: number, min: number, max: number, clamped: number, } | { "code": "id_used_twice", index: number, old: number, new: number, } | { "code": "id_not_whole", index: number, value: string, new: number, } | { "code": "no_id", index: number, new: number, } | { "code": "uid_used_twice", old: number, new: number, } | { "code": "no_usable_uid", new: number, } | { "code": "uid_not_whole", value: string, } | { "code": "entries_object", count: number, } | { "code": "read_as", value: string, read: number, } | { "code": "not_number_ignored", value: string, } | { "code": "not_number_default", value: string, default: number, } | { "code": "not_bool", value: string, read: boolean, } | { "code": "logic_unknown", value: string, } | { "code": "role_unknown", value: string, } | { "code": "scan_depth_clamped", value: string, read: number, } | { "code": "whole_words_global" } | { "code": "whole_words_to_risu_setting" } | { "code": "st_use_regex_ignored" } | { "code": "risu_constant" } | { "code": "risu_folder" } | { "code": "folders_from_paths", folders: number, } | { "code": "no_book_settings", tool: string, } | { "code": "risu_recursion" } | { "code": "written_as", target: string, value: string, } | { "code": "disabled_as_decorator" } | { "code": "regex_as_literals", tool: string, } | { "code": "key_has_comma", key: string, } | { "code": "patterns_joined" } | { "code": "risu_priority", priority: number, } | { "code": "st_priority", priority: number, order: number, } | { "code": "novel_ai_order", order: number, priority: number, } | { "code": "position_unknown", value: string, } | { "code": "st_book_settings" } | { "code": "unknown_spec", old: string, new: string, } | { "code": "source_spelling", was: string, shown: string, } | { "code": "folders_as_paths", folders: number, } | { "code": "empty_folder", path: string, } | { "code": "decorator_in_content", tool: string, } | { "code": "decorator_unknown_to_v3" } | { "code": "no_decorators_v2" } | { "code": "no_decorators", tool: string, } | { "code": "no_secondary_keys", tool: string, } | { "code": "only_and_any", tool: string, logic: string, } | { "code": "inside_words", tool: string, } | { "code": "case_insensitive", tool: string, } | { "code": "no_regex", tool: string, } | { "code": "no_constant", tool: string, } | { "code": "no_role", tool: string, } | { "code": "no_extensions", tool: string, } | { "code": "source_field_no_place", tool: string, } | { "code": "book_field_no_place", tool: string, } | { "code": "set_per_chat", tool: string, } | { "code": "no_book_name", tool: string, } | { "code": "no_spec_in_bare_book" } | { "code": "read_from_chunk", chunk: string, spec: string | null, } | { "code": "chunk_not_read", chunk: string, used: string, } | { "code": "chunk_skipped", chunk: string, error: string, } | { "code": "chunk_added", chunk: string, from: string, } | { "code": "file_not_read", file: string, problem: string, } | { "code": "saved_under_name", wanted: string, written: string, } | { "code": "stale_file_kept", file: string, } | { "code": "already_open", file: string, } | { "code": "charx_assets" } | { "code": "risu_module_kept" } | { "code": "only_first_character", count: number, } | { "code": "placeholders_converted", count: number, } | { "code": "novel_ai_story_read" } | { "code": "novel_ai_story_written" } | { "code": "card_from_import" } | { "code": "minimal_card", name: string, };

export type DropKind = "disabled" | "trigger" | "character_filter" | "delay" | "cooldown" | "recursion" | "decorator" | "no_keys" | "no_match" | "secondary" | "group" | "probability" | "budget" | "not_placed";

export type StRanged = "depth" | "budget_percent" | "budget_cap" | "max_context" | "max_recursion_steps" | "min_activations" | "min_activations_depth_max";

export type MacroEngine = "new" | "legacy";

export type MacroLeft = "new_engine_only" | "unknown" | "varies";

export type MacroDecision = { "kind": "if", condition: string, value: string, branch: Branch, } | { "kind": "var", name: string, global: boolean, value: string | null, };

export type Branch = "then" | "else" | "nothing";

export type StRange = { setting: StRanged, min: number, max: number, };

export type ErrorCode = { "code": "file_not_found", file: string, } | { "code": "permission_denied", file: string, } | { "code": "disk_full", file: string, } | { "code": "too_large", file: string, limit: number, } | { "code": "not_a_file", file: string, } | { "code": "not_text", file: string, } | { "code": "unreadable", file: string, detail: string, } | { "code": "unwritable", file: string, detail: string, } | { "code": "read_only", file: string, } | { "code": "export_over_book", file: string, } | { "code": "save_over_source", file: string, format: string, } | { "code": "fix_outdated" } | { "code": "out_of_range", setting: StRanged, min: number, max: number, } | { "code": "not_a_book", file: string, reason: ImportReason, detail: string, } | { "code": "cannot_export", file: string, reason: ExportReason, detail: string, } | { "code": "internal", command: string, detail: string, } | { "code": "nothing_chosen" } | { "code": "gave_way" } | { "code": "book_not_open", doc: number, } | { "code": "entry_not_found", id: number, } | { "code": "import_not_pending", id: number, } | { "code": "recovered_book_gone", id: string, } | { "code": "needs_path" } | { "code": "changed_on_disk", file: string, gone: boolean, } | { "code": "never_saved" } | { "code": "not_recent", file: string, } | { "code": "book_setting_out_of_range", setting: BookSetting, min: number, max: number, } | { "code": "note_number_out_of_range", setting: NoteNumber, max: number, } | { "code": "copy_name_without_name" } | { "code": "chat_out_of_step", detail: string, } | { "code": "bad_preview_settings", detail: string, } | { "code": "tokenizer_unavailable", model: string, detail: string, } | { "code": "bad_tokenizer_file", file: string, detail: string, } | { "code": "bad_st_field", field: StField, detail: string, } | { "code": "not_st_settings", file: string, detail: string, } | { "code": "risu_setting_out_of_range", setting: string, min: number, max: number, } | { "code": "st_preview_failed", detail: string, } | { "code": "scenario_name_empty" } | { "code": "bad_pattern", detail: string, } | { "code": "no_such_undo_step", back: number, } | { "code": "not_a_book_folder", file: string, detail: string, } | { "code": "folder_holds_book", folder: string, } | { "code": "no_merge_pending", doc: number, } | { "code": "not_a_folder", id: number, } | { "code": "folder_into_itself", id: number, into: number, } | { "code": "scenarios_unreadable", detail: string, } | { "code": "scenario_cannot_run", name: string, detail: string, } | { "code": "st_preview_not_built" } | { "code": "menu_failed", detail: string, } | { "code": "prefs_not_saved", detail: string, } | { "code": "server", problem: ServerProblem, address: string, detail: string, } | { "code": "changed_on_server", book: string, how: ServerChange, } | { "code": "not_connected", address: string, } | { "code": "model", problem: AiProblem, detail: string, };

export type BookSetting = "scan_depth" | "token_budget";

export type NoteNumber = "character_note_depth" | "authors_note_depth" | "authors_note_interval";

export type ServerView = { 
/**
 * The address, normalised (`http://127.0.0.1:8000`).
 */
address: string, 
/**
 * The user logged in as, when the server asked for one.
 */
user: string | null, 
/**
 * What the server asked for.
 */
login: ServerLogin, 
/**
 * The password is in the system's secret store for this server and
 * user.
 */
password_saved: boolean, 
/**
 * Why the password could not be remembered, when that was asked.
 */
not_remembered: string | null, };

export type AiConfigView = { address: string, model: string, 
/**
 * The model's context, in tokens.
 */
context: number, 
/**
 * A key is in the system's secret store for this address.
 */
key_saved: boolean, 
/**
 * A key is held for this session (typed, or read from the store).
 */
key_held: boolean, 
/**
 * Why the key could not be remembered, when that was asked.
 */
not_remembered: string | null, 
/**
 * The folder whose `<action>.md` files replace the built-in prompts.
 */
prompts_folder: string, };

export type AiAction = "draft" | "keys" | "shorten" | "review";

export type AiAsk = { action: AiAction, 
/**
 * The entry of keys and shorten.
 */
entry: number | null, 
/**
 * The entries a review reads; empty: the whole book.
 */
entries: Array<number>, 
/**
 * A draft's source text (the chat's selection, or pasted); `None`:
 * the whole chat.
 */
source: string | null, 
/**
 * The size asked for: a draft's entries, shorten's result.
 */
tokens: number, max_entries: number, 
/**
 * The built-in prompts' language (`en`, `pt-BR`).
 */
lang: string, };

export type AiMerge = "new" | "changed" | "same";

export type AiSuggestionView = { 
/**
 * Its place in the run, for accepting it.
 */
index: number, name: string, keys: Array<string>, secondary_keys: Array<string>, content: string, merge: AiMerge, target: number | null, target_name: string | null, locked: boolean, fires_on_source: boolean | null, 
/**
 * The requests of the chat it activates in.
 */
requests: Array<number>, tokens: number, kept_by_budget: boolean, 
/**
 * The requests of the chat where the budget cut it.
 */
cut_in: Array<number>, problems: Array<string>, passed: boolean, failed: Array<AiFailed>, };

export type AiFailed = { "code": "locked" } | { "code": "same" } | { "code": "no_name" } | { "code": "empty_content" } | { "code": "no_fire_on_source" } | { "code": "cut_by_budget" } | { "code": "over_size", tokens: number, max: number, } | { "code": "lint", codes: Array<string>, };

export type AiFindingView = { kind: string, entries: Array<string>, ids: Array<number>, note: string, 
/**
 * What the preview says of it.
 */
preview: AiVerdict | null, };

export type AiVerdict = { "kind": "names_no_entry" } | { "kind": "activations", total: number, each: Array<AiActivations>, };

export type AiActivations = { id: number, name: string, requests: number, };

export type AiRunView = { doc: number, action: AiAction, suggestions: Array<AiSuggestionView>, findings: Array<AiFindingView>, prompt_tokens: number, 
/**
 * The chat's requests the checks ran over.
 */
chat_requests: number, 
/**
 * Requests made to the endpoint (the transcript's length).
 */
exchanges: number, };

export type AiProblem = "bad_address" | "unreachable" | "timed_out" | "stalled" | "cancelled" | "wrong_key" | "refused" | "model_error" | "malformed" | "truncated" | "too_large" | "prompt_too_large" | "invalid" | "not_configured" | "busy" | "no_run" | "secret_store";

export type LastServer = { address: string, user: string | null, 
/**
 * A password for them is in the system's secret store.
 */
password_saved: boolean, };

export type ServerLogin = "open" | "basic" | "account" | "basic_and_account";

export type ServerBookView = { 
/**
 * Its name on the server (the file name without `.json`).
 */
file_id: string, 
/**
 * The name inside the file, when it has one.
 */
name: string, 
/**
 * The open tab of it, if any.
 */
open: number | null, };

export type ServerCharacterView = { name: string, 
/**
 * Its card's file name: what the server names it by.
 */
avatar: string, 
/**
 * The book linked to it in SillyTavern, if any.
 */
world: string | null, 
/**
 * Its chat files (names without `.jsonl`).
 */
chats: Array<string>, };

export type ServerBookRef = { address: string, user: string | null, file_id: string, };

export type ServerProblem = "bad_address" | "unreachable" | "timed_out" | "not_sillytavern" | "redirected" | "needs_login" | "wrong_password" | "too_many_attempts" | "forbidden" | "refused" | "too_large" | "malformed" | "no_such_book" | "no_such_chat" | "bad_name" | "record" | "secret_store";

export type ServerChange = "edited" | "deleted" | "never_pulled";

export type SavedSetting = "model" | "tokenizer_file";

export type RowTokens = { id: number, tokens: number, };

export type TokenStep = { counts: Array<RowTokens>, next: number | null, };

export type StNotePosition = "after_main" | "in_chat" | "before_main";

export type StCharacterNoteView = { text: string, 
/**
 * Chat depth, a whole number 0–10000.
 */
depth: number, role: Role, };

export type StAuthorsNoteView = { text: string, 
/**
 * Insertion frequency: 1 every request, N every Nth user message,
 * 0 never. A whole number 0–10000.
 */
interval: number, position: StNotePosition, 
/**
 * Chat depth when in the chat, a whole number 0–10000.
 */
depth: number, role: Role, };

export type StInputsView = { 
/**
 * The persona description (SillyTavern's Persona Management).
 */
persona: string, description: string | null, personality: string | null, scenario: string | null, 
/**
 * Example messages (`mes_example`).
 */
examples: string | null, creator_notes: string | null, 
/**
 * The character's note (`extensions.depth_prompt`).
 */
character_note: StCharacterNoteView | null, authors_note: StAuthorsNoteView, };

export type StCardView = { 
/**
 * The book (document) the card came with, and its name.
 */
doc: number, name: string, description: string, personality: string, scenario: string, examples: string, creator_notes: string, 
/**
 * `None` when the card has no character's note.
 */
character_note: StCharacterNoteView | null, 
/**
 * Whether the card has its own system prompt, which replaces
 * SillyTavern's main prompt.
 */
system_prompt: boolean, };

export type LintEntryRef = { book: number, id: number, };

export type Span = { "kind": "entry" } | { "kind": "key", secondary: boolean, index: number, } | { "kind": "content", start: number, end: number, };

export type Fix = { "kind": "remove_key", secondary: boolean, index: number, } | { "kind": "clear_secondary_keys" } | { "kind": "clear_keys" } | { "kind": "set_selective", value: boolean, } | { "kind": "delete_content", start: number, end: number, } | { "kind": "replace_content", start: number, end: number, text: string, };

export type NeverReason = "empty" | "space_in_full_word" | "regex_no_slash" | "regex_no_flags" | "split_at_comma";

export type CommonReason = { "reason": "chat", matched: number, messages: number, } | { "reason": "single_letter" } | { "reason": "stop_word", language: string, } | { "reason": "short" } | { "reason": "whitespace" };

export type Contradiction = { "reason": "keep_gated" } | { "reason": "activate_wins" } | { "reason": "no_request", messages: number, };

export type NoEffectReason = { "reason": "other_rules", rules: string, } | { "reason": "repeated", winner: number, } | { "reason": "constant" } | { "reason": "lone_fallback" } | { "reason": "risu_ignores" } | { "reason": "no_key" };

export type Finding = { "code": "key_never_matches", key: string, reason: NeverReason, } | { "code": "regex_invalid", key: string, error: string, plain: boolean, } | { "code": "regex_matches_empty", key: string, } | { "code": "regex_rewritten", key: string, pattern: string, } | { "code": "key_too_common", key: string, } & ({ "reason": "chat", matched: number, messages: number, } | { "reason": "single_letter" } | { "reason": "stop_word", language: string, } | { "reason": "short" } | { "reason": "whitespace" }) | { "code": "duplicate_key", key: string, others: Array<LintEntryRef>, more: number, 
/**
 * What sharing it does, when that is a problem (a warning).
 */
effect?: DuplicateEffect | null, } | { "code": "key_contains_other", key: string, other: LintEntryRef, other_key: string, } | { "code": "secondary_unused", count: number, } | { "code": "constant_with_keys", count: number, } | { "code": "selective_without_secondary" } | { "code": "no_keys" } | { "code": "decorator_unknown", name: string, } | { "code": "decorator_bad_argument", decorator: string, problem: ArgProblem, } | { "code": "decorator_contradictory", first: string, second: string, } & ({ "reason": "keep_gated" } | { "reason": "activate_wins" } | { "reason": "no_request", messages: number, }) | { "code": "decorator_no_effect", decorator: string, } & ({ "reason": "other_rules", rules: string, } | { "reason": "repeated", winner: number, } | { "reason": "constant" } | { "reason": "lone_fallback" } | { "reason": "risu_ignores" } | { "reason": "no_key" }) | { "code": "entry_over_budget", tokens: number, budget: number, assumed: boolean, } | { "code": "constants_over_budget", tokens: number, budget: number, count: number, assumed: boolean, } | { "code": "never_survives", tokens: number, constants: number, budget: number, assumed: boolean, } | { "code": "recursion_loop", cycle: Array<LintEntryRef>, dead: boolean, } | { "code": "recursion_too_deep", chain: Array<LintEntryRef>, limit: number, } | { "code": "content_empty" } | { "code": "macro_as_text", text: string, reason: MacroLeft, engine: MacroEngine, } | { "code": "content_duplicate", others: Array<LintEntryRef>, more: number, } | { "code": "name_duplicate", name: string, others: Array<LintEntryRef>, more: number, };

export type DuplicateEffect = { "kind": "same_text", other: LintEntryRef, } | { "kind": "same_group", group: string, } | { "kind": "always_cut", requests: number, };

export type Problem = { entry: LintEntryRef, severity: Severity, span: Span, fix: Fix | null, } & ({ "code": "key_never_matches", key: string, reason: NeverReason, } | { "code": "regex_invalid", key: string, error: string, plain: boolean, } | { "code": "regex_matches_empty", key: string, } | { "code": "regex_rewritten", key: string, pattern: string, } | { "code": "key_too_common", key: string, } & ({ "reason": "chat", matched: number, messages: number, } | { "reason": "single_letter" } | { "reason": "stop_word", language: string, } | { "reason": "short" } | { "reason": "whitespace" }) | { "code": "duplicate_key", key: string, others: Array<LintEntryRef>, more: number, 
/**
 * What sharing it does, when that is a problem (a warning).
 */
effect?: DuplicateEffect | null, } | { "code": "key_contains_other", key: string, other: LintEntryRef, other_key: string, } | { "code": "secondary_unused", count: number, } | { "code": "constant_with_keys", count: number, } | { "code": "selective_without_secondary" } | { "code": "no_keys" } | { "code": "decorator_unknown", name: string, } | { "code": "decorator_bad_argument", decorator: string, problem: ArgProblem, } | { "code": "decorator_contradictory", first: string, second: string, } & ({ "reason": "keep_gated" } | { "reason": "activate_wins" } | { "reason": "no_request", messages: number, }) | { "code": "decorator_no_effect", decorator: string, } & ({ "reason": "other_rules", rules: string, } | { "reason": "repeated", winner: number, } | { "reason": "constant" } | { "reason": "lone_fallback" } | { "reason": "risu_ignores" } | { "reason": "no_key" }) | { "code": "entry_over_budget", tokens: number, budget: number, assumed: boolean, } | { "code": "constants_over_budget", tokens: number, budget: number, count: number, assumed: boolean, } | { "code": "never_survives", tokens: number, constants: number, budget: number, assumed: boolean, } | { "code": "recursion_loop", cycle: Array<LintEntryRef>, dead: boolean, } | { "code": "recursion_too_deep", chain: Array<LintEntryRef>, limit: number, } | { "code": "content_empty" } | { "code": "macro_as_text", text: string, reason: MacroLeft, engine: MacroEngine, } | { "code": "content_duplicate", others: Array<LintEntryRef>, more: number, } | { "code": "name_duplicate", name: string, others: Array<LintEntryRef>, more: number, });

export type EntryCoverage = { book: number, id: number, 
/**
 * Requests where it activated (by a key, as a constant, or kept),
 * whatever happened next.
 */
matched: number, injected: number, cut_by_budget: number, lost_roll: number, };

export type Advice = { book: number, id: number, 
/**
 * The requests where it was cut.
 */
cut_in: Array<number>, 
/**
 * Its effective priority (decorators applied).
 */
priority: number, 
/**
 * The smallest raise of its priority after which it survives all of
 * them, others unchanged; `None` when no priority is enough (the
 * constants and its own tokens alone exceed the budget).
 */
priority_change: number | null, 
/**
 * Its tokens.
 */
tokens: number, 
/**
 * The fewest tokens it must lose, priority unchanged; `None` when
 * shrinking alone cannot help (an entry ranked before it is cut
 * too, or the constants fill the budget).
 */
tokens_to_lose: number | null, };

export type LintedBook = { doc: number, name: string, };

export type LintName = { entry: LintEntryRef, name: string, };

export type ProblemsView = { doc: number, rules: Rules, 
/**
 * Whether the loaded chat was read (the checks that need a chat ran).
 */
chat: boolean, books: Array<LintedBook>, 
/**
 * Every problem of book `doc` in entry order, hints included unless
 * they were left out (`hidden_hints`).
 */
problems: Array<Problem>, 
/**
 * The names of the entries the problems point at and name.
 */
names: Array<LintName>, 
/**
 * The hints left out of `problems`, counted per code (empty when
 * they are in it): the panel asks for them only when it shows them,
 * since a big book has hundreds of thousands.
 */
hidden_hints: Array<HintCount>, };

export type ProblemsAnswer = { 
/**
 * The view's fingerprint (a hash of its JSON), which the panel sends
 * back as `have` with its next question.
 */
hash: string, 
/**
 * `None` when the view is the one whose fingerprint the panel sent.
 */
view: ProblemsView | null, };

export type HintCount = { code: string, count: number, };

export type EntryAdviceView = { coverage: EntryCoverage, 
/**
 * `None` when the budget never cut it.
 */
advice: Advice | null, };

export type AdviceView = { requests: number, 
/**
 * The budget the requests had.
 */
budget: number, 
/**
 * The tokens the fullest request needs to keep every entry in it.
 */
needed: number, 
/**
 * The smallest allowed budget that keeps every entry that activated;
 * `None` when no budget in the allowed range does.
 */
budget_to_keep_all: number | null, 
/**
 * How many entries the budget cut in at least one request.
 */
cut: number, 
/**
 * How many enabled entries activated in no request.
 */
never_activated: number, 
/**
 * The entry asked about, when it is in an attached book.
 */
entry: EntryAdviceView | null, };

// The name of every command (src-tauri/src/command_list.rs).
export type Command =
  | 'catalog'
  | 'about'
  | 'app_state'
  | 'take_notices'
  | 'new_book'
  | 'open_dialog'
  | 'open_recent'
  | 'pending_imports'
  | 'confirm_import'
  | 'export_report'
  | 'export_dialog'
  | 'save'
  | 'save_as'
  | 'ai_config'
  | 'ai_configure'
  | 'ai_forget_key'
  | 'ai_run'
  | 'ai_cancel'
  | 'ai_accept'
  | 'ai_transcript'
  | 'set_entry_locked'
  | 'st_connect'
  | 'st_disconnect'
  | 'st_last_server'
  | 'st_forget_password'
  | 'st_connection'
  | 'st_books'
  | 'st_open_book'
  | 'st_characters'
  | 'st_use_chat'
  | 'st_use_settings'
  | 'st_use_character'
  | 'check_disk_changes'
  | 'reload_doc'
  | 'close_doc'
  | 'book_settings'
  | 'set_book_settings'
  | 'list_entries'
  | 'get_entry'
  | 'update_entry'
  | 'add_entry'
  | 'duplicate_entries'
  | 'delete_entries'
  | 'bulk_update'
  | 'open_folder_dialog'
  | 'merge_dialog'
  | 'apply_merge'
  | 'cancel_merge'
  | 'save_as_folder'
  | 'add_folder'
  | 'move_to_folder'
  | 'rename_folder'
  | 'folder_entries'
  | 'set_folder_enabled'
  | 'delete_folder'
  | 'undo'
  | 'redo'
  | 'split_keys'
  | 'set_decorator'
  | 'set_chat'
  | 'open_chat_dialog'
  | 'set_attached'
  | 'show_doc'
  | 'set_preview_settings'
  | 'preview'
  | 'preview_log'
  | 'set_menu_labels'
  | 'list_recovered'
  | 'restore_recovered'
  | 'discard_recovered'
  | 'autosave_status'
  | 'set_window_title'
  | 'has_unsaved'
  | 'quit'
  | 'load_prefs'
  | 'save_prefs'
  | 'rules_view'
  | 'set_rules'
  | 'set_st_settings'
  | 'set_chat_vars'
  | 'load_st_settings_dialog'
  | 'set_risu_settings'
  | 'scenarios'
  | 'record_scenario'
  | 'delete_scenario'
  | 'edit_scenario'
  | 'impact'
  | 'impact_steps'
  | 'set_impact_base'
  | 'impact_base_dialog'
  | 'book_figures'
  | 'find_in_book'
  | 'replace_in_book'
  | 'replace_impact'
  | 'timeline'
  | 'set_st_field'
  | 'chat_text'
  | 'edit_chat'
  | 'pick_tokenizer_file'
  | 'clear_tokenizer_file'
  | 'restore_preview_settings'
  | 'count_list_tokens'
  | 'open_sample'
  | 'set_st_inputs'
  | 'lint_problems'
  | 'apply_fix'
  | 'budget_advice';

// The action table of src-tauri/src/menu.rs: menu items, shortcuts, tooltips and dispatch.
export const ACTIONS = [
  {"id":"new_book","group":"file","label":"New Book","accelerator":"CmdOrCtrl+N"},
  {"id":"open","group":"file","label":"Open…","accelerator":"CmdOrCtrl+O"},
  {"id":"save","group":"file","label":"Save","accelerator":"CmdOrCtrl+S"},
  {"id":"save_as","group":"file","label":"Save As…","accelerator":"CmdOrCtrl+Shift+S"},
  {"id":"open_folder","group":"file","label":"Open Folder…","accelerator":""},
  {"id":"save_as_folder","group":"file","label":"Save As Folder…","accelerator":""},
  {"id":"connect_sillytavern","group":"file","label":"SillyTavern Server…","accelerator":""},
  {"id":"import","group":"file","label":"Import…","accelerator":"CmdOrCtrl+I"},
  {"id":"merge","group":"file","label":"Merge a Book Into This One…","accelerator":""},
  {"id":"export","group":"file","label":"Export As…","accelerator":"CmdOrCtrl+Shift+E"},
  {"id":"open_chat","group":"file","label":"Open Chat…","accelerator":"CmdOrCtrl+Shift+O"},
  {"id":"close_book","group":"file","label":"Close Book","accelerator":"CmdOrCtrl+W"},
  {"id":"quit","group":"file","label":"Quit","accelerator":"CmdOrCtrl+Q"},
  {"id":"undo","group":"edit","label":"Undo","accelerator":"CmdOrCtrl+Z"},
  {"id":"redo","group":"edit","label":"Redo","accelerator":"CmdOrCtrl+Shift+Z"},
  {"id":"find","group":"edit","label":"Find Entries","accelerator":"CmdOrCtrl+F"},
  {"id":"new_entry","group":"edit","label":"New Entry","accelerator":"CmdOrCtrl+E"},
  {"id":"duplicate_entry","group":"edit","label":"Duplicate Entry","accelerator":"CmdOrCtrl+D"},
  {"id":"next_entry","group":"edit","label":"Next Entry","accelerator":"Alt+Down"},
  {"id":"previous_entry","group":"edit","label":"Previous Entry","accelerator":"Alt+Up"},
  {"id":"reroll","group":"preview","label":"Reroll Seed","accelerator":"CmdOrCtrl+R"},
  {"id":"ai_assistant","group":"preview","label":"AI Assistant…","accelerator":""},
  {"id":"toggle_theme","group":"preview","label":"Toggle Theme","accelerator":"CmdOrCtrl+Shift+L"},
  {"id":"user_guide","group":"help","label":"User Guide","accelerator":"F1"},
  {"id":"shortcuts","group":"help","label":"Keyboard Shortcuts","accelerator":""},
  {"id":"about","group":"help","label":"About Lorebook Studio","accelerator":""},
] as const;

export type ActionId = (typeof ACTIONS)[number]['id'];

// Every report note code, in the order of the variants (Note::examples).
export const NOTE_CODES = [
  'clamped',
  'id_used_twice',
  'id_not_whole',
  'no_id',
  'uid_used_twice',
  'no_usable_uid',
  'uid_not_whole',
  'entries_object',
  'read_as',
  'not_number_ignored',
  'not_number_default',
  'not_bool',
  'logic_unknown',
  'role_unknown',
  'scan_depth_clamped',
  'whole_words_global',
  'whole_words_to_risu_setting',
  'st_use_regex_ignored',
  'risu_constant',
  'risu_folder',
  'folders_from_paths',
  'no_book_settings',
  'risu_recursion',
  'written_as',
  'disabled_as_decorator',
  'regex_as_literals',
  'key_has_comma',
  'patterns_joined',
  'risu_priority',
  'st_priority',
  'novel_ai_order',
  'position_unknown',
  'st_book_settings',
  'unknown_spec',
  'source_spelling',
  'folders_as_paths',
  'empty_folder',
  'decorator_in_content',
  'decorator_unknown_to_v3',
  'no_decorators_v2',
  'no_decorators',
  'no_secondary_keys',
  'only_and_any',
  'inside_words',
  'case_insensitive',
  'no_regex',
  'no_constant',
  'no_role',
  'no_extensions',
  'source_field_no_place',
  'book_field_no_place',
  'set_per_chat',
  'no_book_name',
  'no_spec_in_bare_book',
  'read_from_chunk',
  'chunk_not_read',
  'chunk_skipped',
  'chunk_added',
  'file_not_read',
  'saved_under_name',
  'stale_file_kept',
  'already_open',
  'charx_assets',
  'risu_module_kept',
  'only_first_character',
  'placeholders_converted',
  'novel_ai_story_read',
  'novel_ai_story_written',
  'card_from_import',
  'minimal_card',
] as const satisfies readonly Note['code'][];

// The ranges of SillyTavern's World Info settings (sillytavern::ST_RANGES).
export const ST_RANGES: readonly StRange[] = [
  { setting: "depth", min: 0, max: 1000 },
  { setting: "budget_percent", min: 1, max: 100 },
  { setting: "budget_cap", min: 0, max: 65536 },
  { setting: "max_context", min: 1, max: 2000000 },
  { setting: "max_recursion_steps", min: 0, max: 10 },
  { setting: "min_activations", min: 0, max: 100 },
  { setting: "min_activations_depth_max", min: 0, max: 100 },
];

// SillyTavern's `position` numbers (sillytavern::Position::from_st): the code of number n at index n.
export const ST_POSITIONS = [
  'before',
  'after',
  'an_top',
  'an_bottom',
  'at_depth',
  'em_top',
  'em_bottom',
  'outlet',
] as const satisfies readonly Position[];

// SillyTavern's `role` numbers (model::Role::from_st): the code of number n at index n.
export const ST_ROLES = [
  'system',
  'user',
  'assistant',
] as const satisfies readonly Role[];

// SillyTavern's `selectiveLogic` numbers (model::SecondaryLogic::from_st): the code of number n at index n.
export const ST_LOGICS = [
  'and_any',
  'not_all',
  'not_any',
  'and_all',
] as const satisfies readonly SecondaryLogic[];

// The deepest in-chat injection SillyTavern makes (MAX_INJECTION_DEPTH).
export const MAX_INJECTION_DEPTH = 10000;

// The guide's recursion passes at most (activation::RECURSION_LIMIT).
export const RECURSION_LIMIT = 3;

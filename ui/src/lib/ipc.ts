// The one module that talks to Tauri. Components call `api.*` and `onEvent`;
// unit tests mock this module (or `@tauri-apps/api`) in one place.
import { invoke } from '@tauri-apps/api/core';
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type {
  ListPatch,
  LastServer,
  ServerBookView,
  ServerCharacterView,
  ServerView,
  DiskChange,
  AppError,
  Command,
  ErrorCode,
  ErrorKind,
  AppStateView,
  BookSettings,
  ChatStatus,
  BulkPatch,
  About,
  Catalog,
  Entry,
  EntryDetail,
  EntryRow,
  ExportFormat,
  ImportOutcome,
  ListQuery,
  TokenStep,
  Notice,
  PendingImport,
  Report,
  LogRow,
  OpenResult,
  PreviewAnswer,
  Prefs,
  RecoveredBook,
  Settings,
  Rules,
  RulesView,
  StEdit,
  RisuSettingsView,
  ScenariosView,
  ScenarioEdit,
  TimelineView,
  ImpactView,
  StSettingsView,
  StInputsView,
  ProblemsAnswer,
  Fix,
  AdviceView,
  EntryEdited,
  PreviewAsk,
  ImpactStepView,
  ImpactBaseAsk,
  BookFiguresView,
  FindAsk,
  FindView,
  MatchRef,
  FolderContents,
  MergeView,
  MergeChoices,
  MergeSummary,
  SaveResult,
  AiAsk,
  AiConfigView,
  AiRunView,
} from './bindings';

/** An error from a command, as `{kind, message, code}`: `code` words it in
 *  the UI's language (`errorText`). Every error from Rust has one (AppError);
 *  `null` is for a failure of the invoke itself, which has only a message. */
export class IpcError extends Error implements Omit<AppError, 'code'> {
  kind: ErrorKind;
  code: ErrorCode | null;
  constructor(kind: ErrorKind, message: string, code: ErrorCode | null = null) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}

/** Normalizes whatever a failed invoke threw into an IpcError. */
export function toIpcError(e: unknown): IpcError {
  if (e instanceof IpcError) return e;
  if (e && typeof e === 'object' && 'kind' in e && 'message' in e) {
    const o = e as { kind: unknown; message: unknown; code?: unknown };
    // The Rust side serializes only `ErrorKind` and `ErrorCode` values (see error.rs).
    const code = o.code && typeof o.code === 'object' && 'code' in o.code ? (o.code as ErrorCode) : null;
    return new IpcError(String(o.kind) as ErrorKind, String(o.message), code);
  }
  return new IpcError('internal', e instanceof Error ? e.message : String(e));
}

async function call<T>(cmd: Command, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw toIpcError(e);
  }
}

export const api = {
  catalog: () => call<Catalog>('catalog'),
  about: () => call<About>('about'),
  appState: () => call<AppStateView>('app_state'),
  takeNotices: () => call<Notice[]>('take_notices'),
  /** `name`: the UI's words for a new book's name. */
  newBook: (name: string) => call<number>('new_book', { name }),
  openDialog: (importing: boolean) => call<ImportOutcome[]>('open_dialog', { import: importing }),
  pendingImports: () => call<PendingImport[]>('pending_imports'),
  confirmImport: (id: number, accept: boolean) => call<number | null>('confirm_import', { id, accept }),
  exportReport: (doc: number, format: ExportFormat) => call<Report>('export_report', { doc, format }),
  exportDialog: (doc: number, format: ExportFormat, intoCard: boolean) =>
    call<string>('export_dialog', { doc, format, intoCard }),
  /** Opens as Open does: a native book at once, anything else (a book
   *  that now needs repair) as an import waiting for confirmation. */
  openRecent: (path: string) => call<ImportOutcome>('open_recent', { path }),
  /** `overwrite` saves over a file that changed on disk since it was
   *  opened; without it that is a `changed_on_disk` error. */
  save: (doc: number, overwrite = false) => call<SaveResult>('save', { doc, overwrite }),
  saveAs: (doc: number) => call<SaveResult>('save_as', { doc }),
  /** The author's model endpoint in force (never its key). */
  aiConfig: () => call<AiConfigView | null>('ai_config'),
  /** Sets the endpoint; a key typed is held by Rust for the session and,
   *  with `remember`, put in the system's secret store. */
  aiConfigure: (address: string, model: string, context: number, key: string | null, remember: boolean) =>
    call<AiConfigView>('ai_configure', { address, model, context, key, remember }),
  aiForgetKey: () => call<AiConfigView | null>('ai_forget_key'),
  /** Runs an AI action on a book (progress: the `ai-progress` event). */
  aiRun: (doc: number, ask: AiAsk) => call<AiRunView>('ai_run', { doc, ask }),
  aiCancel: () => call<null>('ai_cancel'),
  /** Takes the last run's suggestions at `picks` as one undo step. */
  aiAccept: (doc: number, picks: number[]) => call<number[]>('ai_accept', { doc, picks }),
  /** The last run's requests and answers, as JSON. */
  aiTranscript: () => call<string>('ai_transcript'),
  setEntryLocked: (doc: number, id: number, locked: boolean) =>
    call<EntryDetail>('set_entry_locked', { doc, id, locked }),
  /** Connects to a running SillyTavern (Rust talks to it; the password is
   *  used for the login the server asks for and kept in memory only). */
  stConnect: (address: string, user: string | null, password: string | null, remember: boolean) =>
    call<ServerView>('st_connect', { address, user, password, remember }),
  /** The last server connected to (address and user; never a password). */
  stLastServer: () => call<LastServer | null>('st_last_server'),
  stForgetPassword: (address: string, user: string) => call<void>('st_forget_password', { address, user }),
  stDisconnect: () => call<void>('st_disconnect'),
  stConnection: () => call<ServerView | null>('st_connection'),
  stBooks: () => call<ServerBookView[]>('st_books'),
  /** Opens a server's book as a tab whose Save sends it back there. */
  stOpenBook: (fileId: string) => call<OpenResult>('st_open_book', { fileId }),
  stCharacters: () => call<ServerCharacterView[]>('st_characters'),
  stUseChat: (avatar: string, chat: string) => call<AppStateView>('st_use_chat', { avatar, chat }),
  stUseSettings: () => call<RulesView>('st_use_settings'),
  stUseCharacter: (avatar: string) => call<RulesView>('st_use_character', { avatar }),
  openFolderDialog: () => call<ImportOutcome>('open_folder_dialog'),
  mergeDialog: (doc: number) => call<MergeView>('merge_dialog', { doc }),
  applyMerge: (doc: number, choices: MergeChoices) => call<MergeSummary>('apply_merge', { doc, choices }),
  cancelMerge: () => call<void>('cancel_merge'),
  saveAsFolder: (doc: number) => call<SaveResult>('save_as_folder', { doc }),
  /** The open, unmodified books whose files changed on disk. */
  checkDiskChanges: () => call<DiskChange[]>('check_disk_changes'),
  reloadDoc: (doc: number, unlessEdited: boolean) => call<boolean>('reload_doc', { doc, unlessEdited }),
  closeDoc: (doc: number) => call<void>('close_doc', { doc }),
  bookSettings: (doc: number) => call<BookSettings>('book_settings', { doc }),
  setBookSettings: (doc: number, settings: BookSettings) => call<void>('set_book_settings', { doc, settings }),
  listEntries: (doc: number, query: ListQuery, have: number | null, changed: number[]) =>
    call<ListPatch>('list_entries', { doc, query, have, changed }),
  getEntry: (doc: number, id: number) => call<EntryDetail>('get_entry', { doc, id }),
  /** Stores the edited entry; the answer carries the workspace's state and,
   *  when `preview` names the one shown, that preview (one round trip). */
  updateEntry: (doc: number, entry: Entry, preview: PreviewAsk | null = null) =>
    call<EntryEdited>('update_entry', { doc, entry, preview }),
  addEntry: (doc: number) => call<number>('add_entry', { doc }),
  /** `copyName` words a copy's name, with `{name}` for the original's. */
  duplicateEntries: (doc: number, ids: number[], copyName: string) => call<number[]>('duplicate_entries', { doc, ids, copyName }),
  deleteEntries: (doc: number, ids: number[]) => call<void>('delete_entries', { doc, ids }),
  bulkUpdate: (doc: number, ids: number[], patch: BulkPatch) => call<void>('bulk_update', { doc, ids, patch }),
  addFolder: (doc: number, name: string, parent: number | null) => call<number>('add_folder', { doc, name, parent }),
  moveToFolder: (doc: number, ids: number[], into: number | null) => call<void>('move_to_folder', { doc, ids, into }),
  renameFolder: (doc: number, id: number, name: string) => call<void>('rename_folder', { doc, id, name }),
  folderEntries: (doc: number, id: number) => call<number[]>('folder_entries', { doc, id }),
  setFolderEnabled: (doc: number, id: number, enabled: boolean) =>
    call<void>('set_folder_enabled', { doc, id, enabled }),
  deleteFolder: (doc: number, id: number, contents: FolderContents) =>
    call<void>('delete_folder', { doc, id, contents }),
  undo: (doc: number) => call<boolean>('undo', { doc }),
  redo: (doc: number) => call<boolean>('redo', { doc }),
  splitKeys: (text: string) => call<string[]>('split_keys', { text }),
  setDecorator: (content: string, name: string, arg: string | null, present: boolean) =>
    call<string>('set_decorator', { content, name, arg, present }),
  /** The chat typed for book `doc` (`null`: the shown book's). */
  setChat: (text: string, doc: number | null = null) => call<ChatStatus>('set_chat', { text, doc }),
  /** Shows book `doc`'s tab: the preview runs on it, with its own chat. */
  showDoc: (doc: number) => call<void>('show_doc', { doc }),
  openChatDialog: () => call<AppStateView>('open_chat_dialog'),
  setAttached: (doc: number, attached: boolean) => call<void>('set_attached', { doc, attached }),
  setPreviewSettings: (settings: Settings) => call<void>('set_preview_settings', { settings }),
  /** The preview under the rules in force; `ask` names the request and,
   *  under the rules it names, the prompt the UI holds (`have`), which the
   *  answer's prompt is then a change to. */
  preview: (ask: PreviewAsk) => call<PreviewAnswer>('preview', { ask }),
  previewLog: () => call<LogRow[]>('preview_log'),
  /** Rows `offset`… of the activation timeline under the rules in force. */
  timeline: (offset: number, limit: number) => call<TimelineView>('timeline', { offset, limit }),
  setMenuLabels: (labels: Record<string, string>) => call<void>('set_menu_labels', { labels }),
  listRecovered: () => call<RecoveredBook[]>('list_recovered'),
  restoreRecovered: (id: string) => call<number>('restore_recovered', { id }),
  discardRecovered: (id: string) => call<void>('discard_recovered', { id }),
  /** Why recovery copies cannot be written now; `null` while they work. */
  autosaveStatus: () => call<AppError | null>('autosave_status'),
  /** Titles the window; returns the title (the page takes it too). */
  setWindowTitle: (doc: number | null, untitled: string) => call<string>('set_window_title', { doc, untitled }),
  hasUnsaved: () => call<boolean>('has_unsaved'),
  quit: () => call<void>('quit'),
  loadPrefs: () => call<Prefs>('load_prefs'),
  savePrefs: (prefs: Prefs) => call<void>('save_prefs', { prefs }),
  rulesView: () => call<RulesView>('rules_view'),
  setRules: (rules: Rules) => call<RulesView>('set_rules', { rules }),
  setStSettings: (settings: StSettingsView) => call<RulesView>('set_st_settings', { settings }),
  setChatVars: (vars: Record<string, string> | null) => call<RulesView>('set_chat_vars', { vars }),
  loadStSettingsDialog: () => call<RulesView>('load_st_settings_dialog'),
  setRisuSettings: (settings: RisuSettingsView) => call<RulesView>('set_risu_settings', { settings }),
  /** A book's scenarios, each run under the book as edited now. */
  scenarios: (doc: number) => call<ScenariosView>('scenarios', { doc }),
  /** Save as scenario: the preview shown, expecting what it shows now. */
  recordScenario: (doc: number, name: string) => call<ScenariosView>('record_scenario', { doc, name }),
  deleteScenario: (doc: number, name: string) => call<ScenariosView>('delete_scenario', { doc, name }),
  /** Loosens or edits a scenario's expectations (one undo step). */
  editScenario: (doc: number, name: string, edit: ScenarioEdit) => call<ScenariosView>('edit_scenario', { doc, name, edit }),
  /** What the book's unsaved edits change over the chat and the scenarios. */
  impact: (doc: number) => call<ImpactView>('impact', { doc }),
  /** The undo steps the impact can compare with, newest first. */
  impactSteps: (doc: number) => call<ImpactStepView[]>('impact_steps', { doc }),
  /** Compare the impact with the saved version or an undo step from now on. */
  setImpactBase: (doc: number, base: ImpactBaseAsk) => call<ImpactView>('set_impact_base', { doc, base }),
  /** Compare with a file…: a native dialog; `cancelled` when none is chosen. */
  impactBaseDialog: (doc: number) => call<ImpactView>('impact_base_dialog', { doc }),
  /** The book's figures (the Figures panel). */
  bookFigures: (doc: number) => call<BookFiguresView>('book_figures', { doc }),
  /** Find and replace: the matches, and the texts the chosen ones change. */
  findInBook: (doc: number, ask: FindAsk, chosen: MatchRef[] | null) => call<FindView>('find_in_book', { doc, ask, chosen }),
  /** Replaces the chosen matches as one undo step. */
  replaceInBook: (doc: number, ask: FindAsk, chosen: MatchRef[]) => call<number>('replace_in_book', { doc, ask, chosen }),
  /** What the chosen replacements would change over the chat and the scenarios. */
  replaceImpact: (doc: number, ask: FindAsk, chosen: MatchRef[]) => call<ImpactView>('replace_impact', { doc, ask, chosen }),
  setStField: (doc: number, id: number, edit: StEdit) => call<EntryDetail>('set_st_field', { doc, id, edit }),
  chatText: () => call<string>('chat_text'),
  /** A typed change to the chat, in UTF-16 units; `len` is the length of
   *  the chat Rust is believed to hold (refused when it is not). */
  editChat: (at: number, remove: number, insert: string, len: number, doc: number | null = null) =>
    call<ChatStatus>('edit_chat', { at, remove, insert, len, doc }),
  /** Custom file… of the model picker: a native dialog, then the file counts. */
  pickTokenizerFile: () => call<AppStateView>('pick_tokenizer_file'),
  clearTokenizerFile: () => call<void>('clear_tokenizer_file'),
  /** The preview settings of the last run, with notices for what was dropped. */
  restorePreviewSettings: () => call<Notice[]>('restore_preview_settings'),
  /** The token counts a list was sent without, from entry position `from`. */
  countListTokens: (doc: number, from: number) => call<TokenStep>('count_list_tokens', { doc, from }),
  /** The bundled sample book (and its chat when none is set) as a new book. */
  openSample: () => call<number>('open_sample'),
  /** The persona, character and Author's Note texts of the SillyTavern preview. */
  setStInputs: (inputs: StInputsView) => call<RulesView>('set_st_inputs', { inputs }),
  /** The lint problems of book `doc` under the preview's rules. */
  lintProblems: (doc: number, hints: boolean, have: string | null) => call<ProblemsAnswer>('lint_problems', { doc, hints, have }),
  /** Applies a problem's quick fix to entry `id` as one undo step. */
  applyFix: (doc: number, id: number, fix: Fix) => call<EntryDetail>('apply_fix', { doc, id, fix }),
  /** The budget advice of the chat's request log (`null` under
   *  SillyTavern's rules), with entry `[doc, id]`'s own. */
  budgetAdvice: (entry: [number, number] | null) => call<AdviceView | null>('budget_advice', { entry }),
};

/** Listens to an app event; returns the function that stops listening. */
export function onEvent<T>(name: string, handler: (payload: T) => void): Promise<UnlistenFn> {
  return listen<T>(name, (e) => handler(e.payload));
}

// The engine's diagnostics and gate details arrive as a code with parameters
// (see crates/engine/src/diagnostic.rs); this module words them through the
// message catalog, so each language shows its own sentence. A code's message
// is the catalog key `<prefix>.<code>` with the same parameter names.

import type { ArgProblem, ChatError, ChatProblem, ChatWarning, DiagnosticMessage, GateDetail } from './bindings';
import type { MessageKey } from './i18n';

/** Formats a catalog message in the current language (the studio's `t`). */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

// Every code of each union. The type checker keeps these exhaustive: a code
// added in Rust fails `npm run check` until it is listed here, and the
// catalog test then demands its message in both languages.
const diagnosticCodes = {
  fallback_without_previous: 0,
  empty_decorator_name: 0,
  unknown_decorator: 0,
  bad_argument: 0,
  repeated: 0,
  invalid_regex: 0,
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

/** The catalog key of every code the engine can send. */
export const codeKeys: MessageKey[] = [
  ...Object.keys(chatCodes).map((c) => `chat.${c}` as MessageKey),
  ...Object.keys(chatWarningCodes).map((c) => `chatWarning.${c}` as MessageKey),
  ...Object.keys(diagnosticCodes).map((c) => `diag.${c}` as MessageKey),
  ...Object.keys(argCodes).map((c) => `arg.${c}` as MessageKey),
  ...Object.keys(gateCodes).map((c) => `gate.${c}` as MessageKey),
];

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

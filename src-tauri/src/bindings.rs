//! The TypeScript declarations of every type crossing the IPC boundary,
//! generated from the Rust types with ts-rs into `ui/src/lib/bindings.ts`.
//!
//! `cargo test` fails when that file is stale; run
//! `UPDATE_BINDINGS=1 cargo test -p lorebook-studio bindings` to rewrite it.

use ts_rs::TS;

/// The whole generated file.
pub fn render() -> String {
    let mut out = String::from(
        "// Generated from the Rust types by ts-rs (src-tauri/src/bindings.rs). Do not edit.\n\
         // 64-bit integers travel as JSON numbers: entry ids stay within 2^53 - 1 (model::MAX_ID), and\n\
         // the JSON an entry carries (extensions, unknown fields) is never taken back from the UI.\n\n\
         export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n",
    );
    macro_rules! decl {
        ($($t:ty),* $(,)?) => {
            $(
                out.push_str("\nexport ");
                out.push_str(&<$t>::decl().replace("bigint", "number"));
                out.push('\n');
            )*
        };
    }
    use crate::error::AppError;
    use crate::views::*;
    use lorebook_engine::{chat, decorators, diagnostic, explain, model, preview, prompt};
    decl!(
        crate::error::ErrorKind,
        AppError,
        model::Book,
        model::Entry,
        model::Role,
        model::SecondaryLogic,
        decorators::Decorators,
        decorators::LineStatus,
        decorators::DecoratorLine,
        diagnostic::Severity,
        diagnostic::ArgProblem,
        diagnostic::PatternLimit,
        diagnostic::DiagnosticMessage,
        diagnostic::Diagnostic,
        chat::Speaker,
        chat::Message,
        chat::ChatProblem,
        chat::ChatError,
        chat::ChatWarning,
        prompt::Block,
        prompt::Template,
        prompt::Origin,
        prompt::PromptMessage,
        preview::Settings,
        explain::Source,
        explain::KeyMatch,
        explain::Activation,
        explain::Roll,
        explain::GateDetail,
        explain::DropReason,
        explain::Injected,
        explain::Dropped,
        explain::BudgetUse,
        explain::EntryKey,
        explain::RequestResult,
        explain::Unlisted,
        DocSummary,
        DiskChange,
        AppStateView,
        BookSettings,
        EntryFilter,
        SortKey,
        ListQuery,
        ListPatch,
        EntryRow,
        EntryDetail,
        BulkPatch,
        crate::workspace::FolderContents,
        MergeAlone,
        MergeField,
        MergePair,
        MergeView,
        lorebook_engine::merge::Take,
        lorebook_engine::merge::PairChoice,
        lorebook_engine::merge::MergeChoices,
        lorebook_engine::merge::MergeSummary,
        OpenResult,
        SaveResult,
        AttachedBook,
        EntryName,
        SourceText,
        ChatStatus,
        EntryRef,
        PreviewView,
        PromptPatch,
        OmittedDropped,
        StOmittedDropped,
        explain::DropReasonKind,
        LogEntry,
        TimelineRow,
        TimelineView,
        LogRow,
        DecoratorInfo,
        Catalog,
        About,
        AboutTokenizer,
        lorebook_engine::formats::Format,
        lorebook_engine::formats::ExportFormat,
        lorebook_engine::formats::report::Direction,
        lorebook_engine::formats::report::FieldNote,
        lorebook_engine::formats::report::Section,
        lorebook_engine::formats::report::EntryReport,
        lorebook_engine::formats::Report,
        PendingImport,
        ImportOutcome,
        Notice,
        ExportChoice,
        crate::workspace::recovery::RecoveredBook,
        crate::prefs::Prefs,
        Rules,
        StSettingsView,
        RulesView,
        ScenarioItem,
        ScenariosView,
        ExpectedView,
        ScenarioEdit,
        ImpactAgainst,
        ImpactBaseAsk,
        ImpactStepView,
        ImpactEntry,
        ImpactMove,
        ImpactRow,
        ScenarioFlip,
        ImpactView,
        BookFiguresView,
        lorebook_engine::replace::Field,
        FindAsk,
        FoundMatch,
        MatchRef,
        ReplaceEditView,
        FindView,
        lorebook_engine::figures::BookFigures,
        lorebook_engine::figures::EntryTokens,
        lorebook_engine::figures::FolderTotals,
        lorebook_engine::figures::ChatFigures,
        lorebook_engine::scenario::Verdict,
        lorebook_engine::scenario::Failure,
        lorebook_engine::profile::Reason,
        PreviewAsk,
        PreviewAnswer,
        EntryEdited,
        lorebook_engine::formats::st_fields::StField,
        StEdit,
        StInjectedView,
        StDroppedView,
        StPreviewView,
        RisuSettingsView,
        RisuDecoratorInfo,
        RisuInjectedView,
        RisuDroppedView,
        RisuFailureView,
        RisuPreviewView,
        RisuPromptView,
        RisuAbsentView,
        lorebook_engine::risu::prompt::RisuPromptMessage,
        lorebook_engine::risu::prompt::RisuSource,
        lorebook_engine::risu::RisuWhy,
        lorebook_engine::risu::RisuDrop,
        lorebook_engine::risu::Found,
        lorebook_engine::risu::matching::RegexEnd,
        FamilyView,
        StPromptPatch,
        StPromptMessageView,
        StPromptSourceView,
        StAbsentView,
        lorebook_engine::sillytavern::Position,
        lorebook_engine::sillytavern::PromptBlock,
        lorebook_engine::sillytavern::AbsentReason,
        lorebook_engine::formats::ImportReason,
        lorebook_engine::formats::ExportReason,
        lorebook_engine::sillytavern::StReason,
        lorebook_engine::sillytavern::GroupLoss,
        lorebook_engine::sillytavern::StDetail,
        lorebook_engine::formats::report::Note,
        lorebook_engine::sillytavern::DropKind,
        lorebook_engine::sillytavern::StRanged,
        lorebook_engine::sillytavern::macros::MacroEngine,
        lorebook_engine::sillytavern::macros::check::MacroLeft,
        lorebook_engine::sillytavern::macros::trace::MacroDecision,
        lorebook_engine::sillytavern::macros::trace::Branch,
        lorebook_engine::sillytavern::StRange,
        crate::error::ErrorCode,
        crate::error::BookSetting,
        crate::error::NoteNumber,
        ServerView,
        AiConfigView,
        AiAction,
        AiAsk,
        AiMerge,
        AiSuggestionView,
        AiFailed,
        AiFindingView,
        AiVerdict,
        AiActivations,
        AiRunView,
        AiProblem,
        LastServer,
        ServerLogin,
        ServerBookView,
        ServerCharacterView,
        ServerBookRef,
        ServerProblem,
        ServerChange,
        SavedSetting,
        RowTokens,
        TokenStep,
        StNotePosition,
        StCharacterNoteView,
        StAuthorsNoteView,
        StInputsView,
        StCardView,
        lorebook_engine::lint::EntryRef,
        lorebook_engine::lint::Span,
        lorebook_engine::lint::Fix,
        lorebook_engine::lint::NeverReason,
        lorebook_engine::lint::CommonReason,
        lorebook_engine::lint::Contradiction,
        lorebook_engine::lint::NoEffectReason,
        lorebook_engine::lint::Finding,
        lorebook_engine::lint::DuplicateEffect,
        lorebook_engine::lint::Problem,
        lorebook_engine::lint::EntryCoverage,
        lorebook_engine::lint::Advice,
        LintedBook,
        LintName,
        ProblemsView,
        ProblemsAnswer,
        HintCount,
        EntryAdviceView,
        AdviceView,
    );
    out.push_str(
        "\n// The name of every command (src-tauri/src/command_list.rs).\nexport type Command =",
    );
    for name in crate::COMMANDS {
        out.push_str(&format!("\n  | '{name}'"));
    }
    out.push_str(";\n\n");
    out.push_str(&crate::menu::typescript());
    out.push_str(
        "\n// Every report note code, in the order of the variants (Note::examples).\n\
         export const NOTE_CODES = [",
    );
    for note in lorebook_engine::formats::report::Note::examples() {
        out.push_str(&format!("\n  '{}',", note.code()));
    }
    out.push_str("\n] as const satisfies readonly Note['code'][];\n");
    // Rules the UI shows or checks, decided in the engine.
    out.push_str(
        "\n// The ranges of SillyTavern's World Info settings (sillytavern::ST_RANGES).\n\
         export const ST_RANGES: readonly StRange[] = [",
    );
    for r in lorebook_engine::sillytavern::ST_RANGES {
        let setting = serde_json::to_value(r.setting).unwrap_or_default();
        out.push_str(&format!(
            "\n  {{ setting: {setting}, min: {}, max: {} }},",
            r.min, r.max
        ));
    }
    out.push_str("\n];\n");
    // SillyTavern's numbered fields, in its number order: the UI's
    // choices send the index.
    st_numbered(
        &mut out,
        "ST_POSITIONS",
        "Position",
        "SillyTavern's `position` numbers (sillytavern::Position::from_st)",
        |n| lorebook_engine::sillytavern::Position::from_st(n as i64).map(|p| p.as_str()),
    );
    st_numbered(
        &mut out,
        "ST_ROLES",
        "Role",
        "SillyTavern's `role` numbers (model::Role::from_st)",
        |n| lorebook_engine::model::Role::from_st(n).map(|r| r.as_str()),
    );
    st_numbered(
        &mut out,
        "ST_LOGICS",
        "SecondaryLogic",
        "SillyTavern's `selectiveLogic` numbers (model::SecondaryLogic::from_st)",
        |n| lorebook_engine::model::SecondaryLogic::from_st(n).map(|l| l.as_str()),
    );
    out.push_str(&format!(
        "\n// The deepest in-chat injection SillyTavern makes (MAX_INJECTION_DEPTH).\n\
         export const MAX_INJECTION_DEPTH = {};\n\
         \n// The guide's recursion passes at most (activation::RECURSION_LIMIT).\n\
         export const RECURSION_LIMIT = {};\n",
        lorebook_engine::sillytavern::prompt::MAX_INJECTION_DEPTH,
        lorebook_engine::activation::RECURSION_LIMIT,
    ));
    out
}

/// A list `name` of the codes of `ty` in SillyTavern's number order: the
/// code of number n at index n, up to the first number without one.
fn st_numbered(
    out: &mut String,
    name: &str,
    ty: &str,
    what: &str,
    code: impl Fn(u64) -> Option<&'static str>,
) {
    out.push_str(&format!(
        "\n// {what}: the code of number n at index n.\nexport const {name} = ["
    ));
    for c in (0..).map_while(&code) {
        out.push_str(&format!("\n  '{c}',"));
    }
    out.push_str(&format!("\n] as const satisfies readonly {ty}[];\n"));
}

/// The `code` tags of a ts-rs declaration of a tagged enum, in order.
#[cfg(test)]
fn tags_of(decl: &str) -> Vec<String> {
    decl.split("\"code\": \"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use ts_rs::TS;

    /// `Note::examples` has one note of every variant, in order: the list
    /// the UI's `NOTE_CODES` and so its catalogs are checked against.
    #[test]
    fn the_note_examples_cover_every_variant() {
        use lorebook_engine::formats::report::Note;
        let variants = super::tags_of(&Note::decl());
        assert!(variants.len() > 50, "{variants:?}");
        let examples: Vec<String> = Note::examples().iter().map(Note::code).collect();
        assert_eq!(examples, variants);
    }

    /// The check above reads every tag of a declaration, so a variant
    /// missing from the examples is seen.
    #[test]
    fn a_variant_missing_from_the_examples_is_seen() {
        let decl = r#"type Note = { "code": "clamped", field: string, } | { "code": "no_id" } | { "code": "risu_folder" };"#;
        let tags = super::tags_of(decl);
        assert_eq!(tags, ["clamped", "no_id", "risu_folder"]);
        assert_ne!(tags, ["clamped", "risu_folder"]);
    }

    /// Every position, role and logic has a SillyTavern number, so the
    /// generated lists hold every code and the UI's choices miss none.
    #[test]
    fn the_numbered_lists_hold_every_variant() {
        use lorebook_engine::model::{Role, SecondaryLogic};
        use lorebook_engine::sillytavern::Position;
        let rendered = super::render();
        for (name, decl) in [
            ("ST_POSITIONS", Position::decl()),
            ("ST_ROLES", Role::decl()),
            ("ST_LOGICS", SecondaryLogic::decl()),
        ] {
            let start = rendered.find(&format!("export const {name} = [")).unwrap();
            let list = &rendered[start..start + rendered[start..].find("] as const").unwrap()];
            let variants: Vec<&str> = decl.split('"').skip(1).step_by(2).collect();
            assert!(variants.len() >= 3, "{decl}");
            for v in variants {
                assert!(list.contains(&format!("'{v}'")), "{name} lacks {v}");
            }
        }
    }

    #[test]
    fn bindings_are_up_to_date() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/lib/bindings.ts");
        let fresh = super::render();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "ui/src/lib/bindings.ts is stale: run `UPDATE_BINDINGS=1 cargo test -p lorebook-studio bindings`"
        );
    }
}

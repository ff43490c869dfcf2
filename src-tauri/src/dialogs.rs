//! The native file dialogs: what each one asks and which files it offers,
//! worded in the UI's language.
//!
//! The words live in the UI's message catalog (`dialog.*` keys of
//! `ui/src/lib/locales/`), as the menu's do: the UI sends them with the menu
//! labels (`set_menu_labels`), [`NativeLabels`] keeps them (and
//! [`LABELS_FILE`] for the next start), and every dialog takes its title
//! and filter names from there. Until any run's UI has sent them (or for a
//! key it lacks) the English written here is shown. The webview
//! still never opens a dialog or names a path itself: it only supplies
//! words.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder};

/// Every native file dialog of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialog {
    /// Open…: a native book.
    Open,
    /// Import…: a book or card of any format.
    Import,
    /// Export As… into a card: the card PNG to write the book into.
    ExportCard,
    /// Export As…: where to write the exported file.
    Export,
    /// Save As….
    SaveAs,
    /// Open Chat….
    OpenChat,
    /// Load from SillyTavern…: its `settings.json`.
    StSettings,
    /// Custom file… in the model picker: a tokenizer file.
    Tokenizer,
    /// Compare with a file… in the impact strip: any importable book.
    CompareWith,
    /// Open Folder…: a book kept as a folder of Markdown files.
    OpenFolder,
    /// Save As Folder…: where to keep the book's folder.
    SaveAsFolder,
    /// Merge a Book Into This One…: any importable book.
    MergeFrom,
}

/// A file-type filter of a dialog: its name's catalog key, its English
/// name and the extensions it lets through.
#[derive(Debug, Clone, Copy)]
pub struct Filter {
    pub key: &'static str,
    pub english: &'static str,
    pub extensions: &'static [&'static str],
}

const ALL_FILES: Filter = Filter {
    key: "dialog.filter.all",
    english: "All files",
    extensions: &["*"],
};
pub(crate) const BOOKS_AND_CARDS: Filter = Filter {
    key: "dialog.filter.booksAndCards",
    english: "Lorebooks and cards",
    extensions: &["json", "png", "charx", "byaf", "lorebook", "story"],
};
const NATIVE_BOOK: Filter = Filter {
    key: "dialog.filter.book",
    english: "Lorebook (JSON)",
    extensions: &["json"],
};
const CARD_PNG: Filter = Filter {
    key: "dialog.filter.cardPng",
    english: "Character card (PNG or CHARX)",
    extensions: &["png", "charx"],
};
const CHATS: Filter = Filter {
    key: "dialog.filter.chats",
    english: "Chats",
    extensions: &["json", "jsonl", "txt"],
};
const JSON: Filter = Filter {
    key: "dialog.filter.json",
    english: "JSON files",
    extensions: &["json"],
};
const TOKENIZERS: Filter = Filter {
    key: "dialog.filter.tokenizers",
    english: "Tokenizer files",
    extensions: &["json", "model", "tiktoken", "gz"],
};

impl Dialog {
    pub const ALL: [Dialog; 12] = [
        Dialog::Open,
        Dialog::Import,
        Dialog::ExportCard,
        Dialog::Export,
        Dialog::SaveAs,
        Dialog::OpenChat,
        Dialog::StSettings,
        Dialog::Tokenizer,
        Dialog::CompareWith,
        Dialog::OpenFolder,
        Dialog::SaveAsFolder,
        Dialog::MergeFrom,
    ];

    /// The catalog key of the dialog's title.
    pub fn key(self) -> &'static str {
        match self {
            Dialog::Open => "dialog.open",
            Dialog::Import => "dialog.import",
            Dialog::ExportCard => "dialog.exportCard",
            Dialog::Export => "dialog.export",
            Dialog::SaveAs => "dialog.saveAs",
            Dialog::OpenChat => "dialog.openChat",
            Dialog::StSettings => "dialog.stSettings",
            Dialog::Tokenizer => "dialog.tokenizer",
            Dialog::CompareWith => "dialog.compareWith",
            Dialog::OpenFolder => "dialog.openFolder",
            Dialog::SaveAsFolder => "dialog.saveAsFolder",
            Dialog::MergeFrom => "dialog.mergeFrom",
        }
    }

    /// The title in English, shown until the UI sends its words.
    pub fn english(self) -> &'static str {
        match self {
            Dialog::Open => "Open lorebook",
            Dialog::Import => "Import lorebook",
            Dialog::ExportCard => "Choose the card PNG to write the book into",
            Dialog::Export => "Export lorebook as",
            Dialog::SaveAs => "Save lorebook as",
            Dialog::OpenChat => "Open chat",
            Dialog::StSettings => "Load SillyTavern's settings.json",
            Dialog::Tokenizer => "Choose a tokenizer file",
            Dialog::CompareWith => "Compare the book with",
            Dialog::OpenFolder => "Open a book kept as a folder",
            Dialog::SaveAsFolder => "Choose where to keep the book as a folder",
            Dialog::MergeFrom => "Merge a book into this one",
        }
    }

    /// The file types offered, in order (the first one is preselected).
    /// Save dialogs offer the type they write; the export dialog none,
    /// since its file name carries the chosen format's extension.
    pub fn filters(self) -> &'static [Filter] {
        match self {
            Dialog::Open => &[NATIVE_BOOK, ALL_FILES],
            Dialog::Import => &[BOOKS_AND_CARDS, ALL_FILES],
            Dialog::ExportCard => &[CARD_PNG],
            Dialog::Export => &[],
            Dialog::SaveAs => &[NATIVE_BOOK],
            Dialog::OpenChat => &[CHATS, ALL_FILES],
            Dialog::StSettings => &[JSON, ALL_FILES],
            Dialog::Tokenizer => &[TOKENIZERS, ALL_FILES],
            Dialog::CompareWith => &[BOOKS_AND_CARDS, ALL_FILES],
            Dialog::OpenFolder | Dialog::SaveAsFolder => &[],
            Dialog::MergeFrom => &[BOOKS_AND_CARDS, ALL_FILES],
        }
    }
}

/// What a dialog says: its title and its filters' names, in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wording {
    pub title: String,
    pub filters: Vec<(String, &'static [&'static str])>,
}

/// The words of `dialog` from `labels` (catalog key → text), English for
/// any key missing there.
pub fn wording(dialog: Dialog, labels: &HashMap<String, String>) -> Wording {
    let word = |key: &str, english: &str| word(labels, key, english);
    Wording {
        title: word(dialog.key(), dialog.english()),
        filters: dialog
            .filters()
            .iter()
            .map(|f| (word(f.key, f.english), f.extensions))
            .collect(),
    }
}

/// The words for catalog key `key` in `labels`, or `english` when the UI
/// has sent none (or only blanks).
fn word(labels: &HashMap<String, String>, key: &str, english: &str) -> String {
    labels
        .get(key)
        .filter(|t| !t.trim().is_empty())
        .cloned()
        .unwrap_or_else(|| english.to_string())
}

/// The words the UI last sent for the native menu and dialogs, by catalog
/// key (`dialog.*`) or menu id.
#[derive(Debug, Default)]
pub struct NativeLabels(pub Mutex<HashMap<String, String>>);

/// Where the last words the UI sent are kept, in the app's data folder, so
/// the next start builds its menu and dialogs in the user's language
/// before the page has loaded.
pub const LABELS_FILE: &str = "native-labels.json";

/// The largest labels file read back; anything bigger is not ours.
const MAX_LABELS_BYTES: u64 = 64 * 1024;

/// The words kept by an earlier run (none when the file is missing, too
/// big or broken: the menu is then English until the UI sends its words).
pub fn load_labels(data_dir: &Path) -> HashMap<String, String> {
    lorebook_engine::io::read_capped(&data_dir.join(LABELS_FILE), MAX_LABELS_BYTES)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Keeps `labels` for the next start, written atomically.
pub fn store_labels(data_dir: &Path, labels: &HashMap<String, String>) -> Result<(), String> {
    std::fs::create_dir_all(data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;
    let sorted: std::collections::BTreeMap<_, _> = labels.iter().collect();
    let bytes = serde_json::to_vec_pretty(&sorted).map_err(|e| e.to_string())?;
    let path = data_dir.join(LABELS_FILE);
    lorebook_engine::formats::write_atomic(&path, &bytes)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// A file dialog of kind `dialog`, titled and filtered in the UI's
/// language.
pub fn file_dialog<R: Runtime>(app: &AppHandle<R>, dialog: Dialog) -> FileDialogBuilder<R> {
    let words = match app.try_state::<NativeLabels>() {
        Some(labels) => wording(dialog, &labels.0.lock().unwrap_or_else(|p| p.into_inner())),
        None => wording(dialog, &HashMap::new()),
    };
    let mut builder = app.dialog().file().set_title(words.title);
    for (name, extensions) in words.filters {
        builder = builder.add_filter(name, extensions);
    }
    builder
}

/// Asks, in a native question in the UI's language, whether Save As
/// Folder may replace the book already kept in `folder`; `true` for yes.
pub fn ask_replace_folder<R: Runtime>(app: &AppHandle<R>, folder: &str) -> bool {
    use tauri_plugin_dialog::{MessageDialogButtons, MessageDialogKind};
    let labels = app
        .try_state::<NativeLabels>()
        .map(|l| l.0.lock().unwrap_or_else(|p| p.into_inner()).clone())
        .unwrap_or_default();
    let word = |key: &str, english: &str| word(&labels, key, english);
    let text = word(
        "dialog.replaceFolder.text",
        "{folder} already holds another book. Replace it with this one? Its entries' files that this book does not have are removed; files that are not the book's stay.",
    )
    .replace("{folder}", folder);
    app.dialog()
        .message(text)
        .title(word(
            "dialog.replaceFolder.title",
            "Replace the book in this folder?",
        ))
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            word("dialog.replaceFolder.replace", "Replace"),
            word("dialog.replaceFolder.cancel", "Cancel"),
        ))
        .blocking_show()
}

/// The UI's catalog of `locale` (`en` or `pt-BR`) read from
/// `ui/src/lib/locales/<locale>.ts`, for tests that check the native words
/// against it.
#[cfg(test)]
pub(crate) fn catalog(locale: &str) -> HashMap<String, String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let start = match locale {
        "en" => "export const en = {",
        "pt-BR" => "export const ptBR: Record<MessageKey, string> = {",
        other => panic!("no catalog for {other}"),
    };
    let file = root.join(format!("ui/src/lib/locales/{locale}.ts"));
    let text = std::fs::read_to_string(&file).unwrap();
    let block = &text[text.find(start).expect("catalog block")..];
    let block = &block[..block.find("\n}").expect("end of the catalog block")];
    let mut out = HashMap::new();
    for line in block.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix('\'') else {
            continue;
        };
        let Some((key, value)) = rest.split_once("': ") else {
            continue;
        };
        let value = value.trim_end_matches(',');
        let quote = value.chars().next().unwrap_or('\'');
        if !matches!(quote, '\'' | '"') || !value.ends_with(quote) || value.len() < 2 {
            continue;
        }
        let inner = &value[1..value.len() - 1];
        out.insert(key.to_string(), inner.replace("\\'", "'"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<(&'static str, &'static str)> {
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for d in Dialog::ALL {
            keys.push((d.key(), d.english()));
            for f in d.filters() {
                if !keys.iter().any(|(k, _)| *k == f.key) {
                    keys.push((f.key, f.english));
                }
            }
        }
        keys
    }

    /// Every title and filter name is in both catalogs, the English one as
    /// written here.
    #[test]
    fn every_dialog_word_is_in_the_catalog() {
        let en = catalog("en");
        let pt = catalog("pt-BR");
        for (key, english) in keys() {
            assert_eq!(
                en.get(key).map(String::as_str),
                Some(english),
                "{key} in en"
            );
            assert!(pt.contains_key(key), "{key} in pt-BR");
        }
    }

    /// Without words from the UI, and with the English catalog, every
    /// dialog reads in English.
    #[test]
    fn dialogs_read_in_english() {
        let en = catalog("en");
        for d in Dialog::ALL {
            let plain = wording(d, &HashMap::new());
            assert_eq!(plain, wording(d, &en), "{d:?}");
            assert_eq!(plain.title, d.english());
        }
        let import = wording(Dialog::Import, &en);
        assert_eq!(import.title, "Import lorebook");
        assert_eq!(
            import.filters,
            vec![
                (
                    "Lorebooks and cards".to_string(),
                    BOOKS_AND_CARDS.extensions
                ),
                ("All files".to_string(), ALL_FILES.extensions)
            ]
        );
    }

    /// With the Portuguese catalog every title and filter name is the
    /// Portuguese one, and none is left in English.
    #[test]
    fn dialogs_read_in_portuguese() {
        let pt = catalog("pt-BR");
        for d in Dialog::ALL {
            let w = wording(d, &pt);
            assert_eq!(Some(&w.title), pt.get(d.key()), "{d:?}");
            assert_ne!(w.title, d.english(), "{d:?} still English");
            for (f, (name, extensions)) in d.filters().iter().zip(&w.filters) {
                assert_eq!(Some(name), pt.get(f.key), "{}", f.key);
                assert_ne!(name, f.english, "{} still English", f.key);
                assert_eq!(*extensions, f.extensions);
            }
        }
        assert_eq!(wording(Dialog::Open, &pt).title, "Abrir livro");
        assert_eq!(
            wording(Dialog::Tokenizer, &pt).filters[1].0,
            "Todos os arquivos"
        );
    }

    /// The words the UI sent come back on the next start (so its menu is
    /// Portuguese from the first frame); a missing, broken or oversized
    /// file gives none.
    #[test]
    fn the_ui_words_are_kept_for_the_next_start() {
        let dir = std::env::temp_dir().join(format!("lbs-labels-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(load_labels(&dir).is_empty());
        // The words the UI sends: the menu's and the dialogs'.
        let pt: HashMap<String, String> = catalog("pt-BR")
            .into_iter()
            .filter(|(k, _)| k.starts_with("menu.") || k.starts_with("dialog."))
            .collect();
        store_labels(&dir, &pt).unwrap();
        let back = load_labels(&dir);
        assert_eq!(back, pt);
        assert_eq!(wording(Dialog::SaveAs, &back).title, "Salvar livro como");
        std::fs::write(dir.join(LABELS_FILE), b"{ broken").unwrap();
        assert!(load_labels(&dir).is_empty());
        let big = format!("{{\"a\": \"{}\"}}", "x".repeat(MAX_LABELS_BYTES as usize));
        std::fs::write(dir.join(LABELS_FILE), big).unwrap();
        assert!(load_labels(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A key the UI did not send, or sent empty, falls back to English
    /// instead of an empty title.
    #[test]
    fn a_missing_word_stays_english() {
        let mut labels = HashMap::new();
        labels.insert("dialog.open".to_string(), "  ".to_string());
        labels.insert("dialog.filter.all".to_string(), "Tudo".to_string());
        let w = wording(Dialog::Open, &labels);
        assert_eq!(w.title, "Open lorebook");
        assert_eq!(w.filters[0].0, "Lorebook (JSON)");
        assert_eq!(w.filters[1].0, "Tudo");
    }
}

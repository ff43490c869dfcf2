//! The errors' codes, kinds and English, one of each.

use super::*;
use lorebook_engine::formats::ExportFormat;

/// Every way an export can fail, one of each.
fn export_errors() -> Vec<ExportError> {
    vec![
        ExportError::NotACardFormat(ExportFormat::SillyTavern),
        ExportError::NoWriter(ExportFormat::Risu),
        ExportError::BadPng("bad CRC".into()),
        ExportError::PngWithoutCard,
        ExportError::BadCardChunk {
            chunk: "chara".into(),
            message: "not base64".into(),
        },
    ]
}

/// Each export failure has a code the UI words in both languages
/// (`notExported.<code>` in ui/src/lib/locales/), and the error keeps the
/// file and the engine's detail.
#[test]
fn export_errors_get_a_code_worded_in_both_languages() {
    let en = crate::dialogs::catalog("en");
    let pt = crate::dialogs::catalog("pt-BR");
    for key in [
        "appError.cannot_export",
        "appError.cannot_export_book",
        "appError.internal",
    ] {
        assert!(en.contains_key(key) && pt.contains_key(key), "{key}");
    }
    for e in export_errors() {
        let code = serde_json::to_value(e.code()).unwrap();
        let key = format!("notExported.{}", code.as_str().unwrap());
        assert!(en.contains_key(&key), "{key} in en");
        assert!(pt.contains_key(&key), "{key} in pt-BR");
        assert_ne!(en[&key], pt[&key], "{key} not translated");
        let err = AppError::cannot_export(Some(Path::new("/d/card.png")), &e);
        assert_eq!(err.kind, ErrorKind::Format);
        let ErrorCode::CannotExport {
            file,
            reason,
            detail,
        } = err.code
        else {
            panic!("{err:?}")
        };
        assert_eq!((file.as_str(), reason), ("/d/card.png", e.code()));
        assert!(!detail.is_empty());
        assert!(err.message.starts_with("/d/card.png: "), "{}", err.message);
    }
    let damaged = AppError::cannot_export(None, &ExportError::BadPng("bad CRC".into()));
    assert!(matches!(
        damaged.code,
        ErrorCode::CannotExport { ref file, ref detail, .. } if file.is_empty() && detail == "bad CRC"
    ));
}

/// A panic inside a command is reported with a code, naming the command.
#[test]
fn an_internal_error_is_coded() {
    let e = AppError::internal("save", "index out of bounds");
    assert_eq!(e.kind, ErrorKind::Internal);
    assert_eq!(
        e.code,
        ErrorCode::Internal {
            command: "save".into(),
            detail: "index out of bounds".into()
        }
    );
    assert!(e.message.contains("unsaved changes are kept"));
}

#[test]
fn system_errors_get_the_code_the_ui_words() {
    let missing = Path::new("/nowhere/at/all/book.json");
    let e = AppError::read(lorebook_engine::io::read_capped(missing, 10).unwrap_err());
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!(
        e.code,
        ErrorCode::FileNotFound {
            file: "/nowhere/at/all/book.json".into()
        }
    );
    assert!(e.message.contains("book.json"), "{}", e.message);
    let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
    let e = AppError::write(Path::new("/x/b.json"), "save", full);
    assert_eq!(
        e.code,
        ErrorCode::DiskFull {
            file: "/x/b.json".into()
        }
    );
    assert!(
        e.message.starts_with("cannot save /x/b.json"),
        "{}",
        e.message
    );
    let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    let e = AppError::write(Path::new("/x/b.json"), "write", denied);
    assert!(matches!(e.code, ErrorCode::PermissionDenied { .. }));
    let dir = std::env::temp_dir();
    let e = AppError::read(lorebook_engine::io::read_capped(&dir, 10).unwrap_err());
    assert!(matches!(e.code, ErrorCode::NotAFile { .. }), "{e:?}");
}

#[test]
fn a_file_that_is_not_a_book_names_its_reason() {
    let err = lorebook_engine::formats::import(b"{\"hello\": 1}").unwrap_err();
    let e = AppError::not_a_book(Path::new("/d/x.json"), &err);
    assert_eq!(e.kind, ErrorKind::Format);
    let ErrorCode::NotABook { file, reason, .. } = e.code else {
        panic!("{e:?}")
    };
    assert_eq!(
        (file.as_str(), reason),
        ("/d/x.json", ImportReason::UnknownFormat)
    );
}

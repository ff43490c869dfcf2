//! Reading book files (issue 8): only regular files, and never more than
//! [`MAX_FILE_BYTES`] actually read, whatever metadata says.

use std::path::PathBuf;

use lorebook_engine::formats::{read_limited, MAX_FILE_BYTES};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbs-reading-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn the_book_cap_holds_just_under_and_just_over() {
    let path = temp("sparse.json");
    // A sparse file: the size costs no disk, reading it costs the cap.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_BYTES).unwrap();
    assert_eq!(read_limited(&path).unwrap().len() as u64, MAX_FILE_BYTES);
    file.set_len(MAX_FILE_BYTES + 1).unwrap();
    let err = read_limited(&path).unwrap_err();
    assert!(err.contains("larger than 256 MiB"), "{err}");
    assert!(err.contains("sparse.json"), "{err}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn directories_are_refused() {
    let dir = temp("");
    let err = read_limited(&dir).unwrap_err();
    assert!(err.contains("is a directory"), "{err}");
}

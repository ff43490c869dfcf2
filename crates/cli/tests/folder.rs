//! A book kept as a folder of Markdown files, through the CLI as a
//! process: `convert --to folder -o DIR`, the folder read back by any
//! command, and converted to native again unchanged.

mod common;

use common::{lorebook, root, tmp};

#[test]
fn convert_to_a_folder_and_back_keeps_the_book_and_any_command_reads_it() {
    let dir = tmp("i22-folder-book");
    let _ = std::fs::remove_dir_all(&dir);
    let sample = root().join("samples/saltmere.json");
    let sample = sample.to_str().unwrap();
    let d = dir.to_str().unwrap();
    let out = lorebook(&["convert", sample, "--to", "folder", "-o", d]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("book.yaml").is_file());
    let md = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "md")
        })
        .count();
    assert_eq!(md, 10, "one file per entry");
    // Read back: native again, identical to the sample converted to native.
    let back = lorebook(&["convert", d, "--to", "native"]);
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let direct = lorebook(&["convert", sample, "--to", "native"]);
    assert_eq!(
        String::from_utf8(back.stdout).unwrap(),
        String::from_utf8(direct.stdout).unwrap()
    );
    // Any BOOK argument may be the folder.
    let chat = root().join("samples/saltmere-chat.txt");
    let out = lorebook(&["preview", d, "--chat", chat.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A broken file is named and left out; the rest is read.
    std::fs::write(dir.join("Broken.md"), "no front matter").unwrap();
    let out = lorebook(&["inspect", d]);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("Broken.md was not read"), "{text}");
    // --to folder needs -o.
    let out = lorebook(&["convert", sample, "--to", "folder"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("give -o DIR"));
    let _ = std::fs::remove_dir_all(&dir);
}

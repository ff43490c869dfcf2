//! Issue 23: what the Linux packages carry, checked against its one source
//! each: the version is the workspace's (`Cargo.toml`), the icons are every
//! size the freedesktop theme wants, the desktop entry opens every format
//! the Import dialog does, the AppStream metainfo names this release and
//! screenshots that exist, and the `.deb` and `.rpm` install the same
//! files. `scripts/check-package.sh` checks the built package itself.

use std::path::Path;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn conf() -> Value {
    serde_json::from_str(&read("tauri.conf.json")).expect("tauri.conf.json")
}

/// The width and height of a PNG file, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The text between `<tag>` and `</tag>` everywhere in `xml`.
fn elements<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    xml.match_indices(&open)
        .filter_map(|(at, _)| {
            let from = at + open.len();
            xml[from..]
                .find(&close)
                .map(|len| xml[from..from + len].trim())
        })
        .collect()
}

#[test]
fn the_version_is_the_workspace_s_alone() {
    let conf = conf();
    assert!(
        conf.get("version").is_none(),
        "tauri.conf.json must not name a version: Tauri then takes Cargo.toml's"
    );
    let version = env!("CARGO_PKG_VERSION");
    let metainfo = read("packaging/linux/studio.lorebook.app.metainfo.xml");
    assert!(
        metainfo.contains(&format!("<release version=\"{version}\"")),
        "the metainfo's newest release is {version}"
    );
    let changelog = read("CHANGELOG.md");
    let first = changelog
        .lines()
        .find(|l| l.starts_with("## "))
        .expect("a release heading");
    assert!(first.starts_with(&format!("## {version} ")), "{first}");
    let about = crate::commands::about_of(Path::new("/data"));
    assert_eq!(about.version, version);
    assert_eq!(about.license, "MIT");
    assert_eq!(about.data_dir, "/data");
}

#[test]
fn every_icon_size_comes_from_the_one_source_image() {
    let conf = conf();
    let listed: Vec<&str> = conf["bundle"]["icon"]
        .as_array()
        .expect("bundle.icon")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let source = png_size(&root().join("icons/source.png"));
    assert_eq!(source, (512, 512), "the source image");
    for size in [16, 24, 32, 48, 64, 128, 256, 512] {
        let rel = format!("icons/{size}x{size}.png");
        assert!(listed.contains(&rel.as_str()), "{rel} in bundle.icon");
        assert_eq!(png_size(&root().join(&rel)), (size, size), "{rel}");
    }
    // The window icon is the first PNG listed: the largest.
    assert_eq!(listed.first(), Some(&"icons/512x512.png"));
}

#[test]
fn the_desktop_entry_opens_every_format_the_import_dialog_takes() {
    let conf = conf();
    let template = read("packaging/linux/lorebook-studio.desktop.hbs");
    let line = |key: &str| {
        template
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("{key}= in the desktop entry"))
            .to_string()
    };
    assert_eq!(line("Exec"), "{{exec}} %F", "files from the file manager");
    assert!(line("Categories").ends_with(';'));
    let types: Vec<String> = line("MimeType")
        .split(';')
        .filter(|t| !t.is_empty())
        .map(String::from)
        .collect();
    let mime = read("packaging/linux/lorebook-studio-mime.xml");
    for ext in crate::dialogs::BOOKS_AND_CARDS.extensions {
        let ty = match *ext {
            "json" => "application/json".to_string(),
            "png" => "image/png".to_string(),
            other => {
                // A type of our own: declared with its glob.
                let glob = format!("<glob pattern=\"*.{other}\"/>");
                let at = mime.find(&glob).unwrap_or_else(|| panic!("{glob}"));
                let decl = mime[..at].rfind("<mime-type type=\"").expect("its type");
                let rest = &mime[decl + "<mime-type type=\"".len()..];
                rest[..rest.find('"').unwrap()].to_string()
            }
        };
        assert!(types.contains(&ty), "{ext}: {ty} in MimeType");
    }
    for linux in ["deb", "rpm"] {
        assert_eq!(
            conf["bundle"]["linux"][linux]["desktopTemplate"],
            "packaging/linux/lorebook-studio.desktop.hbs"
        );
    }
}

#[test]
fn the_metainfo_names_the_app_its_launcher_and_screenshots_that_exist() {
    let conf = conf();
    let xml = read("packaging/linux/studio.lorebook.app.metainfo.xml");
    assert_eq!(elements(&xml, "id"), [conf["identifier"].as_str().unwrap()]);
    assert_eq!(
        elements(&xml, "name"),
        [
            conf["productName"].as_str().unwrap(),
            "Lorebook Studio contributors"
        ]
    );
    assert_eq!(
        elements(&xml, "project_license"),
        [env!("CARGO_PKG_LICENSE")]
    );
    let launchable = format!("{}.desktop", conf["productName"].as_str().unwrap());
    assert!(xml.contains(&format!(
        "<launchable type=\"desktop-id\">{launchable}</launchable>"
    )));
    let repository = env!("CARGO_PKG_REPOSITORY");
    let images = elements(&xml, "image");
    assert!(!images.is_empty());
    for image in images {
        let rel = image
            .strip_prefix(&format!("{repository}/raw/main/"))
            .unwrap_or_else(|| panic!("{image} under the repository {repository}"));
        assert!(rel.starts_with("docs/screenshots/"), "{rel}");
        assert!(root().join(rel).is_file(), "{rel} exists");
    }
    for binary in ["lorebook-studio", "lorebook"] {
        assert!(xml.contains(&format!("<binary>{binary}</binary>")));
    }
}

#[test]
fn the_packages_install_the_cli_metainfo_media_types_and_samples() {
    let conf = conf();
    let deb = &conf["bundle"]["linux"]["deb"]["files"];
    assert_eq!(
        deb, &conf["bundle"]["linux"]["rpm"]["files"],
        "the same files"
    );
    let files = deb.as_object().expect("deb.files");
    assert_eq!(files["/usr/bin/lorebook"], "target/release/lorebook");
    for (to, from) in files {
        let from = from.as_str().unwrap();
        if !from.starts_with("target/") {
            assert!(root().join(from).is_file(), "{to} from {from}");
        }
    }
    for needed in [
        "/usr/share/metainfo/studio.lorebook.app.metainfo.xml",
        "/usr/share/mime/packages/lorebook-studio.xml",
        "/usr/share/lorebook-studio/samples/saltmere.json",
        "/usr/share/lorebook-studio/samples/saltmere-chat.txt",
        "/usr/share/doc/lorebook-studio/copyright",
    ] {
        assert!(files.contains_key(needed), "{needed}");
    }
    let targets = conf["bundle"]["targets"].as_array().expect("targets");
    for kind in ["deb", "rpm", "appimage"] {
        assert!(targets.iter().any(|t| t == kind), "{kind}");
    }
    assert_eq!(conf["bundle"]["active"], true);
}

//! The user's interface preferences: theme, language and pane sizes.
//!
//! They live in `prefs.json` in the app's data folder (`LOREBOOK_DATA_DIR`
//! when set), written atomically after each change. A missing or broken
//! file gives the defaults: preferences are a convenience, never a reason
//! not to start. Fields this version does not know are kept, so an older
//! and a newer app can share the file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The file name inside the data folder.
pub const FILE: &str = "prefs.json";

/// The largest file read back; anything bigger is not ours.
const MAX_BYTES: u64 = 64 * 1024;

/// The user's interface preferences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Prefs {
    /// `system`, `light` or `dark`; `None` until the user picks one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// `en` or `pt-BR`; `None` follows the system language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The widths of the entry list and the editor, as fractions of the
    /// window's width (the preview takes the rest); empty for the default.
    #[serde(default)]
    pub panes: Vec<f64>,
    /// The format Export as… chose last (an export format's id), offered
    /// first next time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export_format: Option<String>,
    /// The first-run hint was dismissed.
    #[serde(default)]
    pub welcomed: bool,
    /// Fields of a newer version, kept as they were.
    #[serde(flatten)]
    #[ts(skip)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl Prefs {
    /// Drops values no version could have meant: unknown themes and
    /// languages, pane fractions that are not finite or outside (0, 1),
    /// or that leave no room for the preview.
    pub fn sanitized(mut self) -> Prefs {
        if !matches!(
            self.theme.as_deref(),
            None | Some("system" | "light" | "dark")
        ) {
            self.theme = None;
        }
        if !matches!(self.locale.as_deref(), None | Some("en" | "pt-BR")) {
            self.locale = None;
        }
        // An id as the bindings spell it (`sillytavern`, `card_v2`, ...).
        let known = |id: &str| {
            lorebook_engine::formats::ExportFormat::ALL
                .iter()
                .any(|f| f.as_format().id() == id)
        };
        if self.export_format.as_deref().is_some_and(|f| !known(f)) {
            self.export_format = None;
        }
        let fine = self.panes.len() == 2
            && self
                .panes
                .iter()
                .all(|f| f.is_finite() && *f > 0.0 && *f < 1.0)
            && self.panes.iter().sum::<f64>() < 1.0;
        if !fine {
            self.panes.clear();
        }
        self
    }
}

/// `prefs.json` in `data_dir`.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// Reads the preferences (the defaults when the file is missing, too big
/// or broken).
pub fn load(data_dir: &Path) -> Prefs {
    lorebook_engine::io::read_capped(&path(data_dir), MAX_BYTES)
        .ok()
        .and_then(|b| serde_json::from_slice::<Prefs>(&b).ok())
        .map(Prefs::sanitized)
        .unwrap_or_default()
}

/// Writes the preferences atomically, keeping the fields of a newer version
/// already in the file.
pub fn store(data_dir: &Path, prefs: Prefs) -> Result<(), String> {
    let mut prefs = prefs.sanitized();
    let on_disk = load(data_dir);
    for (k, v) in on_disk.other {
        prefs.other.entry(k).or_insert(v);
    }
    std::fs::create_dir_all(data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;
    let bytes = serde_json::to_vec_pretty(&prefs).map_err(|e| e.to_string())?;
    lorebook_engine::formats::write_atomic(&path(data_dir), &bytes)
        .map_err(|e| format!("{}: {e}", path(data_dir).display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed on drop.
    struct Dir(PathBuf);

    impl Dir {
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn tempdir(tag: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("lbs-prefs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn prefs(theme: &str, panes: Vec<f64>) -> Prefs {
        Prefs {
            theme: Some(theme.into()),
            locale: Some("pt-BR".into()),
            panes,
            export_format: Some("sillytavern".into()),
            welcomed: true,
            other: Default::default(),
        }
    }

    #[test]
    fn preferences_survive_a_restart() {
        let dir = tempdir("t1");
        let p = prefs("dark", vec![0.25, 0.4]);
        store(dir.path(), p.clone()).unwrap();
        assert_eq!(load(dir.path()), p);
    }

    #[test]
    fn a_missing_or_broken_file_gives_the_defaults() {
        let dir = tempdir("t2");
        assert_eq!(load(dir.path()), Prefs::default());
        std::fs::write(path(dir.path()), b"{ not json").unwrap();
        assert_eq!(load(dir.path()), Prefs::default());
        // Just at the cap a file still loads; one byte more and it is not
        // read.
        let p = prefs("dark", vec![0.25, 0.4]);
        let mut at_cap = serde_json::to_vec(&p).unwrap();
        at_cap.resize(MAX_BYTES as usize, b' ');
        std::fs::write(path(dir.path()), &at_cap).unwrap();
        assert_eq!(load(dir.path()), p);
        at_cap.push(b' ');
        std::fs::write(path(dir.path()), &at_cap).unwrap();
        assert_eq!(load(dir.path()), Prefs::default());
    }

    #[test]
    fn impossible_values_are_dropped_not_applied() {
        let dir = tempdir("t3");
        std::fs::write(
            path(dir.path()),
            br#"{"theme":"neon","locale":"xx","panes":[0.7,0.6],"export_format":"docx"}"#,
        )
        .unwrap();
        assert_eq!(load(dir.path()), Prefs::default());
        for panes in [
            vec![f64::NAN, 0.2],
            vec![0.0, 0.3],
            vec![0.3],
            vec![0.2, 0.3, 0.1],
        ] {
            assert!(prefs("light", panes).sanitized().panes.is_empty());
        }
        assert_eq!(prefs("light", vec![0.2, 0.3]).sanitized().panes, [0.2, 0.3]);
    }

    #[test]
    fn fields_of_a_newer_version_are_kept() {
        let dir = tempdir("t4");
        std::fs::write(
            path(dir.path()),
            br#"{"theme":"dark","zoom":1.25,"panes":[]}"#,
        )
        .unwrap();
        store(dir.path(), prefs("light", vec![])).unwrap();
        let text = std::fs::read_to_string(path(dir.path())).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["zoom"], 1.25);
        assert_eq!(v["theme"], "light");
    }
}

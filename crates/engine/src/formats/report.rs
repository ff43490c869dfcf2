//! What an import or export carried, approximated or could not carry.
//!
//! Every conversion returns a [`Report`]: one [`Section`] for the book and
//! one per entry. A field is *carried* when its meaning arrives intact,
//! *approximated* when it arrives changed (the note says how), and *not
//! carried* when the target has no place for it (the note says why and
//! where it went, if anywhere). The [`Display`](std::fmt::Display) rendering
//! is what the CLI prints; it groups identical notes so a 300-entry book
//! stays readable. Each note is a [`Note`]: a code with parameters, worded
//! in English by its `Display` and in the app's language by the UI.

use std::fmt;

use serde::Serialize;

pub use super::note::Note;

/// Import or export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Import,
    Export,
}

/// A field that arrived changed or not at all, and how or why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldNote {
    /// The field, in the source's spelling (`matchWholeWords`, `@@keep`).
    pub field: String,
    pub note: Note,
}

/// The outcome of every field of one book or entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Section {
    pub carried: Vec<String>,
    pub approximated: Vec<FieldNote>,
    pub not_carried: Vec<FieldNote>,
}

impl Section {
    pub fn carry(&mut self, field: impl Into<String>) {
        self.carried.push(field.into());
    }

    pub fn approx(&mut self, field: impl Into<String>, note: Note) {
        self.approximated.push(FieldNote {
            field: field.into(),
            note,
        });
    }

    pub fn lose(&mut self, field: impl Into<String>, note: Note) {
        self.not_carried.push(FieldNote {
            field: field.into(),
            note,
        });
    }

    /// Whether nothing was approximated or lost.
    pub fn is_exact(&self) -> bool {
        self.approximated.is_empty() && self.not_carried.is_empty()
    }
}

/// The report of one entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EntryReport {
    /// The entry's id in the model.
    pub id: u64,
    /// Its display name (comment, else first key).
    pub name: String,
    #[serde(flatten)]
    pub fields: Section,
}

/// The report of one import or export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Report {
    pub direction: Direction,
    /// The format's human name (see [`super::Format::name`]).
    pub format: String,
    pub book: Section,
    pub entries: Vec<EntryReport>,
    /// Remarks that are not about one field (which chunk was read, …).
    pub notes: Vec<Note>,
}

impl Report {
    pub fn new(direction: Direction, format: impl Into<String>) -> Self {
        Report {
            direction,
            format: format.into(),
            book: Section::default(),
            entries: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Starts the section of a new entry and returns it.
    pub fn entry(&mut self, id: u64, name: impl Into<String>) -> &mut Section {
        self.entries.push(EntryReport {
            id,
            name: name.into(),
            fields: Section::default(),
        });
        let last = self.entries.len() - 1;
        &mut self.entries[last].fields
    }

    /// Whether every field of every entry and of the book was carried.
    pub fn is_lossless(&self) -> bool {
        self.book.is_exact() && self.entries.iter().all(|e| e.fields.is_exact())
    }

    /// Every entry note that is not "carried", with its entry id.
    pub fn entry_notes(&self) -> impl Iterator<Item = (u64, &FieldNote)> {
        self.entries.iter().flat_map(|e| {
            e.fields
                .approximated
                .iter()
                .chain(&e.fields.not_carried)
                .map(move |n| (e.id, n))
        })
    }
}

/// Groups identical entry notes: (field, note) → entry labels.
fn group<'a>(
    entries: &'a [EntryReport],
    pick: impl Fn(&'a Section) -> &'a [FieldNote],
) -> Vec<(&'a FieldNote, Vec<String>)> {
    let mut groups: Vec<(&FieldNote, Vec<String>)> = Vec::new();
    for e in entries {
        for n in pick(&e.fields) {
            let label = if e.name.is_empty() {
                format!("#{}", e.id)
            } else {
                format!("#{} {:?}", e.id, e.name)
            };
            match groups.iter_mut().find(|(g, _)| *g == n) {
                Some((_, labels)) => labels.push(label),
                None => groups.push((n, vec![label])),
            }
        }
    }
    groups
}

fn write_entries(f: &mut fmt::Formatter<'_>, groups: &[(&FieldNote, Vec<String>)]) -> fmt::Result {
    const SHOWN: usize = 5;
    for (n, labels) in groups {
        let who = if labels.len() <= SHOWN {
            labels.join(", ")
        } else {
            format!(
                "{} entries ({}, … and {} more)",
                labels.len(),
                labels[..SHOWN].join(", "),
                labels.len() - SHOWN
            )
        };
        writeln!(f, "  - {}: {} — {}", n.field, n.note, who)?;
    }
    Ok(())
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.direction {
            Direction::Import => "Imported from",
            Direction::Export => "Exported to",
        };
        writeln!(f, "{verb} {}: {} entries.", self.format, self.entries.len())?;
        for n in &self.notes {
            writeln!(f, "Note: {n}")?;
        }
        if !self.book.approximated.is_empty() || !self.book.not_carried.is_empty() {
            writeln!(f, "Book:")?;
            for n in &self.book.approximated {
                writeln!(f, "  ~ {}: {}", n.field, n.note)?;
            }
            for n in &self.book.not_carried {
                writeln!(f, "  ✗ {}: {}", n.field, n.note)?;
            }
        }
        let approx = group(&self.entries, |s| &s.approximated);
        if !approx.is_empty() {
            writeln!(f, "Approximated:")?;
            write_entries(f, &approx)?;
        }
        let lost = group(&self.entries, |s| &s.not_carried);
        if !lost.is_empty() {
            writeln!(f, "Not carried:")?;
            write_entries(f, &lost)?;
        }
        if self.is_lossless() {
            writeln!(f, "Every field was carried.")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_groups_identical_notes() {
        let mut r = Report::new(Direction::Import, "SillyTavern world info");
        for id in 0..8 {
            let e = r.entry(id, format!("e{id}"));
            e.carry("key");
            e.approx("matchWholeWords", Note::WholeWordsGlobal);
        }
        let tool = "Agnai".to_string();
        r.entry(9, "")
            .lose("group", Note::SourceFieldNoPlace { tool });
        let clamp = Note::Clamped {
            field: "token_budget".into(),
            value: 5,
            min: 100,
            max: 1000,
            clamped: 100,
        };
        r.book.approx("token_budget", clamp);
        let text = r.to_string();
        assert!(
            text.contains("Imported from SillyTavern world info: 9 entries."),
            "{text}"
        );
        assert!(text.contains("8 entries (#0 \"e0\""), "{text}");
        assert!(
            text.contains("group: a field of the source file with no place in Agnai — #9"),
            "{text}"
        );
        assert!(
            text.contains("token_budget: token_budget 5 is outside 100–1000; clamped to 100"),
            "{text}"
        );
        assert!(!r.is_lossless());
        assert_eq!(r.entry_notes().count(), 9);
    }

    #[test]
    fn serializes_flat_entry_sections() {
        let mut r = Report::new(Direction::Export, "RisuAI");
        r.entry(1, "a").carry("content");
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["entries"][0]["carried"][0], "content");
        assert_eq!(v["direction"], "export");
    }
}

//! Folders: entries that hold entries (docs/folders.md).
//!
//! A folder's name is its `comment` (never a key: a RisuAI folder's key is
//! private-use text).
//!
//! A folder is an [`Entry`] with `folder` set; an entry (or a folder) is in
//! the folder whose id is its `parent`, to any depth. This is RisuAI's own
//! model (a folder is a lorebook record), so a RisuAI book keeps its folder
//! records, keys and all. A folder never activates under the guide's or
//! SillyTavern's rules; under RisuAI's it is the record RisuAI has.
//!
//! Files: the native file writes folders as entries (`extensions`
//! [`IS_FOLDER`] and [`PARENT`]); RisuAI's as its folders; every other
//! format has no folders, so its export writes no folder entries and gives
//! each entry in a folder its folder path, the names from the top folder
//! down, in the entry's `extensions` as [`PATH`] ([`flatten`]). Every
//! import rebuilds the folders from such paths ([`unflatten`]), so a round
//! trip through SillyTavern or a card keeps the tree (not empty folders,
//! nor a folder's own fields: the export report says so).

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use crate::model::{Book, Entry};

/// The native file's extension marking a folder entry.
pub const IS_FOLDER: &str = "lorebook_studio_is_folder";
/// The native file's extension naming the folder (its id) an entry is in.
pub const PARENT: &str = "lorebook_studio_parent";
/// The extension holding an entry's folder path in formats without folders.
pub const PATH: &str = "lorebook_studio_folder";

/// The entries' places in their folders, checked: each entry's parent is a
/// folder of the book, and no folder is inside itself.
pub struct Tree {
    parent: HashMap<u64, u64>,
    names: HashMap<u64, String>,
}

impl Tree {
    /// The tree of `book`, trusting only the parents [`repair`] keeps.
    pub fn of(book: &Book) -> Tree {
        let names: HashMap<u64, String> = book
            .entries
            .iter()
            .filter(|e| e.folder)
            .map(|e| (e.id, e.comment.clone()))
            .collect();
        let mut parent: HashMap<u64, u64> = book
            .entries
            .iter()
            .filter_map(|e| Some((e.id, e.parent?)))
            .filter(|(id, p)| names.contains_key(p) && id != p)
            .collect();
        // A folder inside itself, however far round, is moved to the top:
        // the first of the circle in the book's order. Each folder is
        // walked through once (a chain of 50,000 nested folders took 30 s
        // when each walked up to the top).
        let rank: HashMap<u64, usize> = book
            .entries
            .iter()
            .filter(|e| e.folder)
            .enumerate()
            .map(|(i, e)| (e.id, i))
            .collect();
        // The walk that reached each folder first.
        let mut walked: HashMap<u64, u64> = HashMap::with_capacity(rank.len());
        for f in book.entries.iter().filter(|e| e.folder).map(|e| e.id) {
            if walked.contains_key(&f) {
                continue;
            }
            let mut at = f;
            walked.insert(f, f);
            while let Some(&p) = parent.get(&at) {
                match walked.get(&p) {
                    None => {
                        walked.insert(p, f);
                        at = p;
                    }
                    // Back on this walk: `p` starts a circle.
                    Some(&w) if w == f => {
                        let mut first = p;
                        let mut c = parent[&p];
                        while c != p {
                            if rank[&c] < rank[&first] {
                                first = c;
                            }
                            c = parent[&c];
                        }
                        parent.remove(&first);
                        break;
                    }
                    // An earlier walk's: already settled.
                    Some(_) => break,
                }
            }
        }
        Tree { parent, names }
    }

    /// The folder `id` is in, if any.
    pub fn parent(&self, id: u64) -> Option<u64> {
        self.parent.get(&id).copied()
    }

    /// Whether `id` is a folder.
    pub fn is_folder(&self, id: u64) -> bool {
        self.names.contains_key(&id)
    }

    /// The folders holding `id`, the outermost first.
    pub fn ancestors(&self, id: u64) -> Vec<u64> {
        let mut out = Vec::new();
        let mut at = id;
        while let Some(p) = self.parent(at) {
            out.push(p);
            at = p;
        }
        out.reverse();
        out
    }

    /// The names of at most `most` of the folders nearest `id`, the
    /// outermost first, and whether there are more above them: a folder's
    /// place said in constant time, however deep the book nests.
    pub fn near_path(&self, id: u64, most: usize) -> (Vec<String>, bool) {
        let mut out = Vec::new();
        let mut at = id;
        while let Some(p) = self.parent(at) {
            if out.len() == most {
                out.reverse();
                return (out, true);
            }
            out.push(self.names[&p].clone());
            at = p;
        }
        out.reverse();
        (out, false)
    }

    /// How deep each folder of `book` is (1 for a folder at the top),
    /// each chain walked once.
    pub fn depths(&self, book: &Book) -> HashMap<u64, usize> {
        let mut depth: HashMap<u64, usize> = HashMap::with_capacity(self.names.len());
        for f in book.entries.iter().filter(|e| e.folder).map(|e| e.id) {
            let mut chain = vec![f];
            let mut at = f;
            while let Some(p) = self.parent(at) {
                if depth.contains_key(&p) {
                    break;
                }
                chain.push(p);
                at = p;
            }
            for id in chain.into_iter().rev() {
                if depth.contains_key(&id) {
                    continue;
                }
                let d = self
                    .parent(id)
                    .and_then(|p| depth.get(&p))
                    .map_or(1, |d| d + 1);
                depth.insert(id, d);
            }
        }
        depth
    }

    /// The names of the folders holding `id`, the outermost first.
    pub fn path(&self, id: u64) -> Vec<String> {
        self.ancestors(id)
            .into_iter()
            .map(|f| self.names[&f].clone())
            .collect()
    }

    /// Whether `id` is `folder` or inside it, at any depth.
    pub fn within(&self, id: u64, folder: u64) -> bool {
        id == folder || self.ancestors(id).contains(&folder)
    }

    /// Every entry and folder inside `folder`, at any depth, in the book's
    /// order.
    pub fn inside(&self, book: &Book, folder: u64) -> Vec<u64> {
        book.entries
            .iter()
            .map(|e| e.id)
            .filter(|&id| id != folder && self.within(id, folder))
            .collect()
    }
}

/// The folder `e` is in, as [`Tree::parent`] answers it, without building
/// the tree for an entry that is no folder: only folders hold entries, so
/// such an entry is never inside itself and its parent is good when it
/// names a folder of the book (one editor keystroke asks this).
pub fn parent_of(book: &Book, e: &Entry) -> Option<u64> {
    let p = e.parent?;
    if e.folder {
        return Tree::of(book).parent(e.id);
    }
    book.entry(p).is_some_and(|f| f.folder).then_some(p)
}

/// Clears the parents [`Tree`] does not trust (a parent that is no folder
/// of the book, a folder inside itself); returns how many were cleared.
pub fn repair(book: &mut Book) -> usize {
    let tree = Tree::of(book);
    let mut cleared = 0;
    for e in &mut book.entries {
        if e.parent.is_some() && tree.parent(e.id) != e.parent {
            e.parent = None;
            cleared += 1;
        }
    }
    cleared
}

/// What [`flatten`] could not carry.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Flattened {
    /// Folders written as their entries' paths.
    pub folders: usize,
    /// Folders with no entry inside, which leave no trace.
    pub empty: Vec<String>,
}

/// `book` without its folder entries, each entry in a folder carrying its
/// path in `extensions` ([`PATH`]), or inside `extensions[ns]` (a format
/// that writes only its own namespace's fields back as entry fields): the
/// form of the formats without folders. `None` when the book has no
/// folders.
pub fn flatten(book: &Book, ns: Option<&str>) -> Option<(Book, Flattened)> {
    if !book.entries.iter().any(|e| e.folder) {
        return None;
    }
    let tree = Tree::of(book);
    let mut used: HashSet<u64> = HashSet::new();
    let mut out = Book {
        entries: Vec::with_capacity(book.entries.len()),
        ..book.clone()
    };
    out.entries.clear();
    for e in &book.entries {
        if e.folder {
            continue;
        }
        let mut e = e.clone();
        let up = tree.ancestors(e.id);
        if !up.is_empty() {
            let path = json!(tree.path(e.id));
            match ns {
                None => {
                    e.extensions.insert(PATH.into(), path);
                }
                Some(ns) => {
                    let bag = e
                        .extensions
                        .entry(ns)
                        .or_insert_with(|| Value::Object(Default::default()));
                    if let Value::Object(bag) = bag {
                        bag.insert(PATH.into(), path);
                    }
                }
            }
            used.extend(up);
        }
        e.parent = None;
        out.entries.push(e);
    }
    let empty = book
        .entries
        .iter()
        .filter(|e| e.folder && !used.contains(&e.id))
        .map(|e| {
            let mut p = tree.path(e.id);
            p.push(e.comment.clone());
            p.join(" / ")
        })
        .collect();
    let folders = book.entries.iter().filter(|e| e.folder).count();
    Some((out, Flattened { folders, empty }))
}

/// Where an entry's [`PATH`] is: in its `extensions`, or in one of the
/// format namespaces there (`None`).
fn path_at(e: &Entry) -> Option<(Option<&str>, Vec<String>)> {
    let read = |v: &Value| -> Option<Vec<String>> {
        let Value::Array(a) = v else { return None };
        a.iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
    };
    if let Some(p) = e.extensions.get(PATH).and_then(read) {
        return Some((None, p));
    }
    e.extensions.iter().find_map(|(ns, v)| {
        let p = v.as_object()?.get(PATH).and_then(read)?;
        Some((Some(ns.as_str()), p))
    })
}

/// Rebuilds the folders of a book read from a format without folders:
/// each entry's [`PATH`] (an array of names, in its `extensions` or in a
/// format's namespace there) becomes its place in folder entries made for
/// it, one per distinct path, placed before the first entry they hold. A
/// path that is not an array of strings stays where it is. Returns how
/// many folders were made.
pub fn unflatten(book: &mut Book) -> usize {
    let path_of = |e: &Entry| path_at(e).map(|(_, p)| p);
    if !book.entries.iter().any(|e| path_of(e).is_some()) {
        return 0;
    }
    // Folders by their parent and name, made in the order their first
    // entry comes (a key per level, not the whole path: a path of 50,000
    // names is one step a level, not 50,000).
    let mut made: HashMap<(Option<u64>, String), u64> = HashMap::new();
    let mut used: HashSet<u64> = book.entries.iter().map(|e| e.id).collect();
    let mut next = book.next_id();
    let mut fresh = || loop {
        if next > crate::model::MAX_ID {
            next = 0;
        }
        let id = next;
        next += 1;
        if used.insert(id) {
            return id;
        }
    };
    let old = std::mem::take(&mut book.entries);
    let mut count = 0;
    for mut e in old {
        let Some((ns, path)) = path_at(&e).map(|(ns, p)| (ns.map(str::to_string), p)) else {
            book.entries.push(e);
            continue;
        };
        match ns {
            None => {
                e.extensions.remove(PATH);
            }
            Some(ns) => {
                if let Some(Value::Object(bag)) = e.extensions.get_mut(&ns) {
                    bag.remove(PATH);
                    if bag.is_empty() {
                        e.extensions.remove(&ns);
                    }
                }
            }
        }
        let mut parent = None;
        for name in path {
            let key = (parent, name);
            let id = match made.get(&key) {
                Some(&id) => id,
                None => {
                    let id = fresh();
                    book.entries.push(Entry {
                        id,
                        comment: key.1.clone(),
                        folder: true,
                        parent,
                        ..Entry::default()
                    });
                    made.insert(key, id);
                    count += 1;
                    id
                }
            };
            parent = Some(id);
        }
        e.parent = parent;
        book.entries.push(e);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u64, name: &str, folder: bool, parent: Option<u64>) -> Entry {
        Entry {
            id,
            comment: name.into(),
            folder,
            parent,
            ..Entry::default()
        }
    }

    fn book() -> Book {
        Book {
            entries: vec![
                entry(1, "Places", true, None),
                entry(2, "Harbor", true, Some(1)),
                entry(3, "Dock", false, Some(2)),
                entry(4, "Sun", false, None),
                entry(5, "Tower", false, Some(1)),
                entry(6, "Empty", true, Some(1)),
            ],
            ..Book::default()
        }
    }

    /// An entry's path names its folders from the top; `inside` lists a
    /// folder's whole subtree in the book's order.
    #[test]
    fn tree_paths_and_subtrees() {
        let b = book();
        let t = Tree::of(&b);
        assert_eq!(t.path(3), ["Places", "Harbor"]);
        assert_eq!(t.path(4), Vec::<String>::new());
        assert_eq!(t.inside(&b, 1), [2, 3, 5, 6]);
        assert!(t.within(3, 1) && !t.within(4, 1));
    }

    /// A parent that is no folder, or a folder inside itself, is cleared.
    #[test]
    fn repair_clears_parents_that_are_no_folder_or_a_cycle() {
        let mut b = book();
        b.entries[0].parent = Some(2); // Places in Harbor in Places
        b.entries[3].parent = Some(5); // Sun in an entry that is no folder
        b.entries[4].parent = Some(99); // Tower in nothing
        let t = Tree::of(&b);
        for e in &b.entries {
            assert_eq!(parent_of(&b, e), t.parent(e.id), "entry {}", e.id);
        }
        assert_eq!(repair(&mut b), 3);
        assert_eq!(Tree::of(&b).path(3), ["Places", "Harbor"]);
        assert_eq!(b.entries[3].parent, None);
    }

    /// Flattening writes paths and drops folders; unflattening makes them
    /// again with the same tree (empty folders reported, not kept).
    #[test]
    fn flatten_then_unflatten_keeps_the_tree_of_every_entry() {
        let b = book();
        let (mut flat, facts) = flatten(&b, None).unwrap();
        assert_eq!(facts.folders, 3);
        assert_eq!(facts.empty, ["Places / Empty"]);
        assert_eq!(flat.entries.len(), 3);
        assert_eq!(
            flat.entries[0].extensions[PATH],
            json!(["Places", "Harbor"])
        );
        assert!(flatten(&flat, None).is_none());
        assert_eq!(unflatten(&mut flat), 2);
        let t = Tree::of(&flat);
        let path = |name: &str| {
            let e = flat.entries.iter().find(|e| e.comment == name).unwrap();
            assert!(!e.extensions.contains_key(PATH));
            t.path(e.id)
        };
        assert_eq!(path("Dock"), ["Places", "Harbor"]);
        assert_eq!(path("Tower"), ["Places"]);
        assert_eq!(path("Sun"), Vec::<String>::new());
        let names: Vec<&str> = flat.entries.iter().map(|e| e.comment.as_str()).collect();
        assert_eq!(names, ["Places", "Harbor", "Dock", "Sun", "Tower"]);
    }
}

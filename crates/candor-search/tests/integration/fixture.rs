//! The one fixture of the search tests: the same files as `Documents` and
//! as a `Tree` over a temporary directory, searched with 1, 2 and 4
//! threads; the comparison that says they agree; and path order.

use std::path::Path;
use std::time::Duration;

use candor_search::{Bounded, Completeness, Corpus, Documents, Match, Skipped, Total, Tree};
use proptest::prelude::*;
use tempfile::TempDir;

/// A name as a tree writes it in a path (as `Match::path` documents
/// it): unchanged when it is UTF-8 without a `\`; otherwise `\` as `\\`
/// and each byte outside valid UTF-8 as `\xhh`.
pub fn written_name(name: &[u8]) -> String {
    let mut out = String::new();
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// A path as a tree writes it: its names from the root, each as
/// `written_name` writes it, joined by `/`.
pub fn written_path(names: &[Vec<u8>]) -> String {
    let names: Vec<String> = names.iter().map(|n| written_name(n)).collect();
    names.join("/")
}

/// Path order: component by component, each compared by its bytes, so
/// that a folder's files come before a sibling whose name extends the
/// folder's ("a/b" < "a-c" < "a.txt").
pub fn path_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').cmp(b.split('/'))
}

/// Writes `bytes` at `name` (a `/`-separated relative path) below `root`,
/// with the folders above it.
pub fn write(root: &Path, name: &str, bytes: &[u8]) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

/// Writes `files` under a new temporary directory.
pub fn write_files(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, bytes) in files {
        write(dir.path(), name, bytes);
    }
    dir
}

/// A tree over `dir` that starts its second thread at once, so that even
/// small trees are searched in parallel.
pub fn tree(dir: &TempDir) -> Tree {
    Tree::new(dir.path())
        .expect("a tree")
        .threads(2)
        .start_threads_after(Duration::ZERO)
}

/// The thread counts every tree is searched with, each named for
/// messages: one thread; two, the caller's alone for the first
/// millisecond (the default), so small trees end before the other starts;
/// four, the others starting after the first file.
pub fn threaded(tree: Tree) -> [(&'static str, Tree); 3] {
    [
        ("tree, 1 thread", tree.clone().threads(1)),
        ("tree, 2 threads, alone first", tree.clone().threads(2)),
        (
            "tree, 4 threads at once",
            tree.threads(4).start_threads_after(Duration::ZERO),
        ),
    ]
}

/// The same files in memory and on disk, the tree with every thread
/// count of [`threaded`].
pub struct Fixture {
    pub docs: Documents<'static>,
    pub trees: [(&'static str, Tree); 3],
    dir: TempDir,
}

impl Fixture {
    /// Writes `files` (name, contents) to a temporary directory and to
    /// `Documents`.
    pub fn new(files: &[(&str, &[u8])]) -> Fixture {
        let dir = write_files(files);
        let mut docs = Documents::new();
        for (name, bytes) in files {
            docs.insert(name.to_string(), bytes.to_vec())
                .expect("a fixture name is a document name");
        }
        let tree = Tree::new(dir.path()).expect("a tree");
        Fixture {
            docs,
            trees: threaded(tree),
            dir,
        }
    }

    /// [`Fixture::new`] for files built at run time.
    pub fn owned(files: &[(String, Vec<u8>)]) -> Fixture {
        let files: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
            .collect();
        Fixture::new(&files)
    }

    /// The folder the trees search.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The tree searched with one thread.
    pub fn tree1(&self) -> &Tree {
        &self.trees[0].1
    }

    /// Every corpus, named for messages: the documents first, then the
    /// trees, one thread first.
    pub fn all(&self) -> [(&'static str, &dyn Corpus); 4] {
        let [(n1, t1), (n2, t2), (n4, t4)] = &self.trees;
        [("documents", &self.docs), (n1, t1), (n2, t2), (n4, t4)]
    }
}

/// The parts of a result that must not depend on the corpus kind (cursors
/// do: they are bound to the corpus).
pub fn portable<T: Clone>(b: &Bounded<T>) -> (Vec<T>, Completeness, Total, Skipped) {
    (
        b.items().to_vec(),
        b.completeness().clone(),
        b.total(),
        b.skipped().clone(),
    )
}

/// The path of every item, in order.
pub fn paths_of(b: &Bounded<Match>) -> Vec<String> {
    b.iter().map(|m| m.path.clone()).collect()
}

/// Checks that the results of one request on every corpus of
/// [`Fixture::all`] (in its order) agree: the trees exactly, cursors
/// included, and the documents with the tree on all but cursors.
pub fn agree<T: Clone + PartialEq + std::fmt::Debug>(
    results: &[(&'static str, Bounded<T>)],
) -> Result<(), TestCaseError> {
    prop_assert_eq!(results.len(), 4, "a result from every corpus");
    let (_, docs) = &results[0];
    let (_, t1) = &results[1];
    for (name, tree) in &results[2..] {
        prop_assert_eq!(t1, tree, "{} differs from the tree on one thread", name);
    }
    prop_assert_eq!(portable(docs), portable(t1), "documents and tree differ");
    Ok(())
}

/// Checks that the pages of one walk on every corpus of [`Fixture::all`]
/// agree page by page, as [`agree`] has it.
pub fn agree_pages<T: Clone + PartialEq + std::fmt::Debug>(
    results: &[(&'static str, Vec<Bounded<T>>)],
) -> Result<(), TestCaseError> {
    let (_, first) = &results[0];
    for (name, pages) in results {
        prop_assert_eq!(pages.len(), first.len(), "{}: the number of pages", name);
    }
    for i in 0..first.len() {
        let page: Vec<(&'static str, Bounded<T>)> =
            results.iter().map(|(n, p)| (*n, p[i].clone())).collect();
        agree(&page)?;
    }
    Ok(())
}

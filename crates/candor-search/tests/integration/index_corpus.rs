//! `Index` against `Tree`: the same answers (items, order, totals,
//! skipped) page by page, over generated trees that change between the
//! build and the query, and the index's own promises (cursors that
//! outlive a generation, refused damage, a rewrite within one clock
//! tick).

use std::path::Path;
use std::time::{Duration, SystemTime};

use candor_search::{Bounded, Corpus, Cursor, ErrorKind, Index, Limits, Query, Tree};
use proptest::prelude::*;

/// Sets the modification time of `path` (a file or a folder) an hour
/// back, so that a build does not count it as changed within its tick.
pub(crate) fn age(path: &Path) {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.set_modified(hour_ago);
    }
}

/// Ages every file and folder below `root`, and `root` itself.
pub(crate) fn age_all(root: &Path) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if let Ok(list) = std::fs::read_dir(&dir) {
            for entry in list.flatten() {
                let path = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(path),
                    Ok(t) if t.is_file() => age(&path),
                    _ => {}
                }
            }
        }
        age(&dir);
    }
}

/// What two answers must share: everything but the cursor's token
/// (bound to its corpus), and whether there is one.
pub(crate) fn same<T: PartialEq + std::fmt::Debug>(
    what: &str,
    tree: &Bounded<T>,
    index: &Bounded<T>,
) {
    assert_eq!(tree.items(), index.items(), "{what}: items");
    assert_eq!(
        tree.completeness(),
        index.completeness(),
        "{what}: completeness"
    );
    assert_eq!(tree.total(), index.total(), "{what}: total");
    assert_eq!(tree.start(), index.start(), "{what}: start");
    assert_eq!(tree.skipped(), index.skipped(), "{what}: skipped");
    assert_eq!(
        tree.next_cursor().is_some(),
        index.next_cursor().is_some(),
        "{what}: cursor"
    );
}

/// Follows both corpora's cursors page by page, comparing each page.
pub(crate) fn compare_pages<T: PartialEq + std::fmt::Debug>(
    what: &str,
    mut tree: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor_search::Error>,
    mut index: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor_search::Error>,
) {
    let (mut tc, mut ic): (Option<Cursor>, Option<Cursor>) = (None, None);
    for page in 0..2000 {
        let t = tree(tc.as_ref());
        let i = index(ic.as_ref());
        let (t, i) = match (t, i) {
            (Ok(t), Ok(i)) => (t, i),
            (Err(t), Err(i)) => {
                assert_eq!(t.to_string(), i.to_string(), "{what}: page {page}: errors");
                return;
            }
            (t, i) => panic!(
                "{what}: page {page}: tree {:?}, index {:?}",
                t.err(),
                i.err()
            ),
        };
        same(&format!("{what}: page {page}"), &t, &i);
        tc = t.next_cursor().cloned();
        ic = i.next_cursor().cloned();
        if tc.is_none() {
            return;
        }
    }
    panic!("{what}: more than 2000 pages");
}

/// Every query kind, every page, `limit` items a page.
///
/// A total counted past the limit under a scanned-bytes budget is
/// compared with the tree searching on one thread: on several, the tree
/// may begin a large file ahead of the answer while it still lists
/// lines, stop inside it by that budget, and end its count there as a
/// lower bound on one run and count the file whole on another (see
/// `Limits::max_scanned_bytes`); the index reads in path order, as one
/// thread does.
pub(crate) fn compare_all(tree: &Tree, index: &Index, query: &Query, limits: &Limits) {
    let sequential;
    let tree = if limits.get_count_total() && limits.get_max_scanned_bytes().is_some() {
        sequential = tree.clone().threads(1);
        &sequential
    } else {
        tree
    };
    let q = format!("{query:?} {limits:?}");
    compare_pages(
        &format!("search {q}"),
        |c| tree.search(query, limits, c),
        |c| index.search(query, limits, c),
    );
    compare_pages(
        &format!("count {q}"),
        |c| tree.count_per_file(query, limits, c),
        |c| index.count_per_file(query, limits, c),
    );
    compare_pages(
        &format!("files {q}"),
        |c| tree.files_with_matches(query, limits, c),
        |c| index.files_with_matches(query, limits, c),
    );
}

#[test]
fn a_small_tree_answers_as_the_tree_does() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, text) in [
        ("a.txt", "hello world\nfoo\n"),
        ("b/c.txt", "nothing here\n"),
        ("b/d.log", "hello log\n"),
        ("bin.dat", "hello\0binary\n"),
        (".hidden", "hello hidden\n"),
        (".gitignore", "*.log\n"),
    ] {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    age_all(root);
    let tree = Tree::new(root).unwrap().threads(1);
    let index = Index::build(tree.clone(), store.path()).unwrap();
    for limit in [1, 2, 100] {
        for q in [
            Query::literal("hello"),
            Query::literal("foo"),
            Query::regex("o+"),
        ] {
            compare_all(&tree, &index, &q, &Limits::new().limit(limit));
        }
    }
    // Changes after the build: seen.
    std::fs::write(root.join("b/c.txt"), "hello again\n").unwrap();
    std::fs::write(root.join("b/new.txt"), "hello new\n").unwrap();
    std::fs::remove_file(root.join("a.txt")).unwrap();
    std::fs::write(root.join(".gitignore"), "*.txt\n").unwrap();
    for limit in [1, 100] {
        compare_all(
            &tree,
            &index,
            &Query::literal("hello"),
            &Limits::new().limit(limit),
        );
    }
    assert!(index.update().unwrap());
    compare_all(&tree, &index, &Query::literal("hello"), &Limits::new());
}

/// A name in a generated tree: plain, spaced, accented, hidden, with a
/// backslash, or (on unix) not UTF-8.
pub(crate) fn name() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"a".to_vec()),
        Just(b"b".to_vec()),
        Just(b"c d".to_vec()),
        Just("\u{e9}t\u{e9}".as_bytes().to_vec()),
        Just(b".h".to_vec()),
        Just(b"x\\y".to_vec()),
        Just(b"k.log".to_vec()),
        Just(b"z.txt".to_vec()),
        Just(vec![0xff, b'n']),
    ]
}

pub(crate) fn rel_path() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(name(), 1..4)
}

/// A file's text: lines of a few words, a NUL (binary), a byte-order
/// mark, `\r\n`, no last newline.
pub(crate) fn text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"foo bar\n".to_vec()),
        Just(b"hello world\n".to_vec()),
        Just(b"FOO\r\n".to_vec()),
        Just(b"nothing\n".to_vec()),
        Just(b"\0".to_vec()),
        Just(b"\xEF\xBB\xBFfoo\n".to_vec()),
        Just(b"tail".to_vec()),
        Just(b"\xff\xfe bar\n".to_vec()),
        // Longer than one read block: read in several.
        Just(b"filler line\n".repeat(30_000)),
    ];
    prop::collection::vec(piece, 0..5).prop_map(|p| p.concat())
}

/// An ignore file's lines.
pub(crate) fn ignore_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("*.log"),
        Just("b/"),
        Just("!k.log"),
        Just(".h"),
        Just("!.h"),
        Just("z.txt"),
    ];
    prop::collection::vec(line, 0..3).prop_map(|l| l.join("\n") + "\n")
}

/// A change made between the build and the query.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    Edit(usize, Vec<u8>),
    Add(Vec<Vec<u8>>, Vec<u8>),
    Delete(usize),
    Rename(usize, Vec<Vec<u8>>),
    ReplaceFolder(usize),
    Ignore(String),
}

pub(crate) fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<prop::sample::Index>(), text()).prop_map(|(i, t)| Change::Edit(i.index(64), t)),
        (rel_path(), text()).prop_map(|(p, t)| Change::Add(p, t)),
        any::<prop::sample::Index>().prop_map(|i| Change::Delete(i.index(64))),
        (any::<prop::sample::Index>(), rel_path())
            .prop_map(|(i, p)| Change::Rename(i.index(64), p)),
        any::<prop::sample::Index>().prop_map(|i| Change::ReplaceFolder(i.index(64))),
        ignore_text().prop_map(Change::Ignore),
    ]
}

#[derive(Debug, Clone)]
struct Spec {
    files: Vec<(Vec<Vec<u8>>, Vec<u8>)>,
    ignore: Option<String>,
    links: bool,
    hidden: bool,
    follow: bool,
    threads: usize,
    changes: Vec<Change>,
    /// Changes made after the queries that follow `changes`, before the
    /// update: `update_as_seen` may leave them for the next update.
    later: Vec<Change>,
    /// The update after the queries is `update_as_seen`.
    as_seen: bool,
    /// Folders of many files besides (more entries than a chunk of
    /// stamps): a change in `files` makes a query skip past them.
    bulk: bool,
    /// Each file of `files` written twice, around a filler longer than
    /// the index's blocks of 64 KiB: every one takes several ids, and
    /// its matches lie in more than one.
    large: bool,
    queries: Vec<(Query, Limits)>,
    /// The tree's depth limit.
    max_depth: Option<usize>,
}

pub(crate) fn query() -> impl Strategy<Value = Query> {
    let word = prop_oneof![
        Just("foo"),
        Just("bar"),
        Just("hello"),
        Just("o"),
        Just("lo w"),
        Just("FOO"),
        Just("tail"),
    ];
    let query = prop_oneof![
        word.clone().prop_map(Query::literal),
        (word.clone(), word.clone()).prop_map(|(a, b)| Query::literals([a, b])),
        word.clone()
            .prop_map(|w| Query::literal(w).case_insensitive(true)),
        word.prop_map(|w| Query::literal(w).whole_word(true)),
        Just(Query::regex("fo+|ba")),
        Just(Query::regex("^$")),
    ];
    // Now and then paths named: folders (the depth counts from them),
    // files (read as text, binary or not), a hidden one, a missing one.
    let paths = prop_oneof![
        4 => Just(Vec::new()),
        1 => Just(vec!["a"]),
        1 => Just(vec!["a/z.txt", "b"]),
        1 => Just(vec!["z.txt", ".h", "missing"]),
        1 => Just(vec!["a/a", "b/z.txt"]),
    ];
    (query, paths).prop_map(|(q, paths)| q.paths(paths))
}

pub(crate) fn limits() -> impl Strategy<Value = Limits> {
    (
        prop_oneof![Just(None), (1usize..4).prop_map(Some)],
        any::<bool>(),
        // Work budgets, tight: they stop between files and inside one,
        // and the index's answer is the tree's wherever they stop.
        prop_oneof![4 => Just(None), 1 => (0u64..4).prop_map(Some)],
        prop_oneof![4 => Just(None), 1 => (0u64..400_000).prop_map(Some)],
    )
        .prop_map(|(l, count, files, scanned)| {
            let mut limits = Limits::new().count_total(count);
            if let Some(files) = files {
                limits = limits.max_files(files);
            }
            if let Some(scanned) = scanned {
                limits = limits.max_scanned_bytes(scanned);
            }
            match l {
                Some(l) => limits.limit(l),
                None => limits,
            }
        })
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec((rel_path(), text()), 0..10),
        prop::option::of(ignore_text()),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(1usize), Just(4)],
        (
            prop::collection::vec(change(), 0..4),
            prop::collection::vec(change(), 0..2),
            any::<bool>(),
            prop_oneof![3 => Just(false), 1 => Just(true)],
        ),
        prop::collection::vec((query(), limits()), 1..4),
        (
            prop::bool::weighted(0.3),
            prop_oneof![3 => Just(None), 1 => (0usize..4).prop_map(Some)],
        ),
    )
        .prop_map(
            |(
                files,
                ignore,
                links,
                hidden,
                follow,
                threads,
                (changes, later, as_seen, bulk),
                queries,
                (large, max_depth),
            )| {
                Spec {
                    files,
                    ignore,
                    links,
                    hidden,
                    follow,
                    threads,
                    changes,
                    later,
                    as_seen,
                    bulk,
                    large,
                    queries,
                    max_depth,
                }
            },
        )
}

#[cfg(unix)]
pub(crate) fn os(bytes: &[u8]) -> std::ffi::OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes.to_vec())
}

#[cfg(not(unix))]
pub(crate) fn os(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

pub(crate) fn join(root: &Path, names: &[Vec<u8>]) -> std::path::PathBuf {
    let mut path = root.to_path_buf();
    for n in names {
        path.push(os(n));
    }
    path
}

/// Writes a file, making its folders; a path that a file blocks is
/// passed over.
pub(crate) fn put(root: &Path, names: &[Vec<u8>], text: &[u8]) {
    let path = join(root, names);
    if let Some(parent) = path.parent() {
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
    }
    if path.is_dir() {
        return;
    }
    let _ = std::fs::write(&path, text);
}

/// The files below `root` (not following links), sorted.
fn files_below(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => out.push(entry.path()),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

pub(crate) fn apply(root: &Path, change: &Change) {
    let files = files_below(root);
    let pick = |i: usize| (!files.is_empty()).then(|| files[i % files.len()].clone());
    match change {
        Change::Edit(i, text) => {
            if let Some(f) = pick(*i) {
                let _ = std::fs::write(f, text);
            }
        }
        Change::Add(names, text) => put(root, names, text),
        Change::Delete(i) => {
            if let Some(f) = pick(*i) {
                let _ = std::fs::remove_file(f);
            }
        }
        Change::Rename(i, names) => {
            if let Some(f) = pick(*i) {
                let to = join(root, names);
                if let Some(parent) = to.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                if !to.is_dir() {
                    let _ = std::fs::rename(f, to);
                }
            }
        }
        Change::ReplaceFolder(i) => {
            if let Some(f) = pick(*i) {
                let Some(dir) = f.parent().filter(|d| *d != root) else {
                    return;
                };
                let _ = std::fs::remove_dir_all(dir);
                let _ = std::fs::create_dir_all(dir);
                let _ = std::fs::write(dir.join("z.txt"), "foo again\n");
            }
        }
        Change::Ignore(text) => {
            let _ = std::fs::write(root.join(".gitignore"), text);
        }
    }
}

fn check(spec: &Spec) {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (names, text) in &spec.files {
        if spec.large {
            let filler = b"- a line left as is -\n".repeat(2_980);
            put(root, names, &[&text[..], &filler, text].concat());
        } else {
            put(root, names, text);
        }
    }
    if spec.bulk {
        // More than two chunks of stamps each; few matches, so few pages.
        for folder in ["0bulk", "zbulk"] {
            for i in 0..150 {
                let name = format!("f{i:03}.txt").into_bytes();
                let words = if i == 149 { "foo bar\n" } else { "nothing\n" };
                put(root, &[folder.as_bytes().to_vec(), name], words.as_bytes());
            }
        }
    }
    if let Some(ignore) = &spec.ignore {
        std::fs::write(root.join(".gitignore"), ignore).unwrap();
    }
    #[cfg(unix)]
    if spec.links {
        let _ = std::os::unix::fs::symlink("a", root.join("ln-dir"));
        let _ = std::os::unix::fs::symlink("a/z.txt", root.join("ln-file"));
        let _ = std::os::unix::fs::symlink("missing", root.join("ln-broken"));
        let _ = std::os::unix::fs::symlink("/", root.join("ln-out"));
    }
    age_all(root);
    let mut tree = Tree::new(root)
        .unwrap()
        .threads(spec.threads)
        .hidden(spec.hidden)
        .follow_links(spec.follow)
        .parent_ignores(false);
    if let Some(depth) = spec.max_depth {
        tree = tree.max_depth(depth);
    }
    let index = Index::build(tree.clone(), store.path()).unwrap();
    // With the bulk folders, a page of one or two files would make a
    // hundred pages: those budgets are left to the trees without them.
    let queries: Vec<&(Query, Limits)> = spec
        .queries
        .iter()
        .filter(|(_, l)| !spec.bulk || l.get_max_files().is_none_or(|n| n > 8))
        .collect();
    for (query, limits) in &queries {
        compare_all(&tree, &index, query, limits);
    }
    for change in &spec.changes {
        apply(root, change);
    }
    if spec.bulk {
        // A folder of many entries changed: queries walk it again and
        // skip its recorded entries, a chunk of stamps and more.
        std::fs::write(root.join("0bulk/new.txt"), "foo\n").unwrap();
    }
    // Another process opens the index, older than the tree now, and
    // watches it: the changes made while nothing watched are seen.
    let watched = Index::open(tree.clone(), store.path()).unwrap();
    let _ = watched.watch().unwrap();
    if let Some((query, limits)) = queries.first() {
        compare_all(&tree, &watched, query, limits);
    }
    drop(watched);
    for (query, limits) in &queries {
        compare_all(&tree, &index, query, limits);
    }
    for change in &spec.later {
        apply(root, change);
    }
    if spec.as_seen {
        index.update_as_seen().unwrap();
    } else {
        index.update().unwrap();
    }
    for (query, limits) in &queries {
        compare_all(&tree, &index, query, limits);
    }
    // Whatever the update left out, the next one records.
    index.update().unwrap();
    for (query, limits) in &queries {
        compare_all(&tree, &index, query, limits);
    }
    // A fresh process's view: opened from disk.
    let reopened = Index::open(tree.clone(), store.path()).unwrap();
    if let Some((query, limits)) = queries.first() {
        compare_all(&tree, &reopened, query, limits);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_index_answers_as_the_tree_does(spec in spec()) {
        check(&spec);
    }
}

/// A tree of `files`, aged, and its index.
pub(crate) fn indexed(
    files: &[(impl AsRef<str>, impl AsRef<str>)],
) -> (tempfile::TempDir, tempfile::TempDir, Tree, Index) {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name.as_ref());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text.as_ref()).unwrap();
    }
    age_all(dir.path());
    let tree = Tree::new(dir.path()).unwrap().threads(1);
    let index = Index::build(tree.clone(), store.path().join("idx")).unwrap();
    (dir, store, tree, index)
}

#[test]
fn a_cursor_outlives_the_generation_it_was_issued_under() {
    let (dir, store, _tree, index) = indexed(&[("a.txt", "x\nx\nx\n"), ("b.txt", "x\n")]);
    let query = Query::literal("x");
    let limits = Limits::new().limit(1);
    let first = index.search(&query, &limits, None).unwrap();
    let second = index.search(&query, &limits, first.next_cursor()).unwrap();
    assert_eq!(second.start(), 1);
    // A file elsewhere changes and an update makes a new generation: the
    // cursor resumes, in this process and in one that opens the index.
    std::fs::write(dir.path().join("c.txt"), "x\n").unwrap();
    assert!(index.update().unwrap());
    let again = index.search(&query, &limits, first.next_cursor()).unwrap();
    assert_eq!(again.items(), second.items());
    assert_eq!(again.start(), 1);
    let reopened = Index::open(index.get_tree().clone(), store.path().join("idx")).unwrap();
    let again = reopened
        .search(&query, &limits, first.next_cursor())
        .unwrap();
    assert_eq!(again.items(), second.items());
    // The file it resumes in changes: stale, updated or not.
    std::fs::write(dir.path().join("a.txt"), "x\ny\nx\n").unwrap();
    for corpus in [&index, &reopened] {
        let err = corpus
            .search(&query, &limits, first.next_cursor())
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    }
    assert!(index.update().unwrap());
    let err = index
        .search(&query, &limits, first.next_cursor())
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
}

/// The index's files, by name.
pub(crate) fn index_files(store: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

#[test]
fn a_damaged_index_is_refused_never_read() {
    let (_dir, store, tree, _index) = indexed(&[("a.txt", "x\n"), ("b/c.txt", "y\n")]);
    let idx = store.path().join("idx");
    let files = index_files(&idx);
    let manifest = files
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "manifest"))
        .unwrap()
        .clone();
    let base = files
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "grams"))
        .unwrap()
        .clone();
    let good_manifest = std::fs::read(&manifest).unwrap();
    let good_base = std::fs::read(&base).unwrap();
    let refused = |what: &str| {
        let err = Index::open(tree.clone(), &idx).unwrap_err();
        match err.kind() {
            ErrorKind::UnusableIndex { reason, .. } => reason.clone(),
            other => panic!("{what}: {other:?}"),
        }
    };
    // A flipped byte in the body: the checksum.
    let mut bytes = good_manifest.clone();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&manifest, &bytes).unwrap();
    assert!(refused("flipped").contains("checksum"));
    // Truncated.
    std::fs::write(&manifest, &good_manifest[..good_manifest.len() - 3]).unwrap();
    assert!(refused("truncated").contains("truncated"));
    // Another format version.
    let mut bytes = good_manifest.clone();
    bytes[8] = 99;
    std::fs::write(&manifest, &bytes).unwrap();
    assert!(refused("version").contains("version"));
    std::fs::write(&manifest, &good_manifest).unwrap();
    // A damaged base.
    std::fs::write(&base, &good_base[..10]).unwrap();
    refused("base");
    std::fs::write(&base, &good_base).unwrap();
    // Other walk rules.
    let other = Index::open(tree.clone().hidden(true), &idx).unwrap_err();
    assert!(other.to_string().contains("other walk rules"), "{other}");
    // Whole again: opened.
    assert!(Index::open(tree.clone(), &idx).is_ok());
    // Asked for, a rebuild replaces a damaged index.
    std::fs::write(&manifest, b"junk").unwrap();
    let rebuilt = Index::open_or_build(tree.clone(), &idx).unwrap();
    assert_eq!(
        rebuilt
            .search(&Query::literal("y"), &Limits::new(), None)
            .unwrap()
            .len(),
        1
    );
}

/// Three files of a few words, indexed: the tree's folder, the index's,
/// the tree, the index's folder and its base file.
fn three_files_indexed() -> (
    tempfile::TempDir,
    tempfile::TempDir,
    Tree,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let files = [
        ("a.txt", "hello world\n"),
        ("b.txt", "hello there\n"),
        ("c/d.txt", "other words\n"),
    ];
    let (dir, store, tree, _index) = indexed(&files);
    let idx = store.path().join("idx");
    let base = index_files(&idx)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "grams"))
        .unwrap();
    (dir, store, tree, idx, base)
}

/// The base's posting lists are read list by list, as queries need
/// them: a flipped bit anywhere in the base is refused when the index is
/// opened (the header, the head) or when a query reads the list it is in
/// (each list's checksum), never read as an answer that leaves a file
/// out.
#[test]
fn a_flipped_bit_in_the_posting_lists_is_never_an_answer() {
    let (_dir, _store, tree, idx, base) = three_files_indexed();
    let good = std::fs::read(&base).unwrap();
    let queries = ["hello", "there", "world", "other", "words"].map(Query::literal);
    let truth: Vec<_> = queries
        .iter()
        .map(|q| tree.search(q, &Limits::new(), None).unwrap())
        .collect();
    let mut answered = 0;
    let mut refused_by_a_list = 0;
    for at in 0..good.len() {
        for bit in [0, 7] {
            let mut bytes = good.clone();
            bytes[at] ^= 1 << bit;
            std::fs::write(&base, &bytes).unwrap();
            let index = match Index::open(tree.clone(), &idx) {
                Ok(index) => index,
                Err(e) => {
                    assert!(matches!(e.kind(), ErrorKind::UnusableIndex { .. }), "{e}");
                    continue;
                }
            };
            for (query, truth) in queries.iter().zip(&truth) {
                match index.search(query, &Limits::new(), None) {
                    Ok(answer) => {
                        assert_eq!(answer.items(), truth.items(), "byte {at} bit {bit}");
                        answered += 1;
                    }
                    Err(e) => {
                        assert!(
                            matches!(e.kind(), ErrorKind::UnusableIndex { .. }),
                            "byte {at} bit {bit}: {e}"
                        );
                        assert!(e.to_string().contains("checksum"), "{e}");
                        refused_by_a_list += 1;
                    }
                }
            }
        }
    }
    std::fs::write(&base, &good).unwrap();
    // Damage in one list refuses the queries that read it, and only them.
    assert!(refused_by_a_list > 0 && answered > 0);
}

/// `update_as_seen` records the tree as the last checked query saw it,
/// without taking its stamps again: a change that query saw is recorded,
/// one made after it is left for the next update (and seen by every query
/// meanwhile), where `update` records both.
#[test]
fn an_update_as_seen_records_what_the_query_saw() {
    for as_seen in [true, false] {
        let (dir, _store, tree, index) = indexed(&[
            ("a.txt", "one\n"),
            ("b.txt", "two\n"),
            ("c/d.txt", "three\n"),
        ]);
        let query = Query::literal("new");
        std::fs::write(dir.path().join("a.txt"), "one new\n").unwrap();
        age(&dir.path().join("a.txt"));
        same(
            "seen",
            &tree.search(&query, &Limits::new(), None).unwrap(),
            &index.search(&query, &Limits::new(), None).unwrap(),
        );
        assert!(index.is_behind());
        // After the query: another change in a folder it found unchanged.
        std::fs::write(dir.path().join("c/d.txt"), "three new\n").unwrap();
        age(&dir.path().join("c/d.txt"));
        if as_seen {
            assert!(index.update_as_seen().unwrap());
        } else {
            assert!(index.update().unwrap());
        }
        assert!(!index.is_behind());
        let truth = tree.search(&query, &Limits::new(), None).unwrap();
        assert_eq!(truth.len(), 2);
        same(
            "after",
            &truth,
            &index.search(&query, &Limits::new(), None).unwrap(),
        );
        // The change after the query: left out by `update_as_seen` (the
        // query finds it and says the index is behind), recorded by
        // `update`.
        assert_eq!(index.is_behind(), as_seen);
        index.update().unwrap();
        same(
            "updated",
            &truth,
            &index.search(&query, &Limits::new(), None).unwrap(),
        );
        assert!(!index.is_behind());
    }
}

/// A file every query reads (with a byte-order mark: in no posting
/// list) that an update put in the delta is kept by the next update
/// beside files read anew: the generation written still opens.
#[test]
fn updates_after_updates_write_an_index_that_opens() {
    let (dir, store, tree, index) = indexed(&[("a.txt", "x\n")]);
    std::fs::write(dir.path().join("b.txt"), "\u{feff}x\n").unwrap();
    age(&dir.path().join("b.txt"));
    assert!(index.update().unwrap());
    // `b.txt` untouched since: kept as it is.
    std::fs::write(dir.path().join("c.txt"), "x\n").unwrap();
    age(&dir.path().join("c.txt"));
    assert!(index.update().unwrap());
    let reopened = Index::open(tree.clone(), store.path().join("idx")).unwrap();
    let query = Query::literal("x");
    let truth = tree.search(&query, &Limits::new(), None).unwrap();
    assert_eq!(truth.len(), 3);
    same(
        "reopened",
        &truth,
        &reopened.search(&query, &Limits::new(), None).unwrap(),
    );
}

/// Damage that shows only when a query reads it: `open`'s index refuses
/// the query; `open_or_build`'s answers it by reading every file, says it
/// is behind, and its next update builds it again.
#[test]
fn damage_found_by_a_query_is_rebuilt_when_asked() {
    let (_dir, _store, tree, idx, base) = three_files_indexed();
    // The last byte is in the last list: that of `wor`, the greatest
    // trigram, which `world` and `words` need.
    let mut bytes = std::fs::read(&base).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&base, &bytes).unwrap();
    let queries = ["world", "words", "hello", "there"].map(Query::literal);

    let refusing = Index::open(tree.clone(), &idx).unwrap();
    let err = refusing
        .search(&queries[0], &Limits::new(), None)
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::UnusableIndex { .. }),
        "{err}"
    );
    assert!(!refusing.is_behind());

    let rebuilding = Index::open_or_build(tree.clone(), &idx).unwrap();
    assert!(!rebuilding.is_behind());
    for query in &queries {
        let truth = tree.search(query, &Limits::new(), None).unwrap();
        let answer = rebuilding.search(query, &Limits::new(), None).unwrap();
        same("damaged", &truth, &answer);
    }
    assert!(rebuilding.is_behind());
    assert!(rebuilding.update().unwrap());
    assert!(!rebuilding.is_behind());
    // A new base, whole: every query is answered from it, by any opener.
    let reopened = Index::open(tree.clone(), &idx).unwrap();
    for query in &queries {
        let truth = tree.search(query, &Limits::new(), None).unwrap();
        same(
            "rebuilt",
            &truth,
            &reopened.search(query, &Limits::new(), None).unwrap(),
        );
        same(
            "rebuilt",
            &truth,
            &rebuilding.search(query, &Limits::new(), None).unwrap(),
        );
    }
    assert!(!rebuilding.is_behind());
}

#[test]
fn a_build_that_never_switched_leaves_the_previous_generation() {
    let (dir, store, tree, index) = indexed(&[("a.txt", "x\n")]);
    let idx = store.path().join("idx");
    let before = index.generation();
    // A crash mid-build leaves temporary files and a manifest that
    // `CURRENT` does not name.
    std::fs::write(idx.join("gen-99.manifest.tmp123"), b"half written").unwrap();
    std::fs::write(idx.join("gen-99.manifest"), b"never switched to").unwrap();
    let opened = Index::open(tree.clone(), &idx).unwrap();
    assert_eq!(opened.generation(), before);
    std::fs::write(dir.path().join("a.txt"), "x\nx\n").unwrap();
    let found = opened
        .search(&Query::literal("x"), &Limits::new(), None)
        .unwrap();
    assert_eq!(found.len(), 2, "the tree as it is now");
}

#[test]
fn a_same_size_rewrite_within_the_build_tick_is_seen() {
    // Not aged: written within the clock tick of the build, so the build
    // cannot trust its stamp, and every query reads it.
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "old text\n").unwrap();
    let written = std::fs::metadata(&file).unwrap().modified().unwrap();
    let tree = Tree::new(dir.path()).unwrap();
    let index = Index::build(tree, store.path()).unwrap();
    // The same size, and the same modification time put back: only the
    // change time (which the stamp holds) and the tick rule tell.
    std::fs::write(&file, "new text\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(written)
        .unwrap();
    let found = index
        .search(&Query::literal("new"), &Limits::new(), None)
        .unwrap();
    assert_eq!(found.len(), 1);
    assert!(found.is_complete());
}

#[test]
fn a_query_of_named_paths_answers_as_the_tree_does() {
    let (dir, _store, tree, index) = indexed(&[
        ("a/x.txt", "foo\n"),
        ("a/.h/y.txt", "foo\n"),
        ("b/z.log", "foo\n"),
        (".gitignore", "*.log\n"),
    ]);
    std::fs::write(dir.path().join("a/new.txt"), "foo\n").unwrap();
    for paths in [
        vec!["a"],
        vec!["a/.h"],
        vec!["b/z.log", "missing"],
        vec![""],
    ] {
        let query = Query::literal("foo").paths(paths);
        compare_all(&tree, &index, &query, &Limits::new().limit(1));
    }
    let excerpt = candor_search::Excerpt::new("a/x.txt", 1..=1);
    assert_eq!(
        tree.excerpt(&excerpt, &Limits::new(), None).unwrap(),
        index.excerpt(&excerpt, &Limits::new(), None).unwrap()
    );
    let q = Query::literal("foo");
    same(
        "find_in_file",
        &tree
            .find_in_file("b/z.log", &q, &Limits::new(), None)
            .unwrap(),
        &index
            .find_in_file("b/z.log", &q, &Limits::new(), None)
            .unwrap(),
    );
    let mut seen = (Vec::new(), Vec::new());
    let t = tree
        .search_each(&q, &Limits::new(), None, &mut |m| {
            seen.0.push(m.clone());
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
    let i = index
        .try_search_each(&q, &Limits::new(), None, |m| {
            seen.1.push(m.clone());
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(seen.0, seen.1);
    assert_eq!((t.count(), t.total()), (i.count(), i.total()));
}

#[test]
fn a_large_tree_is_checked_on_two_threads_as_on_one() {
    // Enough entries for the stamps to be taken ahead on a second thread.
    let files: Vec<(String, String)> = (0..3000)
        .map(|i| {
            let text = if i % 97 == 0 { "needle\n" } else { "hay\n" };
            (format!("d{:02}/f{i:04}.txt", i % 60), text.to_owned())
        })
        .collect();
    let (dir, _store, tree, _) = indexed(&files);
    let store = tempfile::tempdir().unwrap();
    for threads in [1, 2, 4] {
        let tree = tree.clone().threads(threads);
        let index = Index::build(tree.clone(), store.path().join(format!("t{threads}"))).unwrap();
        compare_all(
            &tree,
            &index,
            &Query::literal("needle"),
            &Limits::new().limit(7),
        );
        // Changes deep in the order, and early.
        std::fs::write(dir.path().join("d59/f2999.txt"), "needle too\n").unwrap();
        std::fs::write(dir.path().join("d00/new.txt"), "needle new\n").unwrap();
        std::fs::remove_file(dir.path().join("d30/f0030.txt")).unwrap_or(());
        compare_all(&tree, &index, &Query::literal("needle"), &Limits::new());
        compare_all(
            &tree,
            &index,
            &Query::literal("needle"),
            &Limits::new().limit(3),
        );
    }
}

#[test]
fn a_watched_index_sees_changes_without_stats() {
    let (dir, _store, tree, index) = indexed(&[
        ("a/x.txt", "foo\n"),
        ("a/y.txt", "bar\n"),
        ("b/z.txt", "foo\n"),
    ]);
    if !index.watch().unwrap() {
        // The tree cannot be watched here: the checked mode answers.
        compare_all(&tree, &index, &Query::literal("foo"), &Limits::new());
        return;
    }
    let query = Query::literal("foo");
    compare_all(&tree, &index, &query, &Limits::new().limit(1));
    std::fs::write(dir.path().join("a/y.txt"), "foo now\n").unwrap();
    std::fs::write(dir.path().join("b/new.txt"), "foo new\n").unwrap();
    std::fs::remove_file(dir.path().join("a/x.txt")).unwrap();
    std::fs::create_dir(dir.path().join("c")).unwrap();
    std::fs::write(dir.path().join("c/deep.txt"), "foo deep\n").unwrap();
    compare_all(&tree, &index, &query, &Limits::new());
    assert!(index.is_behind());
    assert!(index.update().unwrap());
    compare_all(&tree, &index, &query, &Limits::new().limit(2));
    // After the update, a change is still seen.
    std::fs::write(dir.path().join("c/deep.txt"), "no more\n").unwrap();
    compare_all(&tree, &index, &query, &Limits::new());
}

/// A checked query that walks a changed folder again skips its recorded
/// entries, and needs the stamps of entries chunks further on: with one
/// thread or several, in the checked and the watched mode, the answer is
/// the tree's (and comes: a query must never wait on a stamp no thread
/// will take).
#[test]
fn a_query_that_skips_a_changed_folder_checks_what_follows() {
    let mut files: Vec<(String, String)> = (0..300)
        .map(|i| (format!("a/f{i:03}.txt"), "nothing\n".to_owned()))
        .collect();
    files.extend((0..300).map(|i| (format!("b/g{i:03}.txt"), "foo\n".to_owned())));
    for (threads, watch) in [(1, false), (4, false), (1, true)] {
        let (dir, store, tree, _index) = indexed(&files);
        let tree = tree.threads(threads);
        let index = Index::build(tree.clone(), store.path().join("threads")).unwrap();
        if watch {
            index.watch().unwrap();
        }
        std::fs::write(dir.path().join("a/new.txt"), "foo\n").unwrap();
        std::fs::write(dir.path().join("b/g299.txt"), "foo foo\n").unwrap();
        let (done, wait) = std::sync::mpsc::channel();
        let query = Query::literal("foo");
        let asked = std::thread::spawn(move || {
            let found = index.search(&query, &Limits::new(), None).unwrap();
            let _ = done.send(());
            found
        });
        wait.recv_timeout(Duration::from_secs(120))
            .expect("the query answers");
        let answer = asked.join().unwrap();
        let truth = tree
            .search(&Query::literal("foo"), &Limits::new(), None)
            .unwrap();
        same(
            &format!("threads {threads}, watched {watch}"),
            &truth,
            &answer,
        );
    }
}

/// An index opened from disk may be older than the tree: watching it
/// trusts nothing the watcher did not see until an update has checked
/// the whole tree (`watch` runs one), so changes made while no watcher
/// ran are in the answers.
#[test]
fn a_watched_index_opened_from_disk_sees_what_changed_before() {
    let files: Vec<(String, String)> = (0..30)
        .map(|i| (format!("d{:02}/f{i}.txt", i % 3), "nothing\n".to_owned()))
        .collect();
    let (dir, store, tree, built) = indexed(&files);
    drop(built);
    std::fs::write(dir.path().join("d01/before.txt"), "needle\n").unwrap();
    std::fs::write(dir.path().join("d02/f2.txt"), "needle\n").unwrap();
    age(&dir.path().join("d01/before.txt"));
    age(&dir.path().join("d02/f2.txt"));
    let index = Index::open(tree.clone(), store.path().join("idx")).unwrap();
    let watched = index.watch().unwrap();
    let query = Query::literal("needle");
    let truth = tree
        .files_with_matches(&query, &Limits::new(), None)
        .unwrap();
    assert_eq!(truth.len(), 2);
    let answer = index
        .files_with_matches(&query, &Limits::new(), None)
        .unwrap();
    same(&format!("watched: {watched}"), &truth, &answer);
}

/// A change made just before a watched query is in its answer: the query
/// waits until the watcher has reported every change made before it.
#[test]
fn a_watched_query_sees_a_change_made_just_before_it() {
    let files: Vec<(String, String)> = (0..20)
        .map(|i| (format!("d{i}/e/f.txt"), "nothing\n".to_owned()))
        .collect();
    let (dir, _store, tree, index) = indexed(&files);
    let watched = index.watch().unwrap();
    let query = Query::literal("needle");
    for i in 0..300 {
        let path = if i % 2 == 0 {
            dir.path().join(format!("new{i}.txt"))
        } else {
            dir.path().join(format!("d{}/e/new{i}.txt", i % 20))
        };
        std::fs::write(&path, "needle\n").unwrap();
        let truth = tree.search(&query, &Limits::new(), None).unwrap();
        let answer = index.search(&query, &Limits::new(), None).unwrap();
        same(&format!("write {i}, watched: {watched}"), &truth, &answer);
        if i % 50 == 49 {
            index.update().unwrap();
        }
    }
}

#[test]
fn a_budget_that_stops_inside_a_file_stops_there_through_the_index() {
    let filler = "filler line\n".repeat(30_000);
    let (_dir, _store, tree, index) = indexed(&[("a.txt", filler.as_str()), ("b.txt", "foo\n")]);
    let query = Query::literal("foo");
    for limits in [
        Limits::new().max_scanned_bytes(100_000),
        Limits::new().max_scanned_bytes(400_000),
        Limits::new().deadline(Duration::from_secs(3600)),
        Limits::new(),
    ] {
        compare_all(&tree, &index, &query, &limits);
    }
}

#[test]
fn two_updaters_and_a_reader_at_once_see_one_generation_or_the_other() {
    let (dir, store, tree, first) = indexed(&[("a.txt", "x\n"), ("b.txt", "y\n")]);
    let path = store.path().join("idx");
    let second = Index::open(tree.clone(), &path).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let query = Query::literal("x");
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut opened = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let index = Index::open(tree.clone(), &path).expect("a generation");
                let found = index
                    .files_with_matches(&query, &Limits::new(), None)
                    .expect("an answer");
                assert!(found.is_complete());
                opened += 1;
            }
            opened
        });
        let updaters: Vec<_> = [&first, &second]
            .into_iter()
            .enumerate()
            .map(|(u, index)| {
                let root = dir.path();
                s.spawn(move || {
                    for n in 0..15 {
                        std::fs::write(root.join(format!("u{u}-{n}.txt")), "x\n").unwrap();
                        index.update().expect("an update");
                    }
                })
            })
            .collect();
        for u in updaters {
            u.join().unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
    });
    // The store is whole, and answers as the tree does.
    let last = Index::open(tree.clone(), &path).unwrap();
    let from_index = last
        .files_with_matches(&query, &Limits::new(), None)
        .unwrap();
    let from_tree = tree
        .files_with_matches(&query, &Limits::new(), None)
        .unwrap();
    assert_eq!(from_index.items(), from_tree.items());
    assert_eq!(from_index.len(), 31);
}

/// The counting phase, searched in batches on several threads, and large
/// files read only in their candidate blocks: the tree's answers, with
/// the files budget spent before the count or within the page, a count
/// capped, and after the files changed.
#[test]
fn counts_on_several_threads_and_in_candidate_blocks_are_the_trees() {
    // 300 small files, 1 in 3 matching (two batches of files to read);
    // and large ones of many blocks: matches in one block, at the very
    // end without a newline, in none (each trigram of the word in another
    // block), in none but with every trigram in one block, in two blocks
    // apart; and binary files.
    let mut files: Vec<(String, String)> = (0..300)
        .map(|i| {
            let text = if i % 3 == 1 {
                "a needle\nmiss\n"
            } else {
                "miss\n"
            };
            (
                format!("d{:02}/f{i:03}.txt", i % 13),
                text.repeat(1 + i % 5),
            )
        })
        .collect();
    let filler = "filler line of the large files\n".repeat(5_000);
    let big = [
        ("big/a.txt", format!("needle first\n{filler}")),
        ("big/b.txt", format!("{filler}a needle\n{filler}")),
        ("big/c.txt", format!("{filler}last needle")),
        ("big/d.txt", format!("need\n{filler}edle\n{filler}")),
        ("big/e.txt", format!("{filler}needx edle\n{filler}")),
        ("big/f.txt", format!("needle\n{filler}{filler}needle\n")),
        // Binary files as the tree's reader finds them: a NUL early, one
        // in a first line longer than the binary prefix, one past the
        // prefix after whole lines (searched up to its line).
        ("bin/small.bin", "needle\0\n".to_owned()),
        (
            "bin/first.dat",
            format!("{}\0needle\n", "x".repeat(300_000)),
        ),
        (
            "bin/late.dat",
            format!("needle\n{}needle\0\nneedle\n", "x\n".repeat(150_000)),
        ),
    ];
    files.extend(big.iter().map(|(p, t)| (p.to_string(), t.clone())));
    let (dir, store, tree, _index) = indexed(&files);
    let tree = tree.threads(4);
    let index = Index::open(tree.clone(), store.path().join("idx")).unwrap();
    let queries = [
        Query::literal("needle"),
        Query::regex(r"\bneedle$"),
        Query::literal("NEEDLE").case_insensitive(true),
    ];
    // The first page of each kind, where the count goes on past it.
    let check = |index: &Index| {
        for query in &queries {
            for limit in [0, 2] {
                for (files, counted) in [
                    (None, None),
                    (Some(1), None),
                    (Some(40), None),
                    (Some(65), None),
                    (Some(305), None),
                    (None, Some(7)),
                    (None, Some(140)),
                ] {
                    let mut limits = Limits::new().limit(limit).count_total(true);
                    if let Some(files) = files {
                        limits = limits.max_files(files);
                    }
                    if let Some(counted) = counted {
                        limits = limits.max_counted(counted);
                    }
                    let what = format!("{query:?} {limits:?}");
                    let (t, i) = (
                        tree.search(query, &limits, None),
                        index.search(query, &limits, None),
                    );
                    same(&what, &t.unwrap(), &i.unwrap());
                    let t = tree.count_per_file(query, &limits, None).unwrap();
                    same(
                        &what,
                        &t,
                        &index.count_per_file(query, &limits, None).unwrap(),
                    );
                    let t = tree.files_with_matches(query, &limits, None).unwrap();
                    same(
                        &what,
                        &t,
                        &index.files_with_matches(query, &limits, None).unwrap(),
                    );
                }
            }
        }
    };
    check(&index);
    // Changed since: a large file's match moved to another block, one
    // grown, a small one gone.
    std::fs::write(
        dir.path().join("big/a.txt"),
        format!("{filler}needle moved\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("big/c.txt"),
        format!("{filler}last needle\nneedle\n"),
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("d03/f003.txt")).unwrap();
    check(&index);
    let _watch = index.watch().unwrap();
    check(&index);
    index.update().unwrap();
    check(&index);
}

/// A file with another name outside the tree (a hard link), written
/// through that name: no watch of the tree's folders hears of it, so a
/// watched query stats such a file as a checked one does, and answers as
/// the tree does.
#[cfg(unix)]
#[test]
fn a_watched_index_sees_a_write_through_another_name() {
    let outside = tempfile::tempdir().unwrap();
    let (dir, _store, tree, index) = indexed(&[("a.txt", "hay\n"), ("b/c.txt", "hay\n")]);
    // Linked after the files were written, before the build.
    std::fs::hard_link(dir.path().join("a.txt"), outside.path().join("alias")).unwrap();
    std::fs::hard_link(dir.path().join("b/c.txt"), dir.path().join("b/d.txt")).unwrap();
    age_all(dir.path());
    assert!(index.update().unwrap());
    assert!(index.watch().unwrap());
    let query = Query::literal("needle");
    std::fs::write(outside.path().join("alias"), "needle\n").unwrap();
    std::fs::write(dir.path().join("b/d.txt"), "needle too\n").unwrap();
    compare_all(&tree, &index, &query, &Limits::new());
    let found = index
        .files_with_matches(&query, &Limits::new(), None)
        .unwrap();
    assert_eq!(found.len(), 3, "{:?}", found.items());
}

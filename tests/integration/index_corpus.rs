//! `Index` against `Tree`: the same answers (items, order, totals,
//! skipped) page by page, over generated trees that change between the
//! build and the query, and the index's own promises (stale cursors,
//! refused damage, a rewrite within one clock tick).

use std::path::Path;
use std::time::{Duration, SystemTime};

use candor::{Bounded, Corpus, Cursor, ErrorKind, Index, Limits, Query, Tree};
use proptest::prelude::*;

/// Sets the modification time of `path` (a file or a folder) an hour
/// back, so that a build does not count it as changed within its tick.
fn age(path: &Path) {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.set_modified(hour_ago);
    }
}

/// Ages every file and folder below `root`, and `root` itself.
fn age_all(root: &Path) {
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
fn same<T: PartialEq + std::fmt::Debug>(what: &str, tree: &Bounded<T>, index: &Bounded<T>) {
    assert_eq!(tree.items(), index.items(), "{what}: items");
    assert_eq!(tree.completeness(), index.completeness(), "{what}: completeness");
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
fn compare_pages<T: PartialEq + std::fmt::Debug>(
    what: &str,
    mut tree: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor::Error>,
    mut index: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor::Error>,
) {
    let (mut tc, mut ic): (Option<Cursor>, Option<Cursor>) = (None, None);
    for page in 0..200 {
        let t = tree(tc.as_ref());
        let i = index(ic.as_ref());
        let (t, i) = match (t, i) {
            (Ok(t), Ok(i)) => (t, i),
            (Err(t), Err(i)) => {
                assert_eq!(t.to_string(), i.to_string(), "{what}: page {page}: errors");
                return;
            }
            (t, i) => panic!("{what}: page {page}: tree {:?}, index {:?}", t.err(), i.err()),
        };
        same(&format!("{what}: page {page}"), &t, &i);
        tc = t.next_cursor().cloned();
        ic = i.next_cursor().cloned();
        if tc.is_none() {
            return;
        }
    }
    panic!("{what}: more than 200 pages");
}

/// Every query kind, every page, `limit` items a page.
fn compare_all(tree: &Tree, index: &Index, query: &Query, limits: &Limits) {
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
        for q in [Query::literal("hello"), Query::literal("foo"), Query::regex("o+")] {
            compare_all(&tree, &index, &q, &Limits::new().limit(limit));
        }
    }
    // Changes after the build: seen.
    std::fs::write(root.join("b/c.txt"), "hello again\n").unwrap();
    std::fs::write(root.join("b/new.txt"), "hello new\n").unwrap();
    std::fs::remove_file(root.join("a.txt")).unwrap();
    std::fs::write(root.join(".gitignore"), "*.txt\n").unwrap();
    for limit in [1, 100] {
        compare_all(&tree, &index, &Query::literal("hello"), &Limits::new().limit(limit));
    }
    assert!(index.update().unwrap());
    compare_all(&tree, &index, &Query::literal("hello"), &Limits::new());
}

/// A name in a generated tree: plain, spaced, accented, hidden, with a
/// backslash, or (on unix) not UTF-8.
fn name() -> impl Strategy<Value = Vec<u8>> {
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

fn rel_path() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(name(), 1..4)
}

/// A file's text: lines of a few words, a NUL (binary), a byte-order
/// mark, `\r\n`, no last newline.
fn text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"foo bar\n".to_vec()),
        Just(b"hello world\n".to_vec()),
        Just(b"FOO\r\n".to_vec()),
        Just(b"nothing\n".to_vec()),
        Just(b"\0".to_vec()),
        Just(b"\xEF\xBB\xBFfoo\n".to_vec()),
        Just(b"tail".to_vec()),
        Just(b"\xff\xfe bar\n".to_vec()),
    ];
    prop::collection::vec(piece, 0..5).prop_map(|p| p.concat())
}

/// An ignore file's lines.
fn ignore_text() -> impl Strategy<Value = String> {
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
enum Change {
    Edit(usize, Vec<u8>),
    Add(Vec<Vec<u8>>, Vec<u8>),
    Delete(usize),
    Rename(usize, Vec<Vec<u8>>),
    ReplaceFolder(usize),
    Ignore(String),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<prop::sample::Index>(), text()).prop_map(|(i, t)| Change::Edit(i.index(64), t)),
        (rel_path(), text()).prop_map(|(p, t)| Change::Add(p, t)),
        any::<prop::sample::Index>().prop_map(|i| Change::Delete(i.index(64))),
        (any::<prop::sample::Index>(), rel_path()).prop_map(|(i, p)| Change::Rename(i.index(64), p)),
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
    queries: Vec<(Query, Limits)>,
}

fn query() -> impl Strategy<Value = Query> {
    let word = prop_oneof![
        Just("foo"),
        Just("bar"),
        Just("hello"),
        Just("o"),
        Just("lo w"),
        Just("FOO"),
        Just("tail"),
    ];
    prop_oneof![
        word.clone().prop_map(Query::literal),
        (word.clone(), word.clone()).prop_map(|(a, b)| Query::literals([a, b])),
        word.clone().prop_map(|w| Query::literal(w).case_insensitive(true)),
        word.prop_map(|w| Query::literal(w).whole_word(true)),
        Just(Query::regex("fo+|ba")),
        Just(Query::regex("^$")),
    ]
}

fn limits() -> impl Strategy<Value = Limits> {
    (prop_oneof![Just(None), (1usize..4).prop_map(Some)], any::<bool>()).prop_map(|(l, count)| {
        let limits = Limits::new().count_total(count);
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
        prop::collection::vec(change(), 0..4),
        prop::collection::vec((query(), limits()), 1..4),
    )
        .prop_map(|(files, ignore, links, hidden, follow, threads, changes, queries)| Spec {
            files,
            ignore,
            links,
            hidden,
            follow,
            threads,
            changes,
            queries,
        })
}

#[cfg(unix)]
fn os(bytes: &[u8]) -> std::ffi::OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes.to_vec())
}

#[cfg(not(unix))]
fn os(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

fn join(root: &Path, names: &[Vec<u8>]) -> std::path::PathBuf {
    let mut path = root.to_path_buf();
    for n in names {
        path.push(os(n));
    }
    path
}

/// Writes a file, making its folders; a path that a file blocks is
/// passed over.
fn put(root: &Path, names: &[Vec<u8>], text: &[u8]) {
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

fn apply(root: &Path, change: &Change) {
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
        put(root, names, text);
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
    let tree = Tree::new(root)
        .unwrap()
        .threads(spec.threads)
        .hidden(spec.hidden)
        .follow_links(spec.follow)
        .parent_ignores(false);
    let index = Index::build(tree.clone(), store.path()).unwrap();
    for (query, limits) in &spec.queries {
        compare_all(&tree, &index, query, limits);
    }
    for change in &spec.changes {
        apply(root, change);
    }
    for (query, limits) in &spec.queries {
        compare_all(&tree, &index, query, limits);
    }
    index.update().unwrap();
    for (query, limits) in &spec.queries {
        compare_all(&tree, &index, query, limits);
    }
    // A fresh process's view: opened from disk.
    let reopened = Index::open(tree.clone(), store.path()).unwrap();
    let (query, limits) = &spec.queries[0];
    compare_all(&tree, &reopened, query, limits);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_index_answers_as_the_tree_does(spec in spec()) {
        check(&spec);
    }
}

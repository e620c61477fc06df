//! Trees that fight back: links out of the root (files, folders, ignore
//! files), folders swapped for links while a search runs, FIFOs, sockets
//! and devices, names that are legal but awkward, trees thousands of
//! folders deep, and files that vanish. Whatever the tree does, nothing
//! outside the root is read, nothing blocks, and what is left out is
//! counted.
//!
//! These tests run on unix, as root (devices are made with `mknod`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use candor_search::{Corpus, Excerpt, Limits, Query, SkipReason, Tree};
use tempfile::TempDir;

use crate::fixture::{path_order, write};

fn tree(root: &Path, threads: usize) -> Tree {
    Tree::new(root)
        .expect("a tree")
        .threads(threads)
        .start_threads_after(Duration::ZERO)
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Makes a character device like `/dev/null` (1, 3) or `/dev/zero` (1, 5).
fn mknod(path: &Path, minor: u32) {
    let status = Command::new("mknod")
        .arg(path)
        .args(["c", "1", &minor.to_string()])
        .status()
        .expect("mknod runs");
    assert!(
        status.success(),
        "mknod {} (tests run as root)",
        path.display()
    );
}

/// Runs `f` on its own thread and returns its value; fails the test if it
/// has not returned after a long while (it would block forever).
fn returns<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("{what} never returned: it blocks"))
}

// ---------------------------------------------------------------------------
// Swaps while a search runs

/// Swaps `root/d` for a link to `outside` and back, again and again, until
/// `stop` is set.
fn swapper(root: PathBuf, outside: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let (d, real) = (root.join("d"), root.join("d.real"));
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            std::fs::rename(&d, &real).expect("move the folder aside");
            symlink(&outside, &d).expect("link to the outside");
            std::thread::sleep(Duration::from_micros(100));
            std::fs::remove_file(&d).expect("remove the link");
            std::fs::rename(&real, &d).expect("move the folder back");
            std::thread::sleep(Duration::from_micros(100));
            swaps += 1;
        }
        swaps
    })
}

/// A root whose folder `d` holds the same names as `outside`, with other
/// text, and the tree searches for a needle both hold.
fn swapped_roots() -> (TempDir, TempDir) {
    let outside = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    for i in 0..40 {
        write(outside.path(), &format!("f{i:02}.txt"), b"needle SECRET\n");
        write(root.path(), &format!("d/f{i:02}.txt"), b"needle inside\n");
    }
    write(root.path(), "z.txt", b"needle inside\n");
    (outside, root)
}

/// Runs `check` on trees over `root` (1 and 4 threads, links followed or
/// not) a few hundred times, within a bounded time, while `root/d` is
/// swapped for a link to `outside` and back.
fn while_swapping(outside: &TempDir, root: &TempDir, check: impl Fn(&Tree, usize)) {
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(
        root.path().to_path_buf(),
        outside.path().to_path_buf(),
        Arc::clone(&stop),
    );
    let trees = [
        tree(root.path(), 1),
        tree(root.path(), 4),
        tree(root.path(), 1).follow_links(true),
        tree(root.path(), 4).follow_links(true),
    ];
    let until = Instant::now() + Duration::from_secs(20);
    let mut runs = 0;
    while runs < 300 && Instant::now() < until {
        check(&trees[runs % trees.len()], runs);
        runs += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().expect("the swapper ends");
    assert!(swaps > 0 && runs > 0, "{swaps} swaps, {runs} runs");
}

#[test]
fn a_folder_swapped_for_a_link_out_never_shows_outside_content() {
    let (outside, root) = swapped_roots();
    let query = Query::literal("needle");
    while_swapping(&outside, &root, |t, run| {
        let found = t.search(&query, &Limits::new(), None).unwrap();
        for m in found.iter() {
            assert!(
                !m.line.contains("SECRET"),
                "run {run}: {} read outside",
                m.path
            );
        }
        // The file beside the swapped folder is always found.
        assert_eq!(found.iter().last().map(|m| m.path.as_str()), Some("z.txt"));
    });
}

#[test]
fn a_file_named_in_a_swapped_folder_is_never_read_outside() {
    let (outside, root) = swapped_roots();
    let query = Query::literal("needle");
    while_swapping(&outside, &root, |t, run| {
        if let Ok(found) = t.find_in_file("d/f07.txt", &query, &Limits::new(), None) {
            for m in found.iter() {
                assert!(
                    !m.line.contains("SECRET"),
                    "run {run}: find_in_file read outside"
                );
            }
        }
        if let Ok(lines) = t.excerpt(&Excerpt::new("d/f07.txt", 1..=1), &Limits::new(), None) {
            for l in lines.iter() {
                assert!(
                    !l.line.contains("SECRET"),
                    "run {run}: excerpt read outside"
                );
            }
        }
    });
}

// ---------------------------------------------------------------------------
// Ignore files that lead outside

#[test]
fn an_ignore_file_linked_to_a_file_outside_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "rules", b"*.txt\n");
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "a.txt", b"needle\n");
    write(root.path(), "sub/b.txt", b"needle\n");
    symlink(outside.path().join("rules"), root.path().join(".gitignore")).unwrap();
    symlink(
        outside.path().join("rules"),
        root.path().join("sub/.ignore"),
    )
    .unwrap();
    for threads in [1, 4] {
        let found = tree(root.path(), threads)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["a.txt", "sub/b.txt"], "threads {threads}");
        assert_eq!(found.skipped().count(&SkipReason::Ignored), 0);
    }
}

#[test]
fn an_ignore_file_linked_to_a_device_is_not_read() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "a.txt", b"needle\n");
    write(root.path(), "sub/b.txt", b"needle\n");
    symlink("/dev/zero", root.path().join(".ignore")).unwrap();
    symlink("/dev/zero", root.path().join("sub/.gitignore")).unwrap();
    mkfifo(&root.path().join("sub/.ignore"));
    let r = root.path().to_path_buf();
    let found = returns(
        "a search with a FIFO and /dev/zero as ignore files",
        move || {
            tree(&r, 2)
                .search(&Query::literal("needle"), &Limits::new(), None)
                .unwrap()
        },
    );
    let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "sub/b.txt"]);
}

// ---------------------------------------------------------------------------
// FIFOs, sockets, devices

#[test]
fn fifos_sockets_and_devices_are_counted_and_never_opened() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "a.txt", b"needle\n");
    write(root.path(), "sub/z.txt", b"needle\n");
    mkfifo(&root.path().join("p.fifo"));
    mkfifo(&root.path().join("sub/q.fifo"));
    mknod(&root.path().join("zero"), 5);
    mknod(&root.path().join("sub/null"), 3);
    let _socket = std::os::unix::net::UnixListener::bind(root.path().join("s.sock")).unwrap();
    for threads in [1, 4] {
        let r = root.path().to_path_buf();
        let found = returns("a search over FIFOs and devices", move || {
            tree(&r, threads)
                .search(&Query::literal("needle"), &Limits::new(), None)
                .unwrap()
        });
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["a.txt", "sub/z.txt"], "threads {threads}");
        assert_eq!(
            found.skipped().count(&SkipReason::Special),
            5,
            "{:?}",
            found.skipped()
        );
        assert!(found.is_complete(), "leaving out a FIFO is policy");
    }
    // Named by the caller: still never opened, and never blocking.
    for name in ["p.fifo", "zero", "s.sock"] {
        let r = root.path().to_path_buf();
        let found = returns("find_in_file on a FIFO", move || {
            tree(&r, 2).find_in_file(name, &Query::literal("needle"), &Limits::new(), None)
        });
        if let Ok(found) = found {
            assert!(found.is_empty(), "{name}");
            assert_eq!(found.skipped().count(&SkipReason::Special), 1, "{name}");
        }
        let r = root.path().to_path_buf();
        let lines = returns("an excerpt of a FIFO", move || {
            tree(&r, 2).excerpt(&Excerpt::new(name, 1..=3), &Limits::new(), None)
        });
        if let Ok(lines) = lines {
            assert!(lines.is_empty(), "{name}");
            assert!(!lines.skipped().is_empty(), "{name}: not read, and said so");
        }
    }
}

#[test]
fn links_to_devices_are_never_opened() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "a.txt", b"needle\n");
    symlink("/dev/zero", root.path().join("zero")).unwrap();
    symlink("/dev/null", root.path().join("null")).unwrap();
    let r = root.path().to_path_buf();
    let found = returns("a search over links to devices", move || {
        tree(&r, 2)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap()
    });
    let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["a.txt"]);
    assert_eq!(found.skipped().total(), 2, "{:?}", found.skipped());
    let r = root.path().to_path_buf();
    let named = returns("find_in_file on a link to /dev/zero", move || {
        tree(&r, 2).find_in_file("zero", &Query::literal("needle"), &Limits::new(), None)
    });
    assert!(
        named.is_err(),
        "a link to a device is not a file of the tree"
    );
}

// ---------------------------------------------------------------------------
// Awkward names

/// The regular files under `dir`, by a naive recursive walk that follows
/// no link: their names, from the root, as bytes.
fn naive_files(dir: &Path, prefix: &[u8], out: &mut Vec<Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        let mut rel = prefix.to_vec();
        if !rel.is_empty() {
            rel.push(b'/');
        }
        rel.extend_from_slice(entry.file_name().as_bytes());
        if meta.is_dir() {
            naive_files(&entry.path(), &rel, out);
        } else if meta.is_file() {
            out.push(rel);
        }
    }
}

/// Names a file system allows that trip up path handling.
fn odd_names() -> Vec<OsString> {
    let mut names: Vec<OsString> = [
        "a\\b.txt",
        "c:notes.txt",
        ".hidden",
        "-dash",
        "--",
        "with space",
        "new\nline",
        "tab\there",
        "%41",
        "\\x41",
        "é.txt",
        "e\u{301}.txt",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    names.push(OsString::from_vec(b"bad\xff.txt".to_vec()));
    names.push(OsString::from_vec(b"bad\xfe.txt".to_vec()));
    names.push(OsString::from_vec(b"\xc3(".to_vec()));
    names
}

#[test]
fn every_file_with_an_odd_name_is_searched_once() {
    let root = tempfile::tempdir().unwrap();
    let mut contents = BTreeMap::new();
    for (i, name) in odd_names().into_iter().enumerate() {
        for folder in ["", "sub dir", "x\\y"] {
            let dir = root.path().join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            let line = format!("needle {i} {folder:?}");
            std::fs::write(dir.join(&name), format!("{line}\n")).unwrap();
            contents.insert(line, 0usize);
        }
    }
    let mut naive = Vec::new();
    naive_files(root.path(), b"", &mut naive);
    assert_eq!(naive.len(), contents.len());
    for threads in [1, 4] {
        let found = tree(root.path(), threads)
            .hidden(true)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        assert!(found.is_complete(), "{:?}", found.skipped());
        let mut seen = contents.clone();
        for m in found.iter() {
            *seen.get_mut(&m.line).expect("a line of a file") += 1;
        }
        assert!(
            seen.values().all(|&n| n == 1),
            "threads {threads}: {seen:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// Deep trees

/// Makes `depth` nested folders `d` under `root`, with a file holding the
/// depth every `every` levels; returns how many files.
fn deep_tree(root: &Path, depth: usize, every: usize) -> usize {
    use rustix::fs::{Mode, OFlags};
    // Paths this deep are longer than the system allows: each folder is
    // made and opened relative to its parent's handle.
    let mut dir = rustix::fs::open(root, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
        .expect("open the root");
    let mut files = 0;
    for level in 1..=depth {
        rustix::fs::mkdirat(&dir, "d", Mode::from_raw_mode(0o755)).expect("mkdir");
        dir = rustix::fs::openat(&dir, "d", OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
            .expect("open the new folder");
        if level % every == 0 {
            let file = rustix::fs::openat(
                &dir,
                "f.txt",
                OFlags::WRONLY | OFlags::CREATE,
                Mode::from_raw_mode(0o644),
            )
            .expect("create a file");
            let text = format!("needle at {level}\n");
            rustix::io::write(&file, text.as_bytes()).expect("write");
            files += 1;
        }
    }
    files
}

#[test]
fn a_tree_thousands_of_folders_deep_is_searched_whole() {
    let root = tempfile::tempdir().unwrap();
    let files = deep_tree(root.path(), 3000, 100);
    for threads in [1, 4] {
        let r = root.path().to_path_buf();
        let found = returns("a deep search", move || {
            tree(&r, threads)
                .search(&Query::literal("needle"), &Limits::new(), None)
                .unwrap()
        });
        assert!(found.is_complete(), "{:?}", found.skipped());
        assert_eq!(found.len(), files, "threads {threads}");
        // A folder's `d` comes before its `f.txt`: the deepest file first.
        for (i, m) in found.iter().enumerate() {
            let level = 100 * (files - i);
            assert_eq!(m.line, format!("needle at {level}"));
            let expected = format!("{}/f.txt", vec!["d"; level].join("/"));
            assert_eq!(m.path, expected);
        }
    }
}

/// Follows cursors from the first page to the last; every cursor issued
/// must resume.
fn all_pages(t: &Tree, query: &Query, limits: &Limits) -> Vec<candor_search::Match> {
    let mut items = Vec::new();
    let mut cursor: Option<candor_search::Cursor> = None;
    for page in 0.. {
        assert!(page < 10_000, "pages never end");
        let found = t
            .search(query, limits, cursor.as_ref())
            .unwrap_or_else(|e| panic!("page {page}: {e}"));
        items.extend(found.iter().cloned());
        match found.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    items
}

#[test]
fn odd_names_are_pageable_and_never_share_a_path() {
    let root = tempfile::tempdir().unwrap();
    for name in odd_names() {
        for folder in ["", "x\\y", "sub"] {
            let dir = root.path().join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(&name), "needle one\nneedle two\n").unwrap();
        }
    }
    let query = Query::literal("needle");
    for threads in [1, 4] {
        let t = tree(root.path(), threads).hidden(true);
        let whole = t.search(&query, &Limits::new(), None).unwrap();
        assert!(whole.is_complete());
        let mut naive = Vec::new();
        naive_files(root.path(), b"", &mut naive);
        assert_eq!(whole.len(), 2 * naive.len());
        // Two different files never share a path.
        let paths: std::collections::BTreeSet<&str> =
            whole.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths.len(), naive.len(), "threads {threads}: {paths:?}");
        for limit in [1, 3] {
            let paged = all_pages(&t, &query, &Limits::new().limit(limit));
            assert_eq!(paged, whole.items(), "threads {threads}, limit {limit}");
        }
        // Each path, given back, names its file.
        for path in &paths {
            let found = t
                .find_in_file(path, &query, &Limits::new(), None)
                .unwrap_or_else(|e| panic!("{path:?}: {e}"));
            assert_eq!(found.len(), 2, "{path:?}");
            assert!(found.iter().all(|m| m.path == *path));
            let lines = t
                .excerpt(&Excerpt::new(*path, 2..=2), &Limits::new(), None)
                .unwrap_or_else(|e| panic!("{path:?}: {e}"));
            assert_eq!(lines.items()[0].line, "needle two", "{path:?}");
        }
    }
    // The escape is documented: `\` doubled, other bytes as `\xhh`.
    let whole = tree(root.path(), 1)
        .search(
            &Query::literal("needle").paths(["bad\\xff.txt"]),
            &Limits::new(),
            None,
        )
        .unwrap();
    assert_eq!(whole.items()[0].path, "bad\\xff.txt");
    let whole = tree(root.path(), 1)
        .search(
            &Query::literal("needle").paths(["a\\\\b.txt"]),
            &Limits::new(),
            None,
        )
        .unwrap();
    assert_eq!(whole.items()[0].path, "a\\\\b.txt");
}

#[test]
fn a_cursor_after_an_edit_above_it_is_stale() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "a.txt", b"x 1\nx 2\nx 3\nx 4\n");
    write(root.path(), "b.txt", b"x 5\n");
    let query = Query::literal("x");
    for threads in [1, 4] {
        let t = tree(root.path(), threads);
        let first = t.search(&query, &Limits::new().limit(2), None).unwrap();
        let cursor = first.next_cursor().unwrap().clone();
        // A line added above the cursor's offset, same size or not.
        write(root.path(), "a.txt", b"x 0\nx 1\nx 2\nx 3\nx 4\n");
        let err = t
            .search(&query, &Limits::new(), Some(&cursor))
            .expect_err("a changed file makes its cursor stale");
        assert!(
            matches!(err.kind(), candor_search::ErrorKind::StaleCursor { .. }),
            "{err}"
        );
        // Unchanged, the cursor resumes where it was.
        let first = t.search(&query, &Limits::new().limit(2), None).unwrap();
        let rest = t
            .search(&query, &Limits::new(), first.next_cursor())
            .unwrap();
        let lines: Vec<&str> = rest.iter().map(|m| m.line.as_str()).collect();
        assert_eq!(lines, ["x 2", "x 3", "x 4", "x 5"]);
        write(root.path(), "a.txt", b"x 1\nx 2\nx 3\nx 4\n");
    }
}

#[test]
fn a_path_the_caller_names_is_searched_whatever_the_walk_rules() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), ".gitignore", b"*.log\nbuild/\n");
    write(root.path(), "a.log", b"needle log\n");
    write(root.path(), ".hidden/h.txt", b"needle hidden\n");
    write(root.path(), "build/out.txt", b"needle built\n");
    write(root.path(), "build/skip.log", b"needle built log\n");
    write(root.path(), "z.txt", b"needle z\n");
    let query = Query::literal("needle");
    for threads in [1, 4] {
        let t = tree(root.path(), threads);
        let walked = t.search(&query, &Limits::new(), None).unwrap();
        let lines: Vec<&str> = walked.iter().map(|m| m.line.as_str()).collect();
        assert_eq!(lines, ["needle z"]);
        for (path, line) in [
            ("a.log", "needle log"),
            (".hidden/h.txt", "needle hidden"),
            ("build/out.txt", "needle built"),
        ] {
            let named = t
                .search(&query.clone().paths([path]), &Limits::new(), None)
                .unwrap();
            let lines: Vec<&str> = named.iter().map(|m| m.line.as_str()).collect();
            assert_eq!(lines, [line], "threads {threads}: {path}");
            let found = t.find_in_file(path, &query, &Limits::new(), None).unwrap();
            assert_eq!(found.len(), 1, "threads {threads}: {path}");
        }
        // A named folder is entered, but the rules still apply inside it.
        let named = t
            .search(&query.clone().paths(["build"]), &Limits::new(), None)
            .unwrap();
        let lines: Vec<&str> = named.iter().map(|m| m.line.as_str()).collect();
        assert_eq!(lines, ["needle built"]);
    }
}

// ---------------------------------------------------------------------------
// Every cursor resumes, whatever is at its position

mod cursors {
    use super::*;
    use proptest::prelude::*;

    /// One entry of a generated tree.
    #[derive(Debug, Clone)]
    enum Entry {
        File(usize),
        Hidden,
        Ignored,
        BrokenLink,
        LinkIn,
        Fifo,
    }

    fn entry() -> impl Strategy<Value = Entry> {
        prop_oneof![
            4 => (1usize..4).prop_map(Entry::File),
            1 => Just(Entry::Hidden),
            1 => Just(Entry::Ignored),
            1 => Just(Entry::BrokenLink),
            1 => Just(Entry::LinkIn),
            1 => Just(Entry::Fifo),
        ]
    }

    /// Builds the entries under `root`, in folders `f0`, `f1`, ...; each
    /// folder name starts with its kind so that the order mixes them.
    fn build(root: &Path, folders: &[Vec<Entry>]) {
        write(root, ".gitignore", b"ign*\n");
        for (i, entries) in folders.iter().enumerate() {
            for (j, e) in entries.iter().enumerate() {
                let at = root.join(format!("f{i}"));
                std::fs::create_dir_all(&at).unwrap();
                match e {
                    Entry::File(lines) => {
                        let text = format!("needle {i} {j}\n").repeat(*lines);
                        std::fs::write(at.join(format!("{j}.txt")), text).unwrap();
                    }
                    Entry::Hidden => write(&at, &format!(".{j}/x.txt"), b"needle hidden\n"),
                    Entry::Ignored => write(&at, &format!("ign{j}/x.txt"), b"needle ignored\n"),
                    Entry::BrokenLink => symlink("gone", at.join(format!("{j}.broken"))).unwrap(),
                    Entry::LinkIn => symlink("..", at.join(format!("{j}.up"))).unwrap(),
                    Entry::Fifo => mkfifo(&at.join(format!("{j}.fifo"))),
                }
            }
        }
    }

    /// The lines a search must return: every line of every regular file
    /// the naive walk finds, in path order, leaving out hidden and ignored
    /// folders (the generated names tell them).
    fn oracle(folders: &[Vec<Entry>]) -> Vec<(String, String)> {
        let mut lines = Vec::new();
        for (i, entries) in folders.iter().enumerate() {
            for (j, e) in entries.iter().enumerate() {
                if let Entry::File(n) = e {
                    for _ in 0..*n {
                        lines.push((format!("f{i}/{j}.txt"), format!("needle {i} {j}")));
                    }
                }
            }
        }
        // Path order: component by component.
        lines.sort_by(|a, b| path_order(&a.0, &b.0));
        lines
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn every_cursor_issued_under_a_tight_budget_resumes(
            folders in prop::collection::vec(prop::collection::vec(entry(), 0..5), 1..4),
            max_files in 1u64..3,
            limit in 1usize..4,
            threads in prop::sample::select(vec![1usize, 4]),
            follow in any::<bool>(),
        ) {
            let root = tempfile::tempdir().unwrap();
            build(root.path(), &folders);
            let t = tree(root.path(), threads).follow_links(follow);
            let want = oracle(&folders);
            for limits in [
                Limits::new().max_files(max_files),
                Limits::new().limit(limit),
                Limits::new().max_files(max_files).limit(limit),
            ] {
                let pages = all_pages(&t, &Query::literal("needle"), &limits);
                let mut got: Vec<(String, String)> =
                    pages.iter().map(|m| (m.path.clone(), m.line.clone())).collect();
                if follow {
                    // Links up to the folder's parent search the tree again
                    // under their own paths: keep the lines reached without.
                    got.retain(|(p, _)| !p.contains(".up"));
                }
                prop_assert_eq!(&got, &want, "{:?}", limits);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Ignore files above the root

#[test]
fn ignore_files_above_the_root_are_read_only_when_safe_and_allowed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "rules", b"*.txt\n");
    let top = tempfile::tempdir().unwrap();
    // Above the root: a regular rule file, a link to rules elsewhere and
    // a FIFO; only the regular one is read.
    write(top.path(), ".ignore", b"*.log\n");
    symlink(outside.path().join("rules"), top.path().join(".gitignore")).unwrap();
    let root = top.path().join("root");
    write(&root, "a.txt", b"needle\n");
    write(&root, "b.log", b"needle\n");
    let mid = top.path().join("mid");
    std::fs::create_dir(&mid).unwrap();
    mkfifo(&mid.join(".gitignore"));
    write(&mid, "root/c.txt", b"needle\n");
    for threads in [1, 4] {
        let r = root.clone();
        let found = returns("a search under rule files that are links", move || {
            tree(&r, threads)
                .search(&Query::literal("needle"), &Limits::new(), None)
                .unwrap()
        });
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            paths,
            ["a.txt"],
            "the .ignore above applies, the link does not"
        );
        let r = root.clone();
        let found = returns("a search that reads nothing above the root", move || {
            tree(&r, threads)
                .parent_ignores(false)
                .search(&Query::literal("needle"), &Limits::new(), None)
                .unwrap()
        });
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["a.txt", "b.log"]);
        // A FIFO as an ignore file above the root does not block.
        let r = mid.join("root");
        let found = returns("a search under a FIFO ignore file", move || {
            tree(&r, threads)
                .search(&Query::literal("needle"), &Limits::new(), None)
                .unwrap()
        });
        assert_eq!(found.len(), 1);
    }
}

// ---------------------------------------------------------------------------
// Files that vanish

#[test]
fn files_and_folders_that_vanish_mid_search_are_counted_never_fatal() {
    let root = tempfile::tempdir().unwrap();
    for i in 0..30 {
        write(root.path(), &format!("v/{i:02}.txt"), b"needle v\n");
    }
    write(root.path(), "z.txt", b"needle z\n");
    let stop = Arc::new(AtomicBool::new(false));
    let churn = {
        let (root, stop) = (root.path().to_path_buf(), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::remove_dir_all(root.join("v"));
                for i in 0..30 {
                    write(&root, &format!("v/{i:02}.txt"), b"needle v\n");
                }
            }
        })
    };
    let trees = [tree(root.path(), 1), tree(root.path(), 4)];
    let until = Instant::now() + Duration::from_secs(10);
    let mut runs = 0;
    while runs < 200 && Instant::now() < until {
        let found = trees[runs % 2]
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        runs += 1;
        for m in found.iter() {
            assert!(m.line == "needle v" || m.line == "needle z", "{m:?}");
        }
        assert_eq!(found.iter().last().map(|m| m.path.as_str()), Some("z.txt"));
        // What vanished is counted, and then the answer is not complete.
        let vanished = found.skipped().count(&SkipReason::Vanished)
            + found.skipped().count(&SkipReason::Changed)
            + found.skipped().count(&SkipReason::Unreadable);
        assert_eq!(found.is_complete(), vanished == 0, "{:?}", found.skipped());
    }
    stop.store(true, Ordering::Relaxed);
    churn.join().expect("the churn ends");
}

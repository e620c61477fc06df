//! Queries whose cost follows the answer: watched queries that visit only
//! the candidates, the entries every query visits and what the watcher
//! reported; answers that trust the index without checking the tree and
//! say as of when; the index's format read a part at a time (damage
//! anywhere refused where it is read), and an older format rebuilt. The
//! tree's own answer is the oracle wherever the index claims to be
//! about the tree as it is.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use candor_search::{AsOf, Bounded, Corpus, Cursor, ErrorKind, Index, Limits, Query, Tree};
use proptest::prelude::*;

use crate::index_corpus::{
    Change, age, age_all, apply, change, compare_all, index_files, indexed, limits, put, query,
    rel_path, same, text,
};

/// Folders of many small files besides the generated ones: the record
/// spans many blocks, and a sparse query skips most of them.
fn bulk(root: &Path) {
    for folder in ["0bulk", "m/bulk", "zbulk"] {
        for i in 0..120 {
            let words: &[u8] = match i % 53 {
                0 => b"foo bar\n",
                7 => b"hello world\n",
                _ => b"nothing\n",
            };
            let names = [
                folder.as_bytes().to_vec(),
                format!("f{i:03}.txt").into_bytes(),
            ];
            put(root, &names, words);
        }
    }
}

/// Milliseconds since the epoch, now.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[derive(Debug, Clone)]
struct Spec {
    files: Vec<(Vec<Vec<u8>>, Vec<u8>)>,
    threads: usize,
    changes: Vec<Change>,
    queries: Vec<(Query, Limits)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec((rel_path(), text()), 0..10),
        prop_oneof![Just(1usize), Just(4)],
        prop::collection::vec(change(), 0..4),
        prop::collection::vec((query(), limits()), 1..4),
    )
        .prop_map(|(files, threads, changes, queries)| Spec {
            files,
            threads,
            changes,
            queries,
        })
}

/// The generated files and the bulk folders below `root`, aged, and the
/// tree of them.
fn tree_of(root: &Path, spec: &Spec) -> Tree {
    for (names, text) in &spec.files {
        put(root, names, text);
    }
    bulk(root);
    age_all(root);
    Tree::new(root)
        .unwrap()
        .threads(spec.threads)
        .parent_ignores(false)
}

/// Every page of every query kind from `index`, each checked by `check`
/// (following the cursors to the end).
fn each_page(index: &Index, query: &Query, limits: &Limits, check: &mut dyn FnMut(&str, AnyPage)) {
    fn follow<T>(
        what: &str,
        mut ask: impl FnMut(Option<&Cursor>) -> Result<Bounded<T>, candor_search::Error>,
        check: &mut dyn FnMut(&str, AnyPage),
        to_any: impl Fn(&Bounded<T>) -> AnyPage,
    ) {
        let mut cursor: Option<Cursor> = None;
        for _ in 0..2000 {
            let Ok(page) = ask(cursor.as_ref()) else {
                return;
            };
            check(what, to_any(&page));
            cursor = page.next_cursor().cloned();
            if cursor.is_none() {
                return;
            }
        }
        panic!("{what}: more than 2000 pages");
    }
    let any = |d: &candor_search::Disclosure| AnyPage {
        as_of: d.as_of(),
        complete: d.is_complete(),
    };
    follow(
        "search",
        |c| index.search(query, limits, c),
        check,
        |p| any(p.disclosure()),
    );
    follow(
        "count",
        |c| index.count_per_file(query, limits, c),
        check,
        |p| any(p.disclosure()),
    );
    follow(
        "files",
        |c| index.files_with_matches(query, limits, c),
        check,
        |p| any(p.disclosure()),
    );
    let streamed = index.search_each(query, limits, None, &mut |_| {
        std::ops::ControlFlow::Continue(())
    });
    if let Ok(end) = streamed {
        check("stream", any(end.disclosure()));
    }
}

/// What every page says of its freshness.
struct AnyPage {
    as_of: Option<AsOf>,
    complete: bool,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// A watched index whose watcher reported changes not yet indexed
    /// answers as the tree does, each query visiting only its candidates,
    /// the entries every query visits and what was reported; its answers
    /// are about the tree as it is (no `as_of`).
    #[test]
    fn watched_queries_answer_as_the_tree_does_between_updates(spec in spec()) {
        let dir = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        let root = dir.path();
        let tree = tree_of(root, &spec);
        let index = Index::build(tree.clone(), store.path()).unwrap();
        if !index.watch().unwrap() {
            return Ok(());
        }
        for change in &spec.changes {
            apply(root, change);
        }
        // A change in a bulk folder, and one in a folder the queries
        // skip past.
        std::fs::write(root.join("m/bulk/f010.txt"), "foo again\n").unwrap();
        std::fs::write(root.join("zbulk/new.txt"), "hello foo\n").unwrap();
        for (query, limits) in &spec.queries {
            compare_all(&tree, &index, query, limits);
            each_page(&index, query, limits, &mut |what, page| {
                assert_eq!(page.as_of, None, "{what}: a watched answer is about the tree now");
            });
        }
        index.update().unwrap();
        for (query, limits) in &spec.queries {
            compare_all(&tree, &index, query, limits);
        }
    }

    /// Every answer that trusts the index without checking the tree says
    /// so, and as of when: the time its generation read the tree. While
    /// the tree is as indexed, it is the tree's answer; after changes it
    /// still says the same time, until an update reads the tree again.
    /// A checked answer says nothing of the kind.
    #[test]
    fn every_answer_that_trusts_the_index_says_as_of_when(spec in spec()) {
        let dir = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        let root = dir.path();
        let tree = tree_of(root, &spec);
        let before = now_ms();
        let built = Index::build(tree.clone(), store.path()).unwrap();
        let after = now_ms();
        let checked = Index::open(tree.clone(), store.path()).unwrap();
        let trusted = Index::open(tree.clone(), store.path()).unwrap().check_tree(false);
        assert!(!trusted.get_check_tree());
        let mut read_at = None;
        for (query, limits) in &spec.queries {
            compare_all(&tree, &trusted, query, limits);
            each_page(&trusted, query, limits, &mut |what, page| {
                let as_of = page.as_of.unwrap_or_else(|| panic!("{what}: no as_of"));
                assert!((before..=after).contains(&as_of.unix_ms()), "{what}: {as_of}");
                assert_eq!(*read_at.get_or_insert(as_of), as_of, "{what}");
            });
            each_page(&checked, query, limits, &mut |what, page| {
                assert_eq!(page.as_of, None, "{what}: checked");
            });
        }
        for change in &spec.changes {
            apply(root, change);
        }
        for (query, limits) in &spec.queries {
            each_page(&trusted, query, limits, &mut |what, page| {
                assert_eq!(page.as_of, read_at, "{what}: as of the generation");
            });
            // The checked answer is the tree's, whatever changed.
            compare_all(&tree, &checked, query, limits);
        }
        drop(built);
        let updating = now_ms();
        trusted.update().unwrap();
        for (query, limits) in &spec.queries {
            compare_all(&tree, &trusted, query, limits);
            each_page(&trusted, query, limits, &mut |what, page| {
                let as_of = page.as_of.unwrap_or_else(|| panic!("{what}: no as_of"));
                assert!(as_of.unix_ms() >= updating, "{what}: {as_of} is the update's");
                let _ = page.complete;
            });
        }
    }
}

/// A large file the plan rules out is not read under a deadline (every
/// MCP call has one): the index takes it as holding no match. Seen
/// through an answer that trusts the index: the file, rewritten since the
/// build to hold the needle, is not found; a scanned-bytes budget shorter
/// than the file makes the index read it (the tree would stop inside it),
/// and the needle is found.
#[test]
fn a_large_file_ruled_out_is_not_read_under_a_deadline() {
    let filler = "filler line\n".repeat(40_000);
    let (dir, store, tree, _index) = indexed(&[("big.txt", filler.as_str()), ("z.txt", "x\n")]);
    let trusted = Index::open(tree.clone(), store.path().join("idx"))
        .unwrap()
        .check_tree(false);
    let mut changed = filler.clone().into_bytes();
    changed[..6].copy_from_slice(b"needle");
    std::fs::write(dir.path().join("big.txt"), &changed).unwrap();
    let query = Query::literal("needle");
    let deadline = Limits::new().deadline(Duration::from_secs(3600));
    let found = trusted.search(&query, &deadline, None).unwrap();
    assert_eq!(found.len(), 0, "ruled out by the index, not read");
    assert!(found.disclosure().as_of().is_some());
    let budget = Limits::new().max_scanned_bytes(100_000);
    let found = trusted.search(&query, &budget, None).unwrap();
    assert_eq!(found.len(), 1, "read: the budget could stop inside it");
    // Checked, the change is seen either way.
    let checked = Index::open(tree.clone(), store.path().join("idx")).unwrap();
    assert_eq!(checked.search(&query, &deadline, None).unwrap().len(), 1);
}

/// An index written in an older format is refused as such by `open`
/// (its reason names the versions and asks for a build, not damage), and
/// built again by `open_or_build`, whose answers are the tree's.
#[test]
fn an_index_of_an_older_format_is_rebuilt_not_called_damaged() {
    let (_dir, store, tree, index) = indexed(&[("a.txt", "foo\n"), ("b/c.txt", "bar foo\n")]);
    let old_generation = index.generation();
    drop(index);
    let idx = store.path().join("idx");
    for file in index_files(&idx) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".manifest") || name.ends_with(".grams") {
            let mut bytes = std::fs::read(&file).unwrap();
            let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
            bytes[8..12].copy_from_slice(&(version - 1).to_le_bytes());
            std::fs::write(&file, bytes).unwrap();
        }
    }
    let refused = Index::open(tree.clone(), &idx).unwrap_err();
    let ErrorKind::UnusableIndex { reason, .. } = refused.kind() else {
        panic!("{refused}");
    };
    assert!(reason.contains("older version"), "{reason}");
    assert!(reason.contains("build the index again"), "{reason}");
    assert!(
        !reason.contains("corrupt") && !reason.contains("checksum"),
        "{reason}"
    );
    let rebuilt = Index::open_or_build(tree.clone(), &idx).unwrap();
    assert_ne!(rebuilt.generation(), old_generation);
    let query = Query::literal("foo");
    same(
        "rebuilt",
        &tree.search(&query, &Limits::new(), None).unwrap(),
        &rebuilt.search(&query, &Limits::new(), None).unwrap(),
    );
    assert!(Index::open(tree, &idx).is_ok(), "written in this format");
}

/// The manifest is read a block at a time: a bit flipped anywhere in it
/// is refused when the index is opened or by the query that reads it,
/// never read as an answer that leaves a file out; an index opened to be
/// rebuilt answers every query as the tree does, walking the tree past
/// the damage, and its next update builds it again.
#[test]
fn a_flipped_bit_in_the_manifest_is_never_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Enough entries for three blocks.
    for i in 0..200 {
        let text = if i % 37 == 0 {
            "hello world\n"
        } else {
            "other words\n"
        };
        // Names that share little with the one before: long entries.
        let name = format!("{i:03}-{}.txt", "long".repeat(8));
        std::fs::write(root.join(name), text).unwrap();
    }
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/bin.dat"), "hello\0\n").unwrap();
    std::fs::write(root.join("sub/z.txt"), "hello there\n").unwrap();
    age_all(root);
    let tree = Tree::new(root).unwrap().threads(1);
    let idx = store.path().join("idx");
    drop(Index::build(tree.clone(), &idx).unwrap());
    let manifest = index_files(&idx)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "manifest"))
        .unwrap();
    let good = std::fs::read(&manifest).unwrap();
    let originals: Vec<_> = index_files(&idx)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    // The index's folder as built, but for the manifest's bytes.
    let put_back = |manifest_bytes: &[u8]| {
        for file in index_files(&idx) {
            std::fs::remove_file(file).unwrap();
        }
        for (path, bytes) in &originals {
            let bytes = if *path == manifest {
                manifest_bytes
            } else {
                bytes
            };
            std::fs::write(path, bytes).unwrap();
        }
    };
    let queries = ["hello", "words", "there"].map(Query::literal);
    let truth: Vec<_> = queries
        .iter()
        .map(|q| tree.search(q, &Limits::new(), None).unwrap())
        .collect();
    let (mut answered, mut refused_by_a_query) = (0, 0);
    // Every other byte, one bit each (which bit moves along).
    for at in (0..good.len()).step_by(2) {
        let bit = (at / 2 % 8) as u8;
        let mut bytes = good.clone();
        bytes[at] ^= 1 << bit;
        put_back(&bytes);
        // Checked, a query reads every block; trusting the index, only
        // those it needs.
        for check in [true, false] {
            let Ok(index) = Index::open(tree.clone(), &idx) else {
                continue;
            };
            let index = index.check_tree(check);
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
                        refused_by_a_query += 1;
                    }
                }
            }
        }
        // Opened to be rebuilt: the tree's answer, damage or not.
        let rebuilding = Index::open_or_build(tree.clone(), &idx).unwrap();
        for (query, truth) in queries.iter().zip(&truth) {
            let answer = rebuilding.search(query, &Limits::new(), None).unwrap();
            same(&format!("byte {at} bit {bit}"), truth, &answer);
        }
    }
    put_back(&good);
    // Damage in a block is found by the query that reads it, and only
    // then (a query that reads another block answers); the rest refuse at
    // the door.
    assert!(
        refused_by_a_query > 0 && answered > 0,
        "{refused_by_a_query} refused, {answered} answered"
    );
}

/// `grep --index DIR --trust` answers from the index without checking
/// the tree and says so, and as of when; `--update-index` reads what
/// changed first.
#[test]
fn grep_with_a_trusted_index_says_as_of_when() {
    use std::process::Command;
    let (dir, store, _tree, _index) = indexed(&[("a.txt", "foo\n"), ("b/c.txt", "bar\n")]);
    let idx = store.path().join("idx");
    let grep = |args: &[&str]| {
        let out = Command::new(crate::examples_cli::example("grep"))
            .args(args)
            .arg("--index")
            .arg(&idx)
            .arg(dir.path())
            .output()
            .expect("the grep example runs");
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (out, err) = grep(&["--trust", "-F", "foo"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(err.contains("As of "), "{err}");
    let (json, _) = grep(&["--trust", "--json", "-F", "foo"]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let as_of: AsOf = value["as_of"].as_str().unwrap().parse().unwrap();
    // A file added since is not seen by the index's answer, which says
    // when it is about; checked, or updated first, it is.
    std::fs::write(dir.path().join("b/new.txt"), "foo too\n").unwrap();
    age(&dir.path().join("b/new.txt"));
    let (out, err) = grep(&["--trust", "-F", "foo"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(err.contains(&format!("As of {as_of}")), "{err}");
    let (out, err) = grep(&["-F", "foo"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(!err.contains("As of"), "{err}");
    let (out, err) = grep(&["--trust", "--update-index", "-F", "foo"]);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(err.contains("As of "), "{err}");
    assert!(
        !err.contains(&format!("As of {as_of}")),
        "a later time: {err}"
    );
}

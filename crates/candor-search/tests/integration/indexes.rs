//! `Indexes`, one index per folder below a server's roots: confined to
//! the roots (a folder outside, through a link, or swapped for a link, is
//! refused), a scan answering while the index builds, then the index with
//! the same answers, bounded in count, memory and watches, the least
//! recently served let go first; and `Tree::folder`, which it stands on.

use std::path::Path;
use std::sync::Arc;

use candor_search::{Corpus, Cursor, ErrorKind, IndexState, Indexes, Limits, Match, Query, Tree};

/// A tree of `folders` folders below `root`, each with a few files that
/// hold the needle on some lines.
fn make(root: &Path, folders: usize) {
    for f in 0..folders {
        let dir = root.join(format!("f{f}"));
        std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
        for n in 0..3 {
            let text: String = (0..20)
                .map(|line| {
                    if (line + n + f) % 4 == 0 {
                        format!("needle {f} {n} {line}\n")
                    } else {
                        format!("hay {line}\n")
                    }
                })
                .collect();
            std::fs::write(dir.join(format!("n{n}.txt")), &text).expect("write");
            std::fs::write(dir.join("sub").join(format!("s{n}.txt")), &text).expect("write");
        }
    }
}

/// Every page of `query` on `corpus` from the first on, under `limit`.
fn walk(corpus: &dyn Corpus, query: &Query, limit: usize) -> Vec<Match> {
    let mut all = Vec::new();
    let mut cursor: Option<Cursor> = None;
    for _ in 0..1000 {
        let page = corpus
            .search(query, &Limits::new().limit(limit), cursor.as_ref())
            .expect("a page");
        all.extend(page.iter().cloned());
        match page.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => return all,
        }
    }
    panic!("more than 1000 pages");
}

fn matches(corpus: &dyn Corpus) -> Vec<Match> {
    walk(corpus, &Query::literal("needle"), usize::MAX)
}

#[test]
fn folders_outside_the_roots_are_refused() {
    let home = tempfile::tempdir().expect("a folder");
    let outside = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    make(home.path(), 1);
    std::fs::write(outside.path().join("secret.txt"), "needle\n").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), home.path().join("escape")).expect("a link");
    let indexes = Indexes::new(cache.path()).root(Tree::new(home.path()).expect("a tree"));
    let kind = |path: &str| indexes.folder(path).expect_err(path).kind().to_string();
    for path in ["..", "f0/../..", "/", "/etc", "../../..", "f0/../../x"] {
        let err = indexes.folder(path).expect_err(path);
        assert!(
            matches!(err.kind(), ErrorKind::OutsideRoot { .. }),
            "{path}: {err}"
        );
    }
    #[cfg(unix)]
    {
        let through = kind("escape");
        assert!(through.contains("symbolic link"), "{through}");
        let below = kind("escape/x");
        assert!(below.contains("symbolic link"), "{below}");
    }
    assert!(matches!(
        indexes.folder("missing").expect_err("missing").kind(),
        ErrorKind::NotFound { .. }
    ));
    assert!(kind("f0/n0.txt").contains("not a folder"));
    // A tree made elsewhere is refused by `serve`.
    let stranger = Tree::new(outside.path()).expect("a tree");
    assert!(matches!(
        indexes.serve(&stranger).expect_err("outside").kind(),
        ErrorKind::OutsideRoot { .. }
    ));
    // A pool without roots refuses every folder.
    let empty = Indexes::new(cache.path());
    assert!(empty.folder(".").is_err());
    assert!(empty.folder(home.path().to_str().expect("UTF-8")).is_err());
}

/// A folder swapped for a link while a server opens folders: whatever it
/// opens is inside the root, never the link's target.
#[cfg(unix)]
#[test]
fn a_folder_swapped_for_a_link_never_leads_outside() {
    let home = tempfile::tempdir().expect("a folder");
    let outside = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    std::fs::write(outside.path().join("secret.txt"), "needle outside\n").expect("write");
    let indexes = Indexes::new(cache.path()).root(Tree::new(home.path()).expect("a tree"));
    let dir = home.path().join("d");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (dir, outside, stop) = (dir.clone(), outside.path().to_owned(), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::create_dir(&dir);
                let _ = std::fs::write(dir.join("inside.txt"), "needle inside\n");
                let _ = std::fs::remove_file(dir.join("inside.txt"));
                let _ = std::fs::remove_dir(&dir);
                let _ = std::os::unix::fs::symlink(&outside, &dir);
                let _ = std::fs::remove_file(&dir);
            }
        })
    };
    for _ in 0..300 {
        if let Ok(tree) = indexes.folder("d") {
            let found = tree
                .search(&Query::literal("needle"), &Limits::new(), None)
                .map(|b| b.iter().map(|m| m.line.clone()).collect::<Vec<_>>())
                .unwrap_or_default();
            assert!(
                !found.iter().any(|line| line.contains("outside")),
                "read outside the root: {found:?}"
            );
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().expect("the swapper");
}

#[test]
fn a_scan_answers_while_the_index_builds_then_the_index_with_the_same_answer() {
    let home = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    make(home.path(), 3);
    let indexes = Indexes::new(cache.path()).root(Tree::new(home.path()).expect("a tree"));
    let tree = indexes.folder("f1").expect("a folder");
    let expected = matches(&tree);
    assert!(!expected.is_empty());
    let first = indexes.serve(&tree).expect("served");
    assert_eq!(
        first.state(),
        &IndexState::Building,
        "the first call asks for the build"
    );
    assert_eq!(matches(first.corpus()), expected);
    // Page 1 from the scan, the rest from the index: one answer, exactly once.
    let query = Query::literal("needle");
    let page = first
        .corpus()
        .search(&query, &Limits::new().limit(4), None)
        .expect("a page");
    indexes.wait_until_built(&tree);
    let served = indexes.serve(&tree).expect("served");
    assert!(
        matches!(served.state(), IndexState::Ready { .. }),
        "{:?}",
        served.state()
    );
    let mut all: Vec<Match> = page.iter().cloned().collect();
    let mut cursor = page.next_cursor().cloned();
    while let Some(c) = cursor {
        let next = served
            .corpus()
            .search(&query, &Limits::new().limit(4), Some(&c))
            .expect("the scan's cursor resumes on the index");
        all.extend(next.iter().cloned());
        cursor = next.next_cursor().cloned();
    }
    assert_eq!(all, expected);
    // A file changed since: the index's answer is about the tree now.
    std::fs::write(tree.get_root().join("late.txt"), "needle late\n").expect("write");
    let now = matches(indexes.serve(&tree).expect("served").corpus());
    assert!(now.iter().any(|m| m.path == "late.txt"), "{now:?}");
    assert_eq!(now, matches(&tree));
}

#[test]
fn the_least_recently_served_index_is_let_go_past_the_count() {
    let home = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    make(home.path(), 4);
    let indexes = Indexes::new(cache.path())
        .root(Tree::new(home.path()).expect("a tree"))
        .max_indexes(2);
    let trees: Vec<Tree> = (0..4)
        .map(|f| indexes.folder(&format!("f{f}")).expect("a folder"))
        .collect();
    for tree in &trees {
        let _ = indexes.serve(tree).expect("served");
        indexes.wait_until_built(tree);
        assert!(indexes.open_now().0 <= 2, "{:?}", indexes.open_now());
    }
    assert_eq!(indexes.open_now().0, 2);
    // f0 and f1 were let go; f2 and f3 are open (served in that order).
    for (f, open) in [(2, true), (3, true), (0, false)] {
        let state = indexes.serve(&trees[f]).expect("served").state().clone();
        assert_eq!(
            matches!(state, IndexState::Ready { .. }),
            open,
            "f{f}: {state:?}"
        );
    }
    // f0 opens again from its files, and f2, the least recently served,
    // is let go.
    indexes.wait_until_built(&trees[0]);
    assert_eq!(indexes.open_now().0, 2);
    let ready = |f: usize| {
        matches!(
            indexes.serve(&trees[f]).expect("served").state(),
            IndexState::Ready { .. }
        )
    };
    assert!(ready(0) && ready(3));
    assert!(!ready(2));
    // Each answer, open or not, is the tree's.
    for tree in &trees {
        assert_eq!(
            matches(indexes.serve(tree).expect("served").corpus()),
            matches(tree)
        );
    }
}

#[test]
fn memory_and_watches_are_bounded() {
    let home = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    make(home.path(), 3);
    let root = Tree::new(home.path()).expect("a tree");
    // No watch allowed: checked against the tree, and still right.
    let checked = Indexes::new(cache.path().join("a"))
        .root(root.clone())
        .max_watches(0);
    let tree = checked.folder("f0").expect("a folder");
    let _ = checked.serve(&tree).expect("served");
    checked.wait_until_built(&tree);
    let served = checked.serve(&tree).expect("served");
    assert_eq!(served.state(), &IndexState::Ready { watched: false });
    assert_eq!(matches(served.corpus()), matches(&tree));
    assert_eq!(checked.open_now(), (1, 0));
    // Watches for one folder's tree (f0 and f0/sub), not two.
    let some = Indexes::new(cache.path().join("b"))
        .root(root.clone())
        .max_watches(2);
    for f in ["f0", "f1"] {
        let tree = some.folder(f).expect("a folder");
        let _ = some.serve(&tree).expect("served");
        some.wait_until_built(&tree);
    }
    let (open, watching) = some.open_now();
    assert_eq!(open, 2);
    assert!(watching <= 2, "{watching} folders watched");
    // Memory: an index larger than the whole budget is not kept, and a
    // scan answers, saying why.
    let tiny = Indexes::new(cache.path().join("c"))
        .root(root)
        .max_memory(10);
    let tree = tiny.folder("f2").expect("a folder");
    let _ = tiny.serve(&tree).expect("served");
    tiny.wait_until_built(&tree);
    let served = tiny.serve(&tree).expect("served");
    match served.state() {
        IndexState::Unavailable(why) => assert!(why.contains("max_memory"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(matches(served.corpus()), matches(&tree));
    assert_eq!(tiny.open_now().0, 0);
}

#[test]
fn a_folder_that_holds_the_store_or_has_a_depth_limit_is_scanned() {
    let home = tempfile::tempdir().expect("a folder");
    make(home.path(), 1);
    let indexes =
        Indexes::new(home.path().join(".cache")).root(Tree::new(home.path()).expect("a tree"));
    let root = indexes.folder(".").expect("the root");
    let served = indexes.serve(&root).expect("served");
    assert!(matches!(served.state(), IndexState::Unavailable(why) if why.contains("inside")));
    assert_eq!(matches(served.corpus()), matches(&root));
    let below = indexes.folder("f0").expect("a folder");
    let shallow = below.clone().max_depth(1);
    let served = indexes.serve(&shallow).expect("served");
    assert!(matches!(served.state(), IndexState::Unavailable(why) if why.contains("depth")));
    assert_eq!(matches(served.corpus()), matches(&shallow));
    // A folder that does not hold the store is indexed.
    let _ = indexes.serve(&below).expect("served");
    indexes.wait_until_built(&below);
    assert!(matches!(
        indexes.serve(&below).expect("served").state(),
        IndexState::Ready { .. }
    ));
}

#[test]
fn concurrent_callers_share_one_build_and_agree() {
    let home = tempfile::tempdir().expect("a folder");
    let cache = tempfile::tempdir().expect("a folder");
    make(home.path(), 2);
    let indexes =
        Arc::new(Indexes::new(cache.path()).root(Tree::new(home.path()).expect("a tree")));
    let expected = matches(&indexes.folder("f0").expect("a folder"));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let indexes = Arc::clone(&indexes);
            std::thread::spawn(move || {
                let tree = indexes.folder("f0").expect("a folder");
                (0..20)
                    .map(|_| matches(indexes.serve(&tree).expect("served").corpus()))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for t in threads {
        for answer in t.join().expect("a caller") {
            assert_eq!(answer, expected);
        }
    }
    let tree = indexes.folder("f0").expect("a folder");
    indexes.wait_until_built(&tree);
    assert_eq!(indexes.open_now().0, 1, "one index, built once");
    // Its one folder below the store.
    let folders = std::fs::read_dir(cache.path()).expect("the store").count();
    assert_eq!(folders, 1);
}

//! The `Index` corpus through the library, against the tree's scan of the
//! same files: a literal found nowhere (also under a deadline, as every
//! MCP call has), a page of 100 matches of a common word and of a word
//! whose first match lies deep in the tree, a rare literal's full
//! listing, and the exact total of a literal with many matches; each
//! through the checked index (every stat taken), the watched index (a
//! watcher reports changes; a query visits its candidates and nothing
//! else), the index trusted as of its generation (`check_tree(false)`: no
//! stat; the answer says as of when) and the tree; and an update
//! of the index after one file changed, checked and watched, and what a
//! command-line tool does after one change (a checked query, then
//! `update_as_seen`) against the same query on an unchanged tree; and,
//! watched, the page of 100 resumed at the cursor of the deep word's
//! first page after a file before that cursor was edited and the index
//! updated (the count of the files before a cursor is kept across such
//! an update, so that page walks none of them again).
//!
//! The tree is `$CANDOR_INDEX_TREE` (the update benchmark writes one file
//! in it, `candor-bench-change.txt`, and removes it at the end: point it at
//! a copy), with the words of `$CANDOR_INDEX_WORDS` (`common,deep,rare,many`;
//! default `self,WindowsAndMessaging,Typography,HWND`, for a `cargo
//! vendor` tree); without it, a generated tree of 4,000 files in a
//! temporary folder, with its own words.
//!
//! Run: `cargo bench -p candor-bench --bench index_corpus` (add
//! `-- --quick` for a short run).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use candor_search::{Corpus, Index, Limits, Query, Tree};
use criterion::Criterion;

/// A generated tree: 4,000 files of 8 KiB in 100 folders, `common` on
/// every line, `deep` in the last 40 files only, `rare` in 3 files,
/// `many` on one line in 20.
fn generated(dir: &Path) -> [String; 4] {
    for i in 0..4000 {
        let mut text = String::new();
        for line in 0..200 {
            text.push_str("let common value = other(line);");
            if i >= 3960 {
                text.push_str(" deepword");
            }
            if line % 20 == 0 {
                text.push_str(" manyword");
            }
            if i % 1500 == 7 && line == 3 {
                text.push_str(" rareword");
            }
            text.push('\n');
        }
        let path = dir.join(format!("d{:03}/f{i:05}.rs", i / 40));
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    ["common", "deepword", "rareword", "manyword"].map(String::from)
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let (root, words): (PathBuf, [String; 4]) = match std::env::var_os("CANDOR_INDEX_TREE") {
        Some(root) => {
            let words = std::env::var("CANDOR_INDEX_WORDS")
                .unwrap_or_else(|_| "self,WindowsAndMessaging,Typography,HWND".to_owned());
            let words: Vec<String> = words.split(',').map(String::from).collect();
            let words: [String; 4] = words.try_into().expect("four words: common,deep,rare,many");
            (PathBuf::from(root), words)
        }
        None => {
            let root = scratch.path().join("tree");
            let words = generated(&root);
            (root, words)
        }
    };
    let [common, deep, rare, many] = &words;
    let tree = Tree::new(&root).expect("a tree");
    let checked = Index::build(tree.clone(), scratch.path().join("checked")).expect("an index");
    let watched = Index::build(tree.clone(), scratch.path().join("watched")).expect("an index");
    let watching = watched.watch().expect("a watch");
    eprintln!("watched: {watching}");
    let trusted = Index::open(tree.clone(), scratch.path().join("checked"))
        .expect("an index")
        .check_tree(false);
    let page = Limits::new().limit(100);
    let total = Limits::new().limit(0).count_total(true);
    let deadline = Limits::new().deadline(std::time::Duration::from_secs(600));
    let cases: [(&str, Query, &Limits); 6] = [
        (
            "nowhere",
            Query::literal("zq7Xv9wQ2nowhere"),
            &Limits::new(),
        ),
        (
            "nowhere_deadline",
            Query::literal("zq7Xv9wQ2nowhere"),
            &deadline,
        ),
        ("page_common", Query::literal(common), &page),
        ("page_deep", Query::literal(deep), &page),
        ("rare_listing", Query::literal(rare), &Limits::new()),
        ("exact_total", Query::literal(many), &total),
    ];
    for (name, query, limits) in &cases {
        let mut group = c.benchmark_group(*name);
        group.bench_function("tree", |b| {
            b.iter(|| black_box(tree.search(query, limits, None).expect("a search")))
        });
        group.bench_function("checked", |b| {
            b.iter(|| black_box(checked.search(query, limits, None).expect("a search")))
        });
        group.bench_function("watched", |b| {
            b.iter(|| black_box(watched.search(query, limits, None).expect("a search")))
        });
        group.bench_function("trusted", |b| {
            b.iter(|| black_box(trusted.search(query, limits, None).expect("a search")))
        });
        group.finish();
    }
    let changed = root.join("candor-bench-change.txt");
    let mut n = 0u64;
    c.bench_function("update_one_change", |b| {
        b.iter(|| {
            n += 1;
            std::fs::write(&changed, format!("change {n}\n")).expect("write");
            black_box(checked.update().expect("an update"))
        })
    });
    // A command-line tool's run after one change: a checked query, then
    // an update from the stamps it took.
    let nowhere = Query::literal("zq7Xv9wQ2nowhere");
    c.bench_function("query_then_update_as_seen", |b| {
        b.iter(|| {
            n += 1;
            std::fs::write(&changed, format!("change {n}\n")).expect("write");
            let found = checked
                .search(&nowhere, &Limits::new(), None)
                .expect("a search");
            black_box(found.is_complete());
            black_box(checked.update_as_seen().expect("an update"))
        })
    });
    c.bench_function("query_unchanged", |b| {
        b.iter(|| {
            black_box(
                checked
                    .search(&nowhere, &Limits::new(), None)
                    .expect("a search"),
            )
        })
    });
    c.bench_function("update_one_change_watched", |b| {
        b.iter(|| {
            n += 1;
            std::fs::write(&changed, format!("change {n}\n")).expect("write");
            // The watcher's report comes a moment after the write.
            while !watched.is_behind() {
                std::thread::yield_now();
            }
            black_box(watched.update().expect("an update"))
        })
    });
    // An agent's edit between two pages: the file before the cursor (it
    // exists before the first page) rewritten, the index updated, the
    // next page asked; only the page is timed.
    std::fs::write(&changed, "change\n").expect("write");
    while !watched.is_behind() {
        std::thread::yield_now();
    }
    watched.update().expect("an update");
    let first = watched
        .search(&Query::literal(deep), &page, None)
        .expect("a page");
    if let Some(cursor) = first.next_cursor().cloned() {
        c.bench_function("page_deep_resumed_after_an_edit_watched", |b| {
            b.iter_custom(|iters| {
                let mut spent = std::time::Duration::ZERO;
                for _ in 0..iters {
                    n += 1;
                    std::fs::write(&changed, format!("change {n}\n")).expect("write");
                    while !watched.is_behind() {
                        std::thread::yield_now();
                    }
                    watched.update().expect("an update");
                    let began = std::time::Instant::now();
                    let next = watched.search(&Query::literal(deep), &page, Some(&cursor));
                    spent += began.elapsed();
                    black_box(next.expect("the cursor resumes").len());
                }
                spent
            })
        });
    }
    let _ = std::fs::remove_file(&changed);
    let _ = checked.update();
    c.final_summary();
}

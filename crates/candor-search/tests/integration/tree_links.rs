//! Symbolic links in a tree: never followed out of the root, followed
//! inside it only when asked, loops and broken links counted, path
//! filters through links counted as skipped, and single files and cursors
//! through links refused.

use std::collections::BTreeSet;
use std::os::unix::fs::symlink;
use std::time::Duration;

use candor_search::{Corpus, ErrorKind, Excerpt, Limits, Query, SkipReason, Tree};
use tempfile::TempDir;

use crate::fixture::{paths_of, tree, write_files};

/// A root with links, beside a folder outside it that holds a needle.
struct Linked {
    outside: TempDir,
    root: TempDir,
}

fn linked() -> Linked {
    let outside = write_files(&[
        ("secret.txt", b"needle SECRET\n"),
        ("dir/s.txt", b"needle SECRET\n"),
    ]);
    let root = write_files(&[("a/real.txt", b"needle\n"), ("z.txt", b"needle\n")]);
    symlink(
        outside.path().join("secret.txt"),
        root.path().join("leak.txt"),
    )
    .unwrap();
    symlink(outside.path().join("dir"), root.path().join("out")).unwrap();
    Linked { outside, root }
}

/// The tree over `root` with `threads` threads, following links or not.
fn linking(root: &TempDir, threads: usize, follow: bool) -> Tree {
    Tree::new(root.path())
        .unwrap()
        .threads(threads)
        .start_threads_after(Duration::ZERO)
        .follow_links(follow)
}

#[test]
fn links_out_of_the_root_are_not_followed() {
    let l = linked();
    for threads in [1, 4] {
        for (follow, reason) in [
            (false, SkipReason::Symlink),
            (true, SkipReason::OutsideRoot),
        ] {
            let b = linking(&l.root, threads, follow)
                .search(&Query::literal("needle"), &Limits::new(), None)
                .unwrap();
            assert_eq!(paths_of(&b), ["a/real.txt", "z.txt"]);
            assert!(b.iter().all(|m| !m.line.contains("SECRET")));
            assert_eq!(b.skipped().count(&reason), 2, "{:?}", b.skipped());
            let skipped: BTreeSet<&str> = b.skipped().sample().iter().map(|s| s.path()).collect();
            assert_eq!(skipped, BTreeSet::from(["leak.txt", "out"]));
            assert!(b.is_complete(), "leaving out a link is policy");
        }
    }
    assert!(l.outside.path().join("secret.txt").exists());
}

/// A path filter through a link the tree does not follow, or out of the
/// root, is counted as skipped, as the walk counts such a link, and the
/// other paths are searched, the answer incomplete (a path named was not
/// searched); one file named alone (`find_in_file`,
/// `excerpt`) is refused. Nothing outside is ever read.
#[test]
fn paths_through_links_out_of_the_root_are_skipped_or_refused() {
    let l = linked();
    for follow in [false, true] {
        let t = tree(&l.root).follow_links(follow);
        let refused = |err: &candor_search::Error| {
            if follow {
                matches!(err.kind(), ErrorKind::OutsideRoot { .. })
            } else {
                matches!(err.kind(), ErrorKind::InvalidArgument { .. })
                    && err.to_string().contains("symbolic link")
            }
        };
        // The path counted: the link's own, or (not followed) the path
        // named through it.
        for (path, counted) in [
            ("leak.txt", "leak.txt"),
            ("out", "out"),
            ("out/s.txt", if follow { "out" } else { "out/s.txt" }),
            ("a/../out", "out"),
        ] {
            let q = Query::literal("needle").paths([path, "z.txt"]);
            let b = t.search(&q, &Limits::new(), None).unwrap();
            assert_eq!(paths_of(&b), ["z.txt"], "{path}");
            let skipped: Vec<(&str, &SkipReason)> = b
                .skipped()
                .sample()
                .iter()
                .map(|s| (s.path(), s.reason()))
                .collect();
            let reason = if follow {
                SkipReason::OutsideRoot
            } else {
                SkipReason::Symlink
            };
            assert_eq!(skipped, [(counted, &reason)], "{path}");
            // A path the caller named was not searched, the link's or the
            // path's through it: the answer is not the whole one.
            assert!(
                !b.is_complete(),
                "{path} (follow {follow}): {}",
                b.summary("matches")
            );
            let err = t
                .find_in_file(path, &Query::literal("needle"), &Limits::new(), None)
                .unwrap_err();
            assert!(refused(&err), "{path}: {err}");
            let err = t
                .excerpt(&Excerpt::new(path, 1..=1), &Limits::new(), None)
                .unwrap_err();
            assert!(refused(&err), "{path}: {err}");
        }
        // An absolute path to the outside, and one to the inside.
        let outside = l.outside.path().join("secret.txt");
        let err = t
            .search(
                &Query::literal("needle").paths([outside.to_str().unwrap()]),
                &Limits::new(),
                None,
            )
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::OutsideRoot { .. }), "{err}");
        let inside = t.get_root().join("z.txt");
        let b = t
            .search(
                &Query::literal("needle").paths([inside.to_str().unwrap()]),
                &Limits::new(),
                None,
            )
            .unwrap();
        assert_eq!(paths_of(&b), ["z.txt"]);
    }
}

#[test]
fn links_inside_the_root_are_followed_only_when_asked() {
    let root = write_files(&[("a/real.txt", b"needle\n")]);
    symlink(root.path().join("a/real.txt"), root.path().join("b.txt")).unwrap();
    symlink("a", root.path().join("c")).unwrap();
    for threads in [1, 4] {
        let b = linking(&root, threads, true)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        assert_eq!(paths_of(&b), ["a/real.txt", "b.txt", "c/real.txt"]);
        assert!(b.skipped().is_empty());
        // By default, each file is searched once, by its own path.
        let b = linking(&root, threads, false)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        assert_eq!(paths_of(&b), ["a/real.txt"]);
        assert_eq!(b.skipped().count(&SkipReason::Symlink), 2);
        let skipped: BTreeSet<&str> = b.skipped().sample().iter().map(|s| s.path()).collect();
        assert_eq!(skipped, BTreeSet::from(["b.txt", "c"]));
        assert!(b.is_complete(), "a link left out is policy");
    }
    // A path through a link inside the root is searched when links are
    // followed, and refused when not.
    let t = tree(&root).follow_links(true);
    let found = t
        .find_in_file(
            "c/real.txt",
            &Query::literal("needle"),
            &Limits::new(),
            None,
        )
        .unwrap();
    assert_eq!(paths_of(&found), ["c/real.txt"]);
    let err = tree(&root)
        .find_in_file(
            "c/real.txt",
            &Query::literal("needle"),
            &Limits::new(),
            None,
        )
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument { .. }),
        "{err}"
    );
}

#[test]
fn a_link_loop_is_counted_and_the_walk_ends() {
    let root = write_files(&[("a/b/x.txt", b"needle\n"), ("y.txt", b"needle\n")]);
    symlink(root.path().join("a"), root.path().join("a/b/up")).unwrap();
    symlink(root.path(), root.path().join("a/top")).unwrap();
    for threads in [1, 4] {
        let b = linking(&root, threads, true)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        assert_eq!(paths_of(&b), ["a/b/x.txt", "y.txt"]);
        assert_eq!(
            b.skipped().count(&SkipReason::SymlinkLoop),
            2,
            "{:?}",
            b.skipped()
        );
        assert!(b.is_complete(), "a loop is searched through its folder");
    }
}

#[test]
fn a_loop_of_links_is_a_loop_not_an_error() {
    let root = write_files(&[("y.txt", b"needle\n")]);
    symlink("self", root.path().join("self")).unwrap();
    symlink("b", root.path().join("a")).unwrap();
    symlink("a", root.path().join("b")).unwrap();
    for threads in [1, 2] {
        let b = linking(&root, threads, true)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        assert_eq!(paths_of(&b), ["y.txt"]);
        assert_eq!(
            b.skipped().count(&SkipReason::SymlinkLoop),
            3,
            "{:?}",
            b.skipped()
        );
        assert!(b.is_complete(), "a loop of links holds nothing to search");
    }
}

#[test]
fn a_broken_link_is_counted() {
    let root = write_files(&[("y.txt", b"needle\n")]);
    symlink(root.path().join("gone.txt"), root.path().join("dangling")).unwrap();
    for (follow, reason) in [(true, SkipReason::BrokenLink), (false, SkipReason::Symlink)] {
        let b = tree(&root)
            .follow_links(follow)
            .search(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        assert_eq!(paths_of(&b), ["y.txt"]);
        assert_eq!(b.skipped().count(&reason), 1);
        assert_eq!(b.skipped().sample()[0].path(), "dangling");
        assert!(b.is_complete());
    }
}

#[test]
fn a_cursor_to_a_file_turned_into_a_link_out_is_refused() {
    let outside = write_files(&[("s.txt", b"needle\nneedle\nneedle SECRET\n")]);
    let root = write_files(&[("a.txt", b"needle\nneedle\n"), ("b.txt", b"needle\n")]);
    let t = tree(&root);
    let q = Query::literal("needle");
    let first = t.search(&q, &Limits::new().limit(1), None).unwrap();
    assert_eq!(paths_of(&first), ["a.txt"]);
    std::fs::remove_file(root.path().join("a.txt")).unwrap();
    symlink(outside.path().join("s.txt"), root.path().join("a.txt")).unwrap();
    let err = t
        .search(&q, &Limits::new(), first.next_cursor())
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
}

/// Following links and reading the ignore files above the root change
/// which files the walk reaches, so a cursor issued under one setting is
/// refused under the other: resuming it there could skip or repeat files.
#[test]
fn cursors_are_bound_to_the_link_and_parent_ignore_settings() {
    let l = linked();
    let query = Query::literal("needle");
    let limits = Limits::new().limit(1);
    let settings: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];
    for (follow, parents) in settings {
        let issuer = linking(&l.root, 1, follow).parent_ignores(parents);
        let page = issuer.search(&query, &limits, None).unwrap();
        let cursor = page.next_cursor().expect("two files match");
        // The same settings resume it.
        assert!(issuer.search(&query, &limits, Some(cursor)).is_ok());
        for (other_follow, other_parents) in settings {
            if (other_follow, other_parents) == (follow, parents) {
                continue;
            }
            let other = linking(&l.root, 4, other_follow).parent_ignores(other_parents);
            let err = other.search(&query, &limits, Some(cursor)).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
                "follow {follow} parents {parents} -> follow {other_follow} parents {other_parents}: {err}"
            );
        }
    }
}

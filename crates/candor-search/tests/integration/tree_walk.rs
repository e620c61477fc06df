//! What a tree's walk reads and what it leaves out: ignore files, hidden
//! files, globs, binary and oversized files (counted, never silent), and
//! the root a tree needs.

use std::ops::ControlFlow;
use std::time::Duration;

use candor_search::{Corpus, ErrorKind, Limits, Query, SkipReason, Tree};

use crate::fixture::{paths_of, tree, write_files};

// ---------------------------------------------------------------------------
// Walking rules

#[test]
fn gitignore_is_respected_and_can_be_turned_off() {
    let dir = write_files(&[
        (".gitignore", b"ignored.txt\nbuild/\n*.log\n"),
        ("kept.txt", b"needle\n"),
        ("ignored.txt", b"needle\n"),
        ("build/out.txt", b"needle\n"),
        ("sub/app.log", b"needle\n"),
        ("sub/.ignore", b"secret.txt\n"),
        ("sub/secret.txt", b"needle\n"),
        ("sub/ok.txt", b"needle\n"),
    ]);
    let query = Query::literal("needle");
    let on = tree(&dir).search(&query, &Limits::new(), None).unwrap();
    assert_eq!(paths_of(&on), ["kept.txt", "sub/ok.txt"]);
    assert!(on.is_complete());
    let off = tree(&dir)
        .gitignore(false)
        .search(&query, &Limits::new(), None)
        .unwrap();
    assert_eq!(
        paths_of(&off),
        [
            "build/out.txt",
            "ignored.txt",
            "kept.txt",
            "sub/app.log",
            "sub/ok.txt",
            "sub/secret.txt"
        ]
    );
    // The ignore files themselves are hidden, so not searched either way.
    let files = tree(&dir)
        .gitignore(false)
        .files_with_matches(&Query::literal("txt"), &Limits::new(), None)
        .unwrap();
    assert!(files.is_empty(), "{:?}", files.items());
}

#[test]
fn gitignore_applies_to_a_path_filter_too() {
    let dir = write_files(&[
        (".gitignore", b"gen/\n"),
        ("src/gen/x.rs", b"needle\n"),
        ("src/a.rs", b"needle\n"),
    ]);
    let b = tree(&dir)
        .search(
            &Query::literal("needle").paths(["src"]),
            &Limits::new(),
            None,
        )
        .unwrap();
    assert_eq!(paths_of(&b), ["src/a.rs"]);
}

#[test]
fn hidden_files_are_off_by_default() {
    let dir = write_files(&[
        (".hidden.txt", b"needle\n"),
        (".dir/inside.txt", b"needle\n"),
        ("shown/.also", b"needle\n"),
        ("shown/plain.txt", b"needle\n"),
    ]);
    let query = Query::literal("needle");
    let default = tree(&dir).search(&query, &Limits::new(), None).unwrap();
    assert_eq!(paths_of(&default), ["shown/plain.txt"]);
    let hidden = tree(&dir)
        .hidden(true)
        .search(&query, &Limits::new(), None)
        .unwrap();
    assert_eq!(
        paths_of(&hidden),
        [
            ".dir/inside.txt",
            ".hidden.txt",
            "shown/.also",
            "shown/plain.txt"
        ]
    );
}

/// A `!` rule of an ignore file lets a hidden file or folder in, as in
/// ripgrep; the hidden rule still holds for what no rule names, inside a
/// folder let in too, and with the ignore files off.
#[test]
fn an_ignore_file_s_negation_lets_a_hidden_entry_in() {
    let dir = write_files(&[
        (".gitignore", b"!.foo\n!.config/\n"),
        (".foo", b"needle\n"),
        (".bar", b"needle\n"),
        (".config/x.txt", b"needle\n"),
        (".config/.deep", b"needle\n"),
        ("sub/.foo", b"needle\n"),
        ("sub/.ignore", b"!.baz\n"),
        ("sub/.baz", b"needle\n"),
        ("other/.baz", b"needle\n"),
    ]);
    let query = Query::literal("needle");
    let b = tree(&dir).search(&query, &Limits::new(), None).unwrap();
    assert_eq!(
        paths_of(&b),
        [".config/x.txt", ".foo", "sub/.baz", "sub/.foo"]
    );
    let hidden: Vec<&str> = b
        .skipped()
        .sample()
        .iter()
        .filter(|s| *s.reason() == SkipReason::Hidden)
        .map(|s| s.path())
        .collect();
    assert_eq!(
        hidden,
        [
            ".bar",
            ".config/.deep",
            ".gitignore",
            "other/.baz",
            "sub/.ignore"
        ]
    );
    assert!(b.is_complete());
    let off = tree(&dir)
        .gitignore(false)
        .search(&query, &Limits::new(), None)
        .unwrap();
    assert!(off.is_empty(), "{:?}", paths_of(&off));
}

#[test]
fn globs_include_and_exclude() {
    let dir = write_files(&[
        ("a.rs", b"needle\n"),
        ("b.js", b"needle\n"),
        ("c.min.js", b"needle\n"),
        ("src/d.rs", b"needle\n"),
        ("target/e.rs", b"needle\n"),
    ]);
    let query = Query::literal("needle");
    let run = |globs: &[&str]| {
        let b = tree(&dir)
            .globs(globs.iter().copied())
            .search(&query, &Limits::new(), None)
            .unwrap();
        assert!(b.is_complete());
        paths_of(&b)
    };
    assert_eq!(run(&["*.rs"]), ["a.rs", "src/d.rs", "target/e.rs"]);
    assert_eq!(
        run(&["!*.min.js"]),
        ["a.rs", "b.js", "src/d.rs", "target/e.rs"]
    );
    assert_eq!(run(&["*.rs", "!target/**"]), ["a.rs", "src/d.rs"]);
    assert_eq!(run(&["*.js", "!*.min.js"]), ["b.js"]);
    // Globs apply before the limit: the first item is the first kept file.
    let first = tree(&dir)
        .globs(["*.js"])
        .search(&query, &Limits::new().limit(1), None)
        .unwrap();
    assert_eq!(paths_of(&first), ["b.js"]);
    assert!(first.completeness().is_truncated());
}

#[test]
fn a_bad_glob_is_an_invalid_argument() {
    let dir = write_files(&[("a.rs", b"x\n")]);
    let err = tree(&dir)
        .globs(["a{b"])
        .search(&Query::literal("x"), &Limits::new(), None)
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument { name: "globs", .. }),
        "{err}"
    );
}

#[test]
fn binary_files_are_skipped_and_counted_in_every_mode() {
    let dir = write_files(&[
        ("a.png", b"\x89PNG needle\x00\n"),
        ("b.txt", b"needle\n"),
        ("c.dat", b"needle\n\n\n\x00"),
    ]);
    let t = tree(&dir);
    let query = Query::literal("needle");
    let b = t.search(&query, &Limits::new(), None).unwrap();
    assert_eq!(paths_of(&b), ["b.txt"]);
    assert!(b.is_complete(), "binary files are policy");
    assert_eq!(b.skipped().count(&SkipReason::Binary), 2);
    let sample: Vec<&str> = b.skipped().sample().iter().map(|s| s.path()).collect();
    assert_eq!(sample, ["a.png", "c.dat"]);
    let n = t.count_per_file(&query, &Limits::new(), None).unwrap();
    assert_eq!(n.skipped().count(&SkipReason::Binary), 2);
    let f = t.files_with_matches(&query, &Limits::new(), None).unwrap();
    assert_eq!(f.skipped().count(&SkipReason::Binary), 2);
    // Named, a binary file is searched as text, and said to be binary.
    let found = t
        .find_in_file("a.png", &query, &Limits::new(), None)
        .unwrap();
    assert_eq!(found.len(), 1);
    assert!(found.is_complete());
    assert_eq!(found.skipped().count(&SkipReason::Binary), 0);
    assert_eq!(found.skipped().count(&SkipReason::BinaryAsText), 1);
    let json = b.to_json().unwrap();
    assert!(json.contains(r#""binary":2"#), "{json}");
}

#[test]
fn the_binary_rule_holds_however_a_file_is_read() {
    // Reads come in blocks: the NUL may sit in the first block (binary
    // whole), just past it or near the end of a large file (the search
    // ends at its line), and the verdict is the same with any threads.
    let text = |n: usize| b"needle\n".repeat(n / 7 + 1);
    let at = |mut bytes: Vec<u8>, pos: usize| {
        bytes[pos] = 0;
        bytes
    };
    let files: Vec<(String, Vec<u8>)> = vec![
        ("first.txt".into(), at(text(100), 3)),
        ("second.txt".into(), at(text(200_000), 64 * 1024 + 1)),
        ("third.txt".into(), at(text(600_000), 256 * 1024 + 3)),
        ("last.txt".into(), at(text(1_000_000), 999_999)),
        ("clean.txt".into(), text(300_000)),
    ];
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let dir = write_files(&borrowed);
    let query = Query::literal("needle");
    for threads in [1, 2, 4] {
        let t = tree(&dir)
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let b = t.files_with_matches(&query, &Limits::new(), None).unwrap();
        let found: Vec<&str> = b.iter().map(String::as_str).collect();
        assert_eq!(
            found,
            ["clean.txt", "last.txt", "third.txt"],
            "threads {threads}"
        );
        // Two binary whole; the others match before their NUL and are read
        // no further.
        assert_eq!(
            b.skipped().count(&SkipReason::Binary),
            2,
            "threads {threads}"
        );
        let counts = t.count_per_file(&query, &Limits::new(), None).unwrap();
        let counted: Vec<(&str, u64)> = counts.iter().map(|c| (c.path.as_str(), c.count)).collect();
        // The lines before the NUL's line: 1,000,000 bytes of 7-byte lines
        // hold 142,857 whole ones, the NUL on the last.
        assert_eq!(
            counted,
            [
                ("clean.txt", 42_858),
                ("last.txt", 142_857),
                ("third.txt", 37_449)
            ],
            "threads {threads}"
        );
        assert_eq!(
            counts.skipped().count(&SkipReason::Binary),
            4,
            "threads {threads}"
        );
        assert!(counts.is_complete());
    }
}

#[test]
fn a_panic_in_the_stream_callback_reaches_the_caller() {
    // Every file matches, and the callback panics once the threads run: a
    // worker goes on until the reordering window is full, then waits for a
    // release that will never come. It must be told to stop.
    let files: Vec<(String, Vec<u8>)> = (0..600)
        .map(|i| (format!("d{:02}/f{i:03}.txt", i % 20), b"needle\n".to_vec()))
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let dir = write_files(&borrowed);
    let t = tree(&dir).threads(4);
    let mut seen = 0;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        t.search_each(&Query::literal("needle"), &Limits::new(), None, &mut |_| {
            seen += 1;
            assert!(seen < 50, "the caller's own bug");
            ControlFlow::Continue(())
        })
    }));
    assert!(outcome.is_err(), "the panic comes back to the caller");
    assert_eq!(seen, 50);
}

#[test]
fn oversized_files_are_skipped_as_too_large() {
    let dir = write_files(&[
        ("big.txt", &[b"needle\n".as_slice(), &[b'x'; 100]].concat()),
        ("edge.txt", &[b"needle\n".as_slice(), &[b'x'; 43]].concat()),
        ("small.txt", b"needle\n"),
    ]);
    let b = tree(&dir)
        .max_file_size(50)
        .search(&Query::literal("needle"), &Limits::new(), None)
        .unwrap();
    assert_eq!(
        paths_of(&b),
        ["edge.txt", "small.txt"],
        "50 bytes is not over 50"
    );
    assert_eq!(b.skipped().count(&SkipReason::TooLarge), 1);
    assert_eq!(b.skipped().sample()[0].path(), "big.txt");
    assert!(b.is_complete(), "a size limit is policy");
}

/// What ignore files and the hidden-file rule leave out is counted in
/// `skipped` (policy: the result stays complete), a folder once; what the
/// caller's globs leave out is the query's scope and is not counted.
#[test]
fn ignored_and_hidden_inputs_are_counted_not_silent() {
    let dir = write_files(&[
        (".gitignore", b"target/\n*.log\n"),
        ("src/a.rs", b"needle\n"),
        ("target/debug/x.rs", b"needle\n"),
        ("target/debug/y.rs", b"needle\n"),
        ("build.log", b"needle\n"),
        (".env", b"needle\n"),
        ("notes.md", b"needle\n"),
    ]);
    let q = Query::literal("needle");
    for threads in [1, 4] {
        let t = Tree::new(dir.path())
            .unwrap()
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let b = t.search(&q, &Limits::new(), None).unwrap();
        let paths: Vec<&str> = b.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["notes.md", "src/a.rs"]);
        assert!(b.is_complete(), "policy skips keep a result complete");
        assert_eq!(
            b.skipped().count(&SkipReason::Ignored),
            2,
            "{:?}",
            b.skipped()
        );
        assert_eq!(
            b.skipped().count(&SkipReason::Hidden),
            2,
            "{:?}",
            b.skipped()
        );
        let sample: Vec<&str> = b.skipped().sample().iter().map(|s| s.path()).collect();
        assert_eq!(sample, [".env", ".gitignore", "build.log", "target"]);
        let json = serde_json::to_value(&b).unwrap();
        assert_eq!(json["complete"], true);
        assert_eq!(json["skipped"]["by_reason"]["ignored"], 2);

        // Turned off, nothing is left out and nothing is counted.
        let all = t
            .clone()
            .hidden(true)
            .gitignore(false)
            .search(&q, &Limits::new(), None)
            .unwrap();
        assert_eq!(all.len(), 6);
        assert!(all.skipped().is_empty(), "{:?}", all.skipped());

        // Globs narrow the query: what they leave out is not a skip.
        let rs = t
            .clone()
            .globs(["*.rs"])
            .search(&q, &Limits::new(), None)
            .unwrap();
        assert_eq!(rs.len(), 1);
        assert_eq!(rs.skipped().count(&SkipReason::Ignored), 1, "target only");
    }
}

/// Ignore files nest as in git: the nearest folder with a say decides, a
/// `!` rule lets a file back in, `.ignore` files count too, and the
/// repository's ignore files above the root apply to a tree inside it.
#[test]
fn ignore_files_nest_like_git() {
    let dir = write_files(&[
        ("repo/.git/info/exclude", b"excluded.txt\n"),
        ("repo/.gitignore", b"*.log\nsecret*\n"),
        ("repo/a.log", b"needle\n"),
        ("repo/excluded.txt", b"needle\n"),
        ("repo/kept.txt", b"needle\n"),
        ("repo/sub/.gitignore", b"!keep.log\n"),
        ("repo/sub/keep.log", b"needle\n"),
        ("repo/sub/other.log", b"needle\n"),
        ("repo/sub/secret.txt", b"needle\n"),
        ("repo/sub/deeper/.ignore", b"*.md\n"),
        ("repo/sub/deeper/notes.md", b"needle\n"),
        ("repo/sub/deeper/code.rs", b"needle\n"),
    ]);
    let q = Query::literal("needle");
    for threads in [1, 3] {
        let whole = Tree::new(dir.path().join("repo"))
            .unwrap()
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let b = whole.search(&q, &Limits::new(), None).unwrap();
        let paths: Vec<&str> = b.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["kept.txt", "sub/deeper/code.rs", "sub/keep.log"]);
        assert_eq!(
            b.skipped().count(&SkipReason::Ignored),
            5,
            "{:?}",
            b.skipped()
        );

        // A tree rooted inside the repository still follows its rules.
        let inner = Tree::new(dir.path().join("repo/sub"))
            .unwrap()
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let b = inner.search(&q, &Limits::new(), None).unwrap();
        let paths: Vec<&str> = b.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["deeper/code.rs", "keep.log"]);
    }
}

// ---------------------------------------------------------------------------
// Tree construction

#[test]
fn a_tree_needs_an_existing_folder() {
    let dir = write_files(&[("f.txt", b"x\n")]);
    let err = Tree::new(dir.path().join("missing")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Read { .. }), "{err}");
    let err = Tree::new(dir.path().join("f.txt")).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument { name: "root", .. }),
        "{err}"
    );
}

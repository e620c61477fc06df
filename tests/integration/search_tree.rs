//! Search over directory trees on disk (and, for every table case, the same
//! files in memory): walking rules (.gitignore, hidden files, globs,
//! symbolic links, size and binary skips), path and cursor confinement,
//! excerpts, column cuts, the item limit and the work budgets, and
//! determinism whatever the thread count.
//!
//! Table cases carry a unique `name` (checked below) and run on
//! `Documents`, on a `Tree` with 1 thread and on a `Tree` with 4 threads.
//! Tests written for engine bugs (all fixed) each hold a minimal
//! reproduction.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use candor::{
    Bounded, BudgetKind, Completeness, Corpus, Cursor, Documents, ErrorKind, Excerpt, Limits,
    ManualClock, Match, Query, SkipReason, Total, Tree,
};
use tempfile::TempDir;

// ---------------------------------------------------------------------------
// Helpers

type Files = &'static [(&'static str, &'static [u8])];

/// Writes `files` under a new temporary directory.
fn write_files(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, bytes) in files {
        write(dir.path(), name, bytes);
    }
    dir
}

fn write(root: &Path, name: &str, bytes: &[u8]) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

fn documents(files: &[(&str, &[u8])]) -> Documents<'static> {
    files
        .iter()
        .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
        .collect()
}

fn tree(dir: &TempDir) -> Tree {
    Tree::new(dir.path())
        .expect("a tree")
        .threads(2)
        .start_threads_after(Duration::ZERO)
}

/// The same files in memory and on disk with 1 and 4 threads.
struct Both {
    docs: Documents<'static>,
    tree1: Tree,
    tree4: Tree,
    _dir: TempDir,
}

impl Both {
    fn new(files: &[(&str, &[u8])]) -> Both {
        let dir = write_files(files);
        let tree = Tree::new(dir.path()).expect("a tree");
        Both {
            docs: documents(files),
            tree1: tree.clone().threads(1),
            tree4: tree.threads(4).start_threads_after(Duration::ZERO),
            _dir: dir,
        }
    }

    fn all(&self) -> [(&'static str, &dyn Corpus); 3] {
        [
            ("documents", &self.docs),
            ("tree, 1 thread", &self.tree1),
            ("tree, 4 threads", &self.tree4),
        ]
    }
}

/// (path, line_number, byte_offset, line, spans)
type Row = (
    &'static str,
    u64,
    u64,
    &'static str,
    &'static [(usize, usize)],
);

/// A `Row` with owned text.
type OwnedRow = (String, u64, u64, String, Vec<(usize, usize)>);

fn rows_of(b: &Bounded<Match>) -> Vec<OwnedRow> {
    b.iter()
        .map(|m| {
            (
                m.path.clone(),
                m.line_number,
                m.byte_offset,
                m.line.clone(),
                m.matches.iter().map(|s| (s.start, s.end)).collect(),
            )
        })
        .collect()
}

fn owned(rows: &[Row]) -> Vec<OwnedRow> {
    rows.iter()
        .map(|&(p, n, o, l, s)| (p.to_owned(), n, o, l.to_owned(), s.to_vec()))
        .collect()
}

fn paths_of(b: &Bounded<Match>) -> Vec<String> {
    b.iter().map(|m| m.path.clone()).collect()
}

/// Component-wise path order, as the contract defines it.
fn path_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').cmp(b.split('/'))
}

/// Follows cursors until the answer ends; returns all items and the number
/// of pages. Fails on a page that neither ends the answer nor advances.
fn all_pages(c: &dyn Corpus, query: &Query, limits: &Limits) -> (Vec<Match>, usize) {
    let mut items = Vec::new();
    let mut cursor: Option<Cursor> = None;
    let mut pages = 0;
    loop {
        pages += 1;
        assert!(pages < 10_000, "paging does not end");
        let b = c
            .search(query, limits, cursor.as_ref())
            .expect("a page searches");
        items.extend(b.iter().cloned());
        match b.next_cursor() {
            Some(next) => {
                assert!(b.is_truncated(), "a cursor on an exact page");
                assert_ne!(
                    Some(next.as_str()),
                    cursor.as_ref().map(Cursor::as_str),
                    "the cursor does not advance"
                );
                cursor = Some(next.clone());
            }
            None => {
                assert!(b.completeness().is_exact(), "{:?}", b.completeness());
                return (items, pages);
            }
        }
    }
}

fn kind_name(kind: &ErrorKind) -> String {
    format!("{kind:?}")
}

// ---------------------------------------------------------------------------
// Table: matching semantics, on both corpora

struct Case {
    name: &'static str,
    files: Files,
    query: fn() -> Query,
    expect: &'static [Row],
    binary: u64,
}

const CASES: &[Case] = &[
    Case {
        name: "order_is_component_wise",
        files: &[
            ("a.txt", b"x\n"),
            ("a-c", b"x\n"),
            ("a/z/y", b"x\n"),
            ("a/b", b"x\n"),
            ("B", b"x\n"),
        ],
        query: || Query::literal("x"),
        expect: &[
            ("B", 1, 0, "x", &[(0, 1)]),
            ("a/b", 1, 0, "x", &[(0, 1)]),
            ("a/z/y", 1, 0, "x", &[(0, 1)]),
            ("a-c", 1, 0, "x", &[(0, 1)]),
            ("a.txt", 1, 0, "x", &[(0, 1)]),
        ],
        binary: 0,
    },
    Case {
        name: "crlf_is_not_part_of_the_line",
        files: &[("w.txt", b"one\r\ntwo x\r\nx")],
        query: || Query::literal("x"),
        expect: &[
            ("w.txt", 2, 5, "two x", &[(4, 5)]),
            ("w.txt", 3, 12, "x", &[(0, 1)]),
        ],
        binary: 0,
    },
    Case {
        name: "lines_are_numbered_across_empty_lines",
        files: &[("e.txt", b"\n\nx\n\n\nx x\n")],
        query: || Query::literal("x"),
        expect: &[
            ("e.txt", 3, 2, "x", &[(0, 1)]),
            ("e.txt", 6, 6, "x x", &[(0, 1), (2, 3)]),
        ],
        binary: 0,
    },
    Case {
        name: "matches_do_not_overlap",
        files: &[("o.txt", b"aaaaa\n")],
        query: || Query::literal("aa"),
        expect: &[("o.txt", 1, 0, "aaaaa", &[(0, 2), (2, 4)])],
        binary: 0,
    },
    Case {
        name: "earlier_literal_wins_at_the_same_place",
        files: &[("l.txt", b"abcd abd\n")],
        query: || Query::literals(["ab", "abc"]),
        expect: &[("l.txt", 1, 0, "abcd abd", &[(0, 2), (5, 7)])],
        binary: 0,
    },
    Case {
        name: "longer_literal_first_wins",
        files: &[("l.txt", b"abcd abd\n")],
        query: || Query::literals(["abc", "ab"]),
        expect: &[("l.txt", 1, 0, "abcd abd", &[(0, 3), (5, 7)])],
        binary: 0,
    },
    Case {
        name: "leftmost_match_wins_over_literal_order",
        files: &[("l.txt", b"xbcab\n")],
        query: || Query::literals(["ab", "bc"]),
        expect: &[("l.txt", 1, 0, "xbcab", &[(1, 3), (3, 5)])],
        binary: 0,
    },
    Case {
        name: "whole_word_literal",
        files: &[("w.rs", b"cat concat cat_ cat. (cat)\n")],
        query: || Query::literal("cat").whole_word(true),
        expect: &[(
            "w.rs",
            1,
            0,
            "cat concat cat_ cat. (cat)",
            &[(0, 3), (16, 19), (22, 25)],
        )],
        binary: 0,
    },
    Case {
        name: "whole_word_uses_unicode_word_chars",
        files: &[("u.txt", "caté écat cat\n".as_bytes())],
        query: || Query::literal("cat").whole_word(true),
        expect: &[("u.txt", 1, 0, "caté écat cat", &[(12, 15)])],
        binary: 0,
    },
    Case {
        name: "whole_word_set_tries_the_next_literal",
        files: &[("s.txt", b"abc ab\n")],
        query: || Query::literals(["ab", "abc"]).whole_word(true),
        expect: &[("s.txt", 1, 0, "abc ab", &[(0, 3), (4, 6)])],
        binary: 0,
    },
    Case {
        name: "case_folding_reaches_kelvin_sign",
        files: &[("k.txt", "\u{212A} k K\n".as_bytes())],
        query: || Query::literal("k").case_insensitive(true),
        expect: &[("k.txt", 1, 0, "\u{212A} k K", &[(0, 3), (4, 5), (6, 7)])],
        binary: 0,
    },
    Case {
        name: "case_folding_reaches_long_s",
        files: &[("s.txt", "\u{17F} s S\n".as_bytes())],
        query: || Query::literal("S").case_insensitive(true),
        expect: &[("s.txt", 1, 0, "\u{17F} s S", &[(0, 2), (3, 4), (5, 6)])],
        binary: 0,
    },
    Case {
        name: "case_folding_of_non_ascii",
        files: &[("e.txt", "Été été\n".as_bytes())],
        query: || Query::literal("éTÉ").case_insensitive(true),
        expect: &[("e.txt", 1, 0, "Été été", &[(0, 5), (6, 11)])],
        binary: 0,
    },
    Case {
        name: "case_sensitive_by_default",
        files: &[("c.txt", b"Fish fish\n")],
        query: || Query::literal("fish"),
        expect: &[("c.txt", 1, 0, "Fish fish", &[(5, 9)])],
        binary: 0,
    },
    Case {
        name: "invalid_utf8_is_replaced_and_spans_follow",
        files: &[("i.txt", b"\xffab\xe2\x82ab\n")],
        query: || Query::literal("ab"),
        expect: &[("i.txt", 1, 0, "\u{FFFD}ab\u{FFFD}ab", &[(3, 5), (8, 10)])],
        binary: 0,
    },
    Case {
        name: "caret_lists_every_line",
        files: &[("c.txt", b"a\n\nb\n")],
        query: || Query::regex("^"),
        expect: &[
            ("c.txt", 1, 0, "a", &[(0, 0)]),
            ("c.txt", 2, 2, "", &[(0, 0)]),
            ("c.txt", 3, 3, "b", &[(0, 0)]),
        ],
        binary: 0,
    },
    Case {
        name: "dollar_matches_before_crlf",
        files: &[("d.txt", b"ab\r\nb\n")],
        query: || Query::regex("b$"),
        expect: &[
            ("d.txt", 1, 0, "ab", &[(1, 2)]),
            ("d.txt", 2, 4, "b", &[(0, 1)]),
        ],
        binary: 0,
    },
    Case {
        name: "text_anchors_are_line_anchors",
        files: &[("t.txt", b"xa\nxb\n")],
        query: || Query::regex(r"\Ax|b\z"),
        expect: &[
            ("t.txt", 1, 0, "xa", &[(0, 1)]),
            ("t.txt", 2, 3, "xb", &[(0, 1), (1, 2)]),
        ],
        binary: 0,
    },
    Case {
        name: "regex_cannot_span_lines",
        files: &[("r.txt", b"a\nb\na b\n")],
        query: || Query::regex(r"a\s*b|a[^x]b|(?s:a.b)"),
        expect: &[("r.txt", 3, 4, "a b", &[(0, 3)])],
        binary: 0,
    },
    Case {
        name: "regex_with_required_literal",
        files: &[("q.ts", b"Typography\nexport const MyTypography2 = 1\n")],
        query: || Query::regex(r"\w+Typography\w*"),
        expect: &[("q.ts", 2, 11, "export const MyTypography2 = 1", &[(13, 26)])],
        binary: 0,
    },
    Case {
        name: "regex_case_insensitive_and_whole_word",
        files: &[("r.txt", b"FN main fnx fn\n")],
        query: || Query::regex("fn").case_insensitive(true).whole_word(true),
        expect: &[("r.txt", 1, 0, "FN main fnx fn", &[(0, 2), (12, 14)])],
        binary: 0,
    },
    Case {
        name: "binary_files_are_skipped_and_counted",
        files: &[
            ("a.bin", b"x\x00x\n"),
            ("b.txt", b"x\n"),
            ("c.bin", b"\x00"),
        ],
        query: || Query::literal("x"),
        expect: &[("b.txt", 1, 0, "x", &[(0, 1)])],
        binary: 2,
    },
    Case {
        name: "empty_files_have_no_lines",
        files: &[("empty", b""), ("nl", b"\n")],
        query: || Query::regex("^"),
        expect: &[("nl", 1, 0, "", &[(0, 0)])],
        binary: 0,
    },
    Case {
        name: "path_filter_on_a_folder",
        files: &[
            ("src/a.rs", b"x\n"),
            ("src2/b.rs", b"x\n"),
            ("src-c", b"x\n"),
        ],
        query: || Query::literal("x").paths(["src"]),
        expect: &[("src/a.rs", 1, 0, "x", &[(0, 1)])],
        binary: 0,
    },
    Case {
        name: "path_filter_normalizes_and_merges",
        files: &[
            ("src/a.rs", b"x\n"),
            ("src/deep/b.rs", b"x\n"),
            ("tests/t.rs", b"x\n"),
        ],
        query: || Query::literal("x").paths(["./src//deep/", "tests/../tests/t.rs", "src"]),
        expect: &[
            ("src/a.rs", 1, 0, "x", &[(0, 1)]),
            ("src/deep/b.rs", 1, 0, "x", &[(0, 1)]),
            ("tests/t.rs", 1, 0, "x", &[(0, 1)]),
        ],
        binary: 0,
    },
    Case {
        name: "path_filter_root_means_everything",
        files: &[("a", b"x\n"), ("b/c", b"x\n")],
        query: || Query::literal("x").paths([".", "b"]),
        expect: &[("a", 1, 0, "x", &[(0, 1)]), ("b/c", 1, 0, "x", &[(0, 1)])],
        binary: 0,
    },
];

#[test]
fn table_cases_on_both_corpora() {
    for case in CASES {
        let both = Both::new(case.files);
        let query = (case.query)();
        for (corpus, c) in both.all() {
            let at = format!("{} on {corpus}", case.name);
            let b = c
                .search(&query, &Limits::new(), None)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(rows_of(&b), owned(case.expect), "{at}");
            assert!(b.is_complete(), "{at}: {:?}", b.completeness());
            assert_eq!(b.total(), Total::Exact(case.expect.len() as u64), "{at}");
            assert_eq!(b.skipped().count(&SkipReason::Binary), case.binary, "{at}");
            assert_eq!(b.skipped().total(), case.binary, "{at}");
            // count() and files_with_matches() agree with the rows.
            let counts = c.count(&query, &Limits::new(), None).expect("count");
            let mut want: Vec<(String, u64)> = Vec::new();
            for row in case.expect {
                match want.last_mut() {
                    Some((p, n)) if p == row.0 => *n += 1,
                    _ => want.push((row.0.to_owned(), 1)),
                }
            }
            let got: Vec<(String, u64)> =
                counts.iter().map(|c| (c.path.clone(), c.count)).collect();
            assert_eq!(got, want, "{at}: count");
            assert_eq!(
                counts.skipped().count(&SkipReason::Binary),
                case.binary,
                "{at}"
            );
            let files = c
                .files_with_matches(&query, &Limits::new(), None)
                .expect("files");
            let want_files: Vec<String> = want.into_iter().map(|(p, _)| p).collect();
            assert_eq!(files.items(), &want_files[..], "{at}: files");
        }
    }
}

// ---------------------------------------------------------------------------
// Table: refused queries, on both corpora

struct ErrorCase {
    name: &'static str,
    files: Files,
    query: fn() -> Query,
    expect: fn(&ErrorKind) -> bool,
}

const ERROR_CASES: &[ErrorCase] = &[
    ErrorCase {
        name: "empty_literal",
        files: &[("a", b"x\n")],
        query: || Query::literal(""),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { .. }),
    },
    ErrorCase {
        name: "empty_literal_in_a_set",
        files: &[("a", b"x\n")],
        query: || Query::literals(["x", ""]),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { .. }),
    },
    ErrorCase {
        name: "no_literal_at_all",
        files: &[("a", b"x\n")],
        query: || Query::literals(Vec::<String>::new()),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { .. }),
    },
    ErrorCase {
        name: "literal_with_a_newline",
        files: &[("a", b"x\n")],
        query: || Query::literal("x\ny"),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { pattern, .. } if pattern == "x\ny"),
    },
    ErrorCase {
        name: "regex_of_a_newline",
        files: &[("a", b"x\n")],
        query: || Query::regex(r"\n"),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { pattern, .. } if pattern == r"\n"),
    },
    ErrorCase {
        name: "regex_with_a_newline_inside",
        files: &[("a", b"x\n")],
        query: || Query::regex(r"x\ny"),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { .. }),
    },
    ErrorCase {
        name: "regex_class_of_only_a_newline",
        files: &[("a", b"x\n")],
        query: || Query::regex(r"[\n]"),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { .. }),
    },
    ErrorCase {
        name: "invalid_regex",
        files: &[("a", b"x\n")],
        query: || Query::regex("(unclosed"),
        expect: |k| {
            matches!(k, ErrorKind::InvalidPattern { pattern, reason }
                if pattern == "(unclosed" && !reason.is_empty() && !reason.contains('\n'))
        },
    },
    ErrorCase {
        name: "invalid_regex_with_whole_word",
        files: &[("a", b"x\n")],
        query: || Query::regex("a{2,1}").whole_word(true),
        expect: |k| matches!(k, ErrorKind::InvalidPattern { pattern, .. } if pattern == "a{2,1}"),
    },
    ErrorCase {
        name: "path_above_the_root",
        files: &[("a", b"x\n")],
        query: || Query::literal("x").paths(["../x"]),
        expect: |k| matches!(k, ErrorKind::OutsideRoot { path } if path == "../x"),
    },
    ErrorCase {
        name: "path_climbing_out_through_a_folder",
        files: &[("src/a", b"x\n")],
        query: || Query::literal("x").paths(["src/../../x"]),
        expect: |k| matches!(k, ErrorKind::OutsideRoot { .. }),
    },
    ErrorCase {
        name: "absolute_path_elsewhere",
        files: &[("a", b"x\n")],
        query: || Query::literal("x").paths(["/etc"]),
        expect: |k| matches!(k, ErrorKind::OutsideRoot { path } if path == "/etc"),
    },
    ErrorCase {
        name: "path_not_in_the_corpus",
        files: &[("a", b"x\n")],
        query: || Query::literal("x").paths(["nope"]),
        expect: |k| matches!(k, ErrorKind::NotFound { path } if path == "nope"),
    },
    ErrorCase {
        name: "one_bad_path_among_good_ones",
        files: &[("a", b"x\n")],
        query: || Query::literal("x").paths(["a", "../a"]),
        expect: |k| matches!(k, ErrorKind::OutsideRoot { .. }),
    },
];

#[test]
fn refused_queries_on_both_corpora() {
    for case in ERROR_CASES {
        let both = Both::new(case.files);
        let query = (case.query)();
        for (corpus, c) in both.all() {
            let at = format!("{} on {corpus}", case.name);
            let err = c
                .search(&query, &Limits::new(), None)
                .expect_err(&format!("{at}: accepted"));
            assert!((case.expect)(err.kind()), "{at}: {}", kind_name(err.kind()));
            let message = err.to_string();
            assert!(
                !message.ends_with('.') && message.starts_with(|ch: char| ch.is_lowercase()),
                "{at}: message style: {message}"
            );
            // Every query function refuses it the same way.
            let count = c.count(&query, &Limits::new(), None).expect_err(&at);
            assert_eq!(
                kind_name(count.kind()),
                kind_name(err.kind()),
                "{at}: count"
            );
            let files = c
                .files_with_matches(&query, &Limits::new(), None)
                .expect_err(&at);
            assert_eq!(
                kind_name(files.kind()),
                kind_name(err.kind()),
                "{at}: files"
            );
            let each = c
                .search_each(&query, &Limits::new(), None, &mut |_| {
                    panic!("{at}: a refused query streamed")
                })
                .expect_err(&at);
            assert_eq!(kind_name(each.kind()), kind_name(err.kind()), "{at}: each");
        }
    }
}

// ---------------------------------------------------------------------------
// Table: excerpts, on both corpora

/// (line_number, byte_offset, line, line_cut as (original, kept_from))
type LineRow<S> = (u64, u64, S, Option<(u64, u64)>);

enum ExcerptWant {
    Lines(&'static [LineRow<&'static str>]),
    Error(fn(&ErrorKind) -> bool),
}

struct ExcerptCase {
    name: &'static str,
    files: Files,
    excerpt: fn() -> Excerpt,
    want: ExcerptWant,
}

const FIVE: Files = &[("f.txt", b"one\ntwo\r\nthree\nfour\nfive")];

const EXCERPT_CASES: &[ExcerptCase] = &[
    ExcerptCase {
        name: "excerpt_middle_lines_without_cr",
        files: FIVE,
        excerpt: || Excerpt::new("f.txt", 2..=3),
        want: ExcerptWant::Lines(&[(2, 4, "two", None), (3, 9, "three", None)]),
    },
    ExcerptCase {
        name: "excerpt_one_line",
        files: FIVE,
        excerpt: || Excerpt::new("f.txt", 5..=5),
        want: ExcerptWant::Lines(&[(5, 20, "five", None)]),
    },
    ExcerptCase {
        name: "excerpt_past_the_end_stops_at_the_end",
        files: FIVE,
        excerpt: || Excerpt::new("f.txt", 4..=400),
        want: ExcerptWant::Lines(&[(4, 15, "four", None), (5, 20, "five", None)]),
    },
    ExcerptCase {
        name: "excerpt_wholly_past_the_end_is_empty",
        files: FIVE,
        excerpt: || Excerpt::new("f.txt", 6..=9),
        want: ExcerptWant::Lines(&[]),
    },
    ExcerptCase {
        name: "excerpt_of_an_empty_file",
        files: &[("e", b"")],
        excerpt: || Excerpt::new("e", 1..=3),
        want: ExcerptWant::Lines(&[]),
    },
    ExcerptCase {
        name: "excerpt_cuts_long_lines",
        files: &[("l.txt", b"short\n0123456789abcdef\r\n")],
        excerpt: || Excerpt::new("l.txt", 1..=2).max_columns(8),
        want: ExcerptWant::Lines(&[(1, 0, "short", None), (2, 6, "01234567", Some((16, 0)))]),
    },
    ExcerptCase {
        name: "excerpt_cut_keeps_whole_characters",
        files: &[("u.txt", "ééééé\n".as_bytes())],
        excerpt: || Excerpt::new("u.txt", 1..=1).max_columns(5),
        want: ExcerptWant::Lines(&[(1, 0, "éé", Some((10, 0)))]),
    },
    ExcerptCase {
        name: "excerpt_line_zero",
        files: FIVE,
        excerpt: || Excerpt::new("f.txt", 0..=2),
        want: ExcerptWant::Error(|k| matches!(k, ErrorKind::InvalidArgument { name: "lines", .. })),
    },
    ExcerptCase {
        name: "excerpt_reversed_range",
        files: FIVE,
        excerpt: || {
            let (first, last) = (3, 2);
            Excerpt::new("f.txt", first..=last)
        },
        want: ExcerptWant::Error(|k| matches!(k, ErrorKind::InvalidArgument { name: "lines", .. })),
    },
    ExcerptCase {
        name: "excerpt_of_a_folder",
        files: &[("d/f", b"x\n")],
        excerpt: || Excerpt::new("d", 1..=1),
        want: ExcerptWant::Error(|k| matches!(k, ErrorKind::NotFound { .. })),
    },
    ExcerptCase {
        name: "excerpt_of_a_missing_file",
        files: FIVE,
        excerpt: || Excerpt::new("g.txt", 1..=1),
        want: ExcerptWant::Error(|k| matches!(k, ErrorKind::NotFound { .. })),
    },
    ExcerptCase {
        name: "excerpt_above_the_root",
        files: FIVE,
        excerpt: || Excerpt::new("../f.txt", 1..=1),
        want: ExcerptWant::Error(|k| matches!(k, ErrorKind::OutsideRoot { .. })),
    },
];

#[test]
fn excerpt_cases_on_both_corpora() {
    for case in EXCERPT_CASES {
        let both = Both::new(case.files);
        let excerpt = (case.excerpt)();
        for (corpus, c) in both.all() {
            let at = format!("{} on {corpus}", case.name);
            let result = c.excerpt(&excerpt, &Limits::new(), None);
            match (&case.want, result) {
                (ExcerptWant::Lines(lines), Ok(b)) => {
                    let got: Vec<LineRow<String>> = b
                        .iter()
                        .map(|l| {
                            (
                                l.line_number,
                                l.byte_offset,
                                l.line.clone(),
                                l.line_cut.map(|c| (c.original_bytes, c.kept_from)),
                            )
                        })
                        .collect();
                    let want: Vec<LineRow<String>> = lines
                        .iter()
                        .map(|&(n, o, l, c)| (n, o, l.to_owned(), c))
                        .collect();
                    assert_eq!(got, want, "{at}");
                    assert!(b.is_complete(), "{at}");
                }
                (ExcerptWant::Error(expect), Err(e)) => {
                    assert!(expect(e.kind()), "{at}: {}", kind_name(e.kind()));
                }
                (_, other) => panic!("{at}: unexpected {other:?}"),
            }
        }
    }
}

#[test]
fn case_names_are_unique() {
    let mut seen = BTreeSet::new();
    let names = CASES
        .iter()
        .map(|c| c.name)
        .chain(ERROR_CASES.iter().map(|c| c.name))
        .chain(EXCERPT_CASES.iter().map(|c| c.name));
    for name in names {
        assert!(seen.insert(name), "duplicate case name {name:?}");
    }
}

// ---------------------------------------------------------------------------
// Excerpts: paging, binary files, foreign cursors

#[test]
fn excerpt_pages_rebuild_the_range() {
    let text: String = (1..=23).map(|n| format!("line {n}\n")).collect();
    let files: &[(&str, &[u8])] = &[("t.txt", text.as_bytes())];
    let both = Both::new(files);
    let excerpt = Excerpt::new("t.txt", 3..=20);
    for (corpus, c) in both.all() {
        let mut got = Vec::new();
        let mut cursor: Option<Cursor> = None;
        let mut pages = 0;
        loop {
            pages += 1;
            let b = c
                .excerpt(&excerpt, &Limits::new().limit(4), cursor.as_ref())
                .expect(corpus);
            got.extend(b.iter().map(|l| l.line.clone()));
            match b.next_cursor() {
                Some(next) => {
                    assert!(b.completeness().is_truncated_by_limit(), "{corpus}");
                    cursor = Some(next.clone());
                }
                None => {
                    assert!(b.is_complete(), "{corpus}");
                    break;
                }
            }
        }
        let want: Vec<String> = (3..=20).map(|n| format!("line {n}")).collect();
        assert_eq!(got, want, "{corpus}");
        assert_eq!(pages, 5, "{corpus}: 18 lines in pages of 4");
        // A cursor of this excerpt does not fit another one.
        let first = c
            .excerpt(&excerpt, &Limits::new().limit(4), None)
            .expect(corpus);
        let other = Excerpt::new("t.txt", 3..=21);
        let err = c
            .excerpt(&other, &Limits::new(), first.next_cursor())
            .expect_err(corpus);
        assert!(
            matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
            "{corpus}: {err}"
        );
    }
}

#[test]
fn excerpt_of_a_binary_file_is_skipped() {
    let both = Both::new(&[("b.bin", b"x\n\x00\n")]);
    for (corpus, c) in both.all() {
        let b = c
            .excerpt(&Excerpt::new("b.bin", 1..=2), &Limits::new(), None)
            .expect(corpus);
        assert!(b.is_empty(), "{corpus}");
        assert_eq!(b.skipped().count(&SkipReason::Binary), 1, "{corpus}");
    }
}

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
    assert!(first.is_truncated());
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
    let n = t.count(&query, &Limits::new(), None).unwrap();
    assert_eq!(n.skipped().count(&SkipReason::Binary), 2);
    let f = t.files_with_matches(&query, &Limits::new(), None).unwrap();
    assert_eq!(f.skipped().count(&SkipReason::Binary), 2);
    let found = t
        .find_in_file("a.png", &query, &Limits::new(), None)
        .unwrap();
    assert!(found.is_empty());
    assert_eq!(found.skipped().count(&SkipReason::Binary), 1);
    let json = b.to_json().unwrap();
    assert!(json.contains(r#""binary":2"#), "{json}");
}

#[test]
fn a_nul_anywhere_makes_a_file_binary_however_it_is_read() {
    // Reads come in blocks: the NUL may sit in the first block, just past
    // it, or near the end of a large file, and the verdict is the same.
    let text = |n: usize| b"needle\n".repeat(n / 7 + 1);
    let at = |mut bytes: Vec<u8>, pos: usize| {
        bytes[pos] = 0;
        bytes
    };
    let files: Vec<(String, Vec<u8>)> = vec![
        ("first.txt".into(), at(text(100), 3)),
        ("second.txt".into(), at(text(200_000), 64 * 1024 + 1)),
        ("last.txt".into(), at(text(1_000_000), 999_999)),
        ("clean.txt".into(), text(300_000)),
    ];
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let dir = write_files(&borrowed);
    for threads in [1, 2, 4] {
        let t = tree(&dir)
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let b = t
            .files_with_matches(&Query::literal("needle"), &Limits::new(), None)
            .unwrap();
        let found: Vec<&str> = b.iter().map(String::as_str).collect();
        assert_eq!(found, ["clean.txt"], "threads {threads}");
        assert_eq!(
            b.skipped().count(&SkipReason::Binary),
            3,
            "threads {threads}"
        );
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

#[cfg(unix)]
mod links {
    use std::os::unix::fs::symlink;

    use super::*;

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
                let skipped: BTreeSet<&str> =
                    b.skipped().sample().iter().map(|s| s.path()).collect();
                assert_eq!(skipped, BTreeSet::from(["leak.txt", "out"]));
                assert!(b.is_complete(), "leaving out a link is policy");
            }
        }
        assert!(l.outside.path().join("secret.txt").exists());
    }

    #[test]
    fn paths_through_links_out_of_the_root_are_refused() {
        let l = linked();
        for follow in [false, true] {
            let t = tree(&l.root).follow_links(follow);
            let refused = |err: &candor::Error| {
                if follow {
                    matches!(err.kind(), ErrorKind::OutsideRoot { .. })
                } else {
                    matches!(err.kind(), ErrorKind::InvalidArgument { .. })
                        && err.to_string().contains("symbolic link")
                }
            };
            for path in ["leak.txt", "out", "out/s.txt", "a/../out"] {
                let q = Query::literal("needle").paths([path]);
                let err = t.search(&q, &Limits::new(), None).unwrap_err();
                assert!(refused(&err), "{path}: {err}");
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
            let inside = t.root().join("z.txt");
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
}

// ---------------------------------------------------------------------------
// find_in_file

#[test]
fn find_in_file_refuses_folders_and_missing_files() {
    let both = Both::new(&[("d/a.txt", b"x\n"), ("b.txt", b"x\n")]);
    for (corpus, c) in both.all() {
        for path in ["d", "missing.txt", "d/missing.txt", ""] {
            let err = c
                .find_in_file(path, &Query::literal("x"), &Limits::new(), None)
                .unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::NotFound { .. }),
                "{corpus}: {path:?}: {err}"
            );
        }
        let err = c
            .find_in_file("../b.txt", &Query::literal("x"), &Limits::new(), None)
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::OutsideRoot { .. }),
            "{corpus}: {err}"
        );
        let found = c
            .find_in_file("./d//a.txt", &Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(paths_of(&found), ["d/a.txt"], "{corpus}");
    }
}

#[test]
fn find_in_file_pages_stay_in_the_file() {
    let text: String = (0..9).map(|n| format!("x {n}\n")).collect();
    let files: &[(&str, &[u8])] = &[
        ("a.txt", b"x\n"),
        ("b.txt", text.as_bytes()),
        ("c.txt", b"x\n"),
    ];
    let both = Both::new(files);
    for (corpus, c) in both.all() {
        let mut lines = Vec::new();
        let mut cursor: Option<Cursor> = None;
        loop {
            let b = c
                .find_in_file(
                    "b.txt",
                    &Query::literal("x"),
                    &Limits::new().limit(4),
                    cursor.as_ref(),
                )
                .unwrap();
            assert!(b.iter().all(|m| m.path == "b.txt"), "{corpus}");
            lines.extend(b.iter().map(|m| m.line_number));
            match b.next_cursor() {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        assert_eq!(lines, (1..=9).collect::<Vec<u64>>(), "{corpus}");
        // Its cursors belong to find_in_file, not to search.
        let page = c
            .find_in_file("b.txt", &Query::literal("x"), &Limits::new().limit(1), None)
            .unwrap();
        let err = c
            .search(&Query::literal("x"), &Limits::new(), page.next_cursor())
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
            "{corpus}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------
// Cursors

#[test]
fn cursors_are_bound_to_their_query_and_corpus() {
    let files: &[(&str, &[u8])] = &[("a.txt", b"x y\nx y\n"), ("b.txt", b"x y\n")];
    let both = Both::new(files);
    let other_dir = write_files(files);
    let other_tree = tree(&other_dir);
    let x = Query::literal("x");
    for (corpus, c) in both.all() {
        let page = c.search(&x, &Limits::new().limit(1), None).unwrap();
        let cursor = page.next_cursor().expect("more to come");
        let foreign = |r: Result<Bounded<Match>, candor::Error>, what: &str| {
            let err = r.expect_err(what);
            assert!(
                matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
                "{corpus}: {what}: {err}"
            );
        };
        foreign(
            c.search(&Query::literal("y"), &Limits::new(), Some(cursor)),
            "another pattern",
        );
        foreign(
            c.search(&Query::regex("x"), &Limits::new(), Some(cursor)),
            "another kind",
        );
        foreign(
            c.search(
                &x.clone().case_insensitive(true),
                &Limits::new(),
                Some(cursor),
            ),
            "another option",
        );
        foreign(
            c.search(&x.clone().paths(["a.txt"]), &Limits::new(), Some(cursor)),
            "another path filter",
        );
        foreign(
            other_tree.search(&x, &Limits::new(), Some(cursor)),
            "another corpus",
        );
        let err = c.count(&x, &Limits::new(), Some(cursor)).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
            "{corpus}: count: {err}"
        );
        // Limits are not part of the query: any limit resumes.
        let rest = c.search(&x, &Limits::new().limit(7), Some(cursor)).unwrap();
        assert_eq!(rest.len(), 2, "{corpus}");
        // A token that round-trips through text resumes the same.
        let parsed = Cursor::parse(cursor.as_str()).unwrap();
        let again = c
            .search(&x, &Limits::new().limit(7), Some(&parsed))
            .unwrap();
        assert_eq!(rest, again, "{corpus}");
    }
}

#[test]
fn altered_tokens_are_refused() {
    let both = Both::new(&[("a.txt", b"x\nx\n")]);
    let page = both
        .tree1
        .search(&Query::literal("x"), &Limits::new().limit(1), None)
        .unwrap();
    let token = page.next_cursor().unwrap().as_str().to_owned();
    let mut altered = Vec::new();
    for i in 0..token.len() {
        let mut bytes = token.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        altered.push(String::from_utf8(bytes).unwrap());
    }
    altered.push(token[..token.len() - 1].to_owned());
    altered.push(format!("{token}A"));
    altered.push(String::new());
    altered.push("not a token!".to_owned());
    altered.push("A".repeat(10_000));
    for bad in altered {
        let err = Cursor::parse(&bad).expect_err(&bad);
        assert!(
            matches!(
                err.kind(),
                ErrorKind::TamperedCursor | ErrorKind::MalformedCursor { .. }
            ),
            "{bad}: {err}"
        );
    }
}

#[test]
fn a_cursor_to_a_vanished_or_shrunk_file_is_refused() {
    let dir = write_files(&[("a.txt", b"x\nx\nx\n"), ("b.txt", b"x\n")]);
    let t = tree(&dir);
    let q = Query::literal("x");
    let first = t.search(&q, &Limits::new().limit(1), None).unwrap();
    let cursor = first.next_cursor().unwrap().clone();
    // Shrunk so that the offset is no longer a line start.
    std::fs::write(dir.path().join("a.txt"), b"xxx").unwrap();
    let err = t.search(&q, &Limits::new(), Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    // Gone.
    std::fs::remove_file(dir.path().join("a.txt")).unwrap();
    let err = t.search(&q, &Limits::new(), Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
    // Replaced by a folder.
    std::fs::create_dir(dir.path().join("a.txt")).unwrap();
    let err = t.search(&q, &Limits::new(), Some(&cursor)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }), "{err}");
}

#[test]
fn documents_cursors_notice_changes() {
    let q = Query::literal("x");
    let v1 = Documents::new().with("a.txt", "x\nx\n").generation(1);
    let page = v1.search(&q, &Limits::new().limit(1), None).unwrap();
    let cursor = page.next_cursor().unwrap();
    let v2 = Documents::new().with("a.txt", "x\nx\n").generation(2);
    let err = v2.search(&q, &Limits::new(), Some(cursor)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::StaleCursor {
                cursor_generation: 1,
                current_generation: 2
            }
        ),
        "{err}"
    );
    // Without generations, a changed size makes the cursor foreign.
    let before = Documents::new().with("a.txt", "x\nx\n");
    let page = before.search(&q, &Limits::new().limit(1), None).unwrap();
    let after = Documents::new().with("a.txt", "x\nx\nx\n");
    let err = after
        .search(&q, &Limits::new(), page.next_cursor())
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
        "{err}"
    );
}

// ---------------------------------------------------------------------------
// Column cuts

fn check_cut(m: &Match, original: &[u8], needle: &str, max_columns: usize) {
    let cut = m.line_cut.expect("the line is cut");
    assert!(m.is_cut());
    assert_eq!(cut.original_bytes, original.len() as u64);
    assert!(m.line.len() <= max_columns, "kept {} bytes", m.line.len());
    assert!(
        !m.line.contains('\u{FFFD}'),
        "a character was split: {:?}",
        m.line
    );
    let from = cut.kept_from as usize;
    assert_eq!(m.line.as_bytes(), &original[from..from + m.line.len()]);
    assert!(!m.matches.is_empty(), "the first match is kept");
    for s in &m.matches {
        assert_eq!(&m.line[s.start..s.end], needle, "{m:?}");
    }
}

#[test]
fn long_lines_are_cut_around_the_first_match() {
    let ascii = format!("{}needle{}\n", "x".repeat(5000), "y".repeat(5000));
    let wide = format!("{}needle{}\r\n", "é".repeat(3000), "€".repeat(3000));
    let start = format!("needle{}needle\n", "z".repeat(500));
    let end = format!("{}needle\n", "é".repeat(500));
    let files: Vec<(&str, &[u8])> = vec![
        ("1-ascii", ascii.as_bytes()),
        ("2-wide", wide.as_bytes()),
        ("3-start", start.as_bytes()),
        ("4-end", end.as_bytes()),
        ("5-short", b"needle\n"),
    ];
    let both = Both::new(&files);
    // Windows that stay on character boundaries where the line is wide:
    // others can lose the end of the match (see the ignored
    // `a_match_that_fits_the_columns_is_kept_whole` at the end).
    for max in [18, 80, 100] {
        let q = Query::literal("needle").max_columns(max);
        for (corpus, c) in both.all() {
            let b = c.search(&q, &Limits::new(), None).unwrap();
            assert_eq!(b.len(), 5, "{corpus}");
            for (m, (_, text)) in b.iter().zip(&files) {
                let line = text.strip_suffix(b"\n").unwrap();
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.len() <= max {
                    assert!(m.line_cut.is_none());
                    assert_eq!(m.line.as_bytes(), line);
                } else {
                    check_cut(m, line, "needle", max);
                }
            }
            let m = &b.items()[2];
            assert_eq!(m.line_cut.unwrap().kept_from, 0, "{corpus}: at the start");
            let m = &b.items()[3];
            let cut = m.line_cut.unwrap();
            assert_eq!(
                cut.kept_from as usize + m.line.len(),
                cut.original_bytes as usize,
                "{corpus}: at the end"
            );
        }
    }
}

#[test]
fn a_cut_shorter_than_the_match_stays_in_bounds() {
    let text = format!("{}needle{}\n", "a".repeat(50), "b".repeat(50));
    let both = Both::new(&[("l.txt", text.as_bytes())]);
    for max in [0, 1, 3, 5] {
        let q = Query::literal("needle").max_columns(max);
        for (corpus, c) in both.all() {
            let b = c.search(&q, &Limits::new(), None).unwrap();
            let m = &b.items()[0];
            assert!(m.is_cut(), "{corpus}");
            assert!(m.line.len() <= max, "{corpus}: {max}");
            for s in &m.matches {
                assert!(s.start <= s.end && s.end <= m.line.len(), "{corpus}: {s:?}");
                assert!("needle".contains(&m.line[s.start..s.end]), "{corpus}");
            }
            let json = b.to_json().unwrap();
            assert!(
                json.contains(r#""line_cut":{"original_bytes":106"#),
                "{json}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// The item limit

#[test]
fn limit_zero_returns_nothing_but_says_whether_anything_exists() {
    let both = Both::new(&[("a.txt", b"x\n"), ("b.txt", b"y\n")]);
    for (corpus, c) in both.all() {
        let some = c
            .search(&Query::literal("x"), &Limits::new().limit(0), None)
            .unwrap();
        assert!(some.is_empty(), "{corpus}");
        assert_eq!(
            some.completeness(),
            &Completeness::TruncatedByLimit {
                limit: 0,
                requested: None
            },
            "{corpus}"
        );
        assert_eq!(some.total(), Total::AtLeast(1), "{corpus}");
        let none = c
            .search(&Query::literal("z"), &Limits::new().limit(0), None)
            .unwrap();
        assert!(none.is_complete(), "{corpus}");
        assert_eq!(none.total(), Total::Exact(0), "{corpus}");
        let counted = c
            .search(
                &Query::regex("x|y"),
                &Limits::new().limit(0).count_total(true),
                None,
            )
            .unwrap();
        assert_eq!(counted.total(), Total::Exact(2), "{corpus}");
    }
}

#[test]
fn exactly_limit_items_is_not_truncated() {
    let both = Both::new(&[("a.txt", b"x\nx\n"), ("b.txt", b"x\n")]);
    for (corpus, c) in both.all() {
        let b = c
            .search(&Query::literal("x"), &Limits::new().limit(3), None)
            .unwrap();
        assert!(b.is_complete(), "{corpus}: {:?}", b.completeness());
        assert!(b.next_cursor().is_none(), "{corpus}");
        let b = c
            .search(&Query::literal("x"), &Limits::new().limit(2), None)
            .unwrap();
        assert_eq!(b.total(), Total::AtLeast(3), "{corpus}");
    }
}

#[test]
fn the_ceiling_clamps_and_says_so() {
    let both = Both::new(&[("a.txt", b"x\nx\nx\nx\n")]);
    for (corpus, c) in both.all() {
        let b = c
            .search(
                &Query::literal("x"),
                &Limits::new().ceiling(2).limit(10),
                None,
            )
            .unwrap();
        assert_eq!(b.len(), 2, "{corpus}");
        assert_eq!(
            b.completeness(),
            &Completeness::TruncatedByLimit {
                limit: 2,
                requested: Some(10)
            },
            "{corpus}"
        );
        let json = b.to_json().unwrap();
        assert!(json.contains(r#""requested":10"#), "{json}");
    }
}

#[test]
fn strict_mode_errs_with_the_partial_result() {
    let both = Both::new(&[("a.txt", b"x\nx\nx\n")]);
    for (corpus, c) in both.all() {
        let err = c
            .search(
                &Query::literal("x"),
                &Limits::new().limit(2).strict(true),
                None,
            )
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Incomplete { .. }),
            "{corpus}"
        );
        let partial = err.into_partial::<Match>().unwrap();
        assert_eq!(partial.len(), 2, "{corpus}");
        let ok = c
            .search(&Query::literal("x"), &Limits::new().strict(true), None)
            .unwrap();
        assert_eq!(ok.len(), 3, "{corpus}");
    }
}

// ---------------------------------------------------------------------------
// Work budgets and the deadline

/// Ten files of 100 bytes; `hits` says which hold a matching line.
fn budget_files(hits: &[usize]) -> Vec<(String, Vec<u8>)> {
    (0..10)
        .map(|i| {
            let mut text = if hits.contains(&i) {
                b"needle\n".to_vec()
            } else {
                b"nothing\n".to_vec()
            };
            text.resize(99, b'.');
            text.push(b'\n');
            (format!("f{i:02}.txt"), text)
        })
        .collect()
}

fn both_of(files: &[(String, Vec<u8>)]) -> Both {
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    Both::new(&refs)
}

#[test]
fn scanned_bytes_budget_stops_and_paging_finishes() {
    let all: Vec<usize> = (0..10).collect();
    let files = budget_files(&all);
    let both = both_of(&files);
    let q = Query::literal("needle");
    for (corpus, c) in both.all() {
        let limits = Limits::new().max_scanned_bytes(250);
        let b = c.search(&q, &limits, None).unwrap();
        let budget = b.completeness().budget().expect("a budget stop");
        assert_eq!(budget.kind(), BudgetKind::ScannedBytes, "{corpus}");
        assert_eq!(budget.max(), 250, "{corpus}");
        assert!(budget.used() >= 250, "{corpus}");
        assert_eq!(b.len(), 3, "{corpus}: three files of 100 bytes reach 250");
        assert_eq!(b.total(), Total::AtLeast(3), "{corpus}");
        assert!(b.next_cursor().is_some(), "{corpus}");
        let json = b.to_json().unwrap();
        assert!(json.contains(r#""budget":"scanned_bytes""#), "{json}");
        let (items, pages) = all_pages(c, &q, &limits);
        assert_eq!(items.len(), 10, "{corpus}");
        assert!(pages >= 4, "{corpus}: {pages} pages");
        let names: Vec<&str> = items.iter().map(|m| m.path.as_str()).collect();
        let want: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, want, "{corpus}");
    }
}

#[test]
fn files_budget_stops_and_paging_finishes() {
    let files = budget_files(&[0, 4, 5, 9]);
    let both = both_of(&files);
    let q = Query::literal("needle");
    for (corpus, c) in both.all() {
        let limits = Limits::new().max_files(2);
        let b = c.search(&q, &limits, None).unwrap();
        let budget = b.completeness().budget().expect("a budget stop");
        assert_eq!(budget.kind(), BudgetKind::Files, "{corpus}");
        assert_eq!((budget.max(), budget.used()), (2, 2), "{corpus}");
        assert_eq!(paths_of(&b), ["f00.txt"], "{corpus}");
        let (items, _) = all_pages(c, &q, &limits);
        let names: Vec<&str> = items.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            names,
            ["f00.txt", "f04.txt", "f05.txt", "f09.txt"],
            "{corpus}"
        );
    }
}

#[test]
fn a_budget_page_without_items_still_advances() {
    let files = budget_files(&[9]);
    let both = both_of(&files);
    let q = Query::literal("needle");
    for (corpus, c) in both.all() {
        let limits = Limits::new().max_files(3);
        let b = c.search(&q, &limits, None).unwrap();
        assert!(b.is_empty(), "{corpus}");
        assert!(b.completeness().is_truncated_by_budget(), "{corpus}");
        assert_eq!(b.total(), Total::AtLeast(0), "{corpus}");
        assert!(
            b.next_cursor().is_some(),
            "{corpus}: nothing found yet, but the scan moved on"
        );
        let (items, pages) = all_pages(c, &q, &limits);
        assert_eq!(paths_of_items(&items), ["f09.txt"], "{corpus}");
        assert_eq!(pages, 4, "{corpus}: 3 + 3 + 3 + 1 files");
        // The same with count() and files_with_matches().
        let n = c.count(&q, &limits, None).unwrap();
        assert!(n.completeness().is_truncated_by_budget(), "{corpus}");
        assert!(n.next_cursor().is_some(), "{corpus}");
    }
}

fn paths_of_items(items: &[Match]) -> Vec<&str> {
    items.iter().map(|m| m.path.as_str()).collect()
}

#[test]
fn a_deadline_stops_with_the_deadline_budget() {
    let all: Vec<usize> = (0..10).collect();
    let files = budget_files(&all);
    let both = both_of(&files);
    let q = Query::literal("needle");
    for (corpus, c) in both.all() {
        // Every reading of the clock moves it 10 ms on.
        let clock = ManualClock::new().auto_advance(Duration::from_millis(10));
        let limits = Limits::new()
            .deadline(Duration::from_millis(35))
            .clock(clock);
        let b = c.search(&q, &limits, None).unwrap();
        let budget = b.completeness().budget().expect("a budget stop");
        assert_eq!(budget.kind(), BudgetKind::Deadline, "{corpus}");
        assert_eq!(budget.max(), 35, "{corpus}");
        assert!(!b.is_empty() && b.len() < 10, "{corpus}: {} items", b.len());
        assert!(b.next_cursor().is_some(), "{corpus}");
        let json = b.to_json().unwrap();
        assert!(json.contains(r#""budget":"deadline""#), "{json}");
        let (items, _) = all_pages(c, &q, &limits);
        assert_eq!(items.len(), 10, "{corpus}");
    }
}

#[test]
fn a_deadline_already_past_still_does_one_file() {
    let all: Vec<usize> = (0..10).collect();
    let files = budget_files(&all);
    let both = both_of(&files);
    let q = Query::literal("needle");
    for (corpus, c) in both.all() {
        let clock = ManualClock::new().auto_advance(Duration::from_secs(60));
        let limits = Limits::new().deadline(Duration::from_secs(1)).clock(clock);
        let (items, pages) = all_pages(c, &q, &limits);
        assert_eq!(items.len(), 10, "{corpus}");
        // One file per page at least (the rest of a file after its last
        // item counts as one).
        assert!(pages <= 21, "{corpus}: {pages} pages");
    }
}

// ---------------------------------------------------------------------------
// Determinism and scale

/// A few hundred files in nested folders whose names sort differently as
/// strings and as paths.
fn many_files(n: usize) -> Vec<(String, Vec<u8>)> {
    let dirs = ["a", "a-b", "a.c", "a/b", "a/b-c", "b", "B", "a/b/c"];
    (0..n)
        .map(|i| {
            let dir = dirs[i % dirs.len()];
            let name = format!(
                "{dir}/f{:04}{}",
                (i * 7919) % n,
                if i % 3 == 0 { ".rs" } else { "" }
            );
            let mut text = Vec::new();
            for line in 0..(i % 5) {
                if (i + line) % 4 == 0 {
                    text.extend_from_slice(format!("needle {i} {line}\n").as_bytes());
                } else {
                    text.extend_from_slice(b"hay\r\n");
                }
            }
            if i % 97 == 0 {
                text.push(0);
            }
            (name, text)
        })
        .collect()
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let files = many_files(400);
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let dir = write_files(&refs);
    let docs = documents(&refs);
    let q = Query::literal("needle");
    let limit_sets = [
        Limits::new(),
        Limits::new().limit(37),
        Limits::new().limit(37).count_total(true),
        Limits::new().limit(1),
        Limits::new().max_bytes(4000),
        Limits::new().max_files(50),
    ];
    for limits in &limit_sets {
        let want = docs.search(&q, limits, None).unwrap();
        let want_counts = docs.count(&q, limits, None).unwrap();
        let mut first: Option<Bounded<Match>> = None;
        for threads in [1, 2, 8] {
            for _run in 0..3 {
                let t = Tree::new(dir.path())
                    .unwrap()
                    .threads(threads)
                    .start_threads_after(Duration::ZERO);
                let b = t.search(&q, limits, None).unwrap();
                assert_eq!(b.items(), want.items(), "{threads} threads, {limits:?}");
                assert_eq!(b.completeness(), want.completeness(), "{threads} threads");
                assert_eq!(b.total(), want.total(), "{threads} threads");
                assert_eq!(b.skipped(), want.skipped(), "{threads} threads");
                match &first {
                    Some(f) => assert_eq!(&b, f, "{threads} threads: cursor or skipped differ"),
                    None => first = Some(b),
                }
                let n = t.count(&q, limits, None).unwrap();
                assert_eq!(n.items(), want_counts.items(), "{threads} threads: count");
                assert_eq!(
                    n.completeness(),
                    want_counts.completeness(),
                    "{threads} threads"
                );
            }
        }
    }
    // The whole answer is in path order.
    let all = docs.search(&q, &Limits::new(), None).unwrap();
    let paths = paths_of(&all);
    assert!(paths.windows(2).all(|w| path_order(&w[0], &w[1]).is_le()));
    assert!(all.len() > 100);
}

#[test]
fn two_thousand_files_with_limit_ten_give_the_first_ten() {
    let files = many_files(2000);
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let dir = write_files(&refs);
    let q = Query::literal("needle");
    // The oracle: every matching line of every text file, in path order.
    let mut want: Vec<(String, u64)> = Vec::new();
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| path_order(&a.0, &b.0));
    for (name, text) in sorted {
        if text.contains(&0) {
            continue;
        }
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            if line.starts_with(b"needle") {
                want.push((name.clone(), i as u64 + 1));
            }
        }
    }
    assert!(want.len() > 10);
    for threads in [1, 8] {
        let t = Tree::new(dir.path())
            .unwrap()
            .threads(threads)
            .start_threads_after(Duration::ZERO);
        let b = t.search(&q, &Limits::new().limit(10), None).unwrap();
        let got: Vec<(String, u64)> = b.iter().map(|m| (m.path.clone(), m.line_number)).collect();
        assert_eq!(got, want[..10].to_vec(), "{threads} threads");
        assert_eq!(b.total(), Total::AtLeast(11));
        assert!(b.next_cursor().is_some());
        let counted = t
            .search(&q, &Limits::new().limit(10).count_total(true), None)
            .unwrap();
        assert_eq!(counted.total(), Total::Exact(want.len() as u64));
        let files = t
            .files_with_matches(&q, &Limits::new().limit(10), None)
            .unwrap();
        let mut want_files: Vec<&str> = want.iter().map(|(p, _)| p.as_str()).collect();
        want_files.dedup();
        assert_eq!(files.items(), &want_files[..10], "{threads} threads");
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

// ---------------------------------------------------------------------------
// Engine bugs, each a minimal reproduction on both corpora. Ignored until
// fixed; the expected behaviour is the contract's.

#[test]
fn resuming_after_a_last_line_without_newline() {
    let both = Both::new(&[("a.txt", b"x"), ("b.txt", b"x\n")]);
    for (corpus, c) in both.all() {
        let q = Query::literal("x");
        let first = c.search(&q, &Limits::new().limit(1), None).unwrap();
        assert_eq!(paths_of(&first), ["a.txt"]);
        let rest = c
            .search(&q, &Limits::new(), first.next_cursor())
            .unwrap_or_else(|e| panic!("{corpus}: {e}"));
        assert_eq!(paths_of(&rest), ["b.txt"], "{corpus}");
    }
}

#[test]
fn dollar_matches_a_last_line_without_newline() {
    let both = Both::new(&[("a.txt", b"x\ny")]);
    for (corpus, c) in both.all() {
        let b = c.search(&Query::regex("$"), &Limits::new(), None).unwrap();
        let lines: Vec<(u64, Vec<(usize, usize)>)> = b
            .iter()
            .map(|m| {
                (
                    m.line_number,
                    m.matches.iter().map(|s| (s.start, s.end)).collect(),
                )
            })
            .collect();
        assert_eq!(lines, [(1, vec![(1, 1)]), (2, vec![(1, 1)])], "{corpus}");
    }
}

#[test]
fn whole_word_next_to_invalid_utf8() {
    let both = Both::new(&[("a.txt", b"ab\xff \xffab\n")]);
    for (corpus, c) in both.all() {
        let b = c
            .search(&Query::literal("ab").whole_word(true), &Limits::new(), None)
            .unwrap();
        assert_eq!(b.len(), 1, "{corpus}");
        let spans: Vec<(usize, usize)> = b.items()[0]
            .matches
            .iter()
            .map(|s| (s.start, s.end))
            .collect();
        // "ab\u{FFFD} \u{FFFD}ab"
        assert_eq!(spans, [(0, 2), (9, 11)], "{corpus}");
    }
}

#[test]
fn empty_match_inside_invalid_utf8_stays_empty() {
    let both = Both::new(&[("a.txt", b"\xe2\x82\n")]);
    for (corpus, c) in both.all() {
        let b = c.search(&Query::regex("x?"), &Limits::new(), None).unwrap();
        let m = &b.items()[0];
        assert_eq!(m.line, "\u{FFFD}");
        assert!(
            m.matches.iter().all(|s| s.is_empty()),
            "{corpus}: {:?}",
            m.matches
        );
    }
}

#[test]
fn the_cr_of_a_crlf_ending_cannot_be_matched() {
    let queries = [
        Query::regex(r"\s"),
        Query::regex(r"a[^b]"),
        Query::regex("b*").whole_word(true),
        Query::literal("a\r"),
    ];
    let both = Both::new(&[("crlf.txt", b"a\r\n")]);
    for q in &queries {
        for (corpus, c) in both.all() {
            let b = c.search(q, &Limits::new(), None).unwrap();
            // As on "a\n": no match, or a match inside the line.
            for m in b.iter() {
                assert!(
                    !m.matches.is_empty(),
                    "{corpus}: {q:?}: a match with no spans: {m:?}"
                );
            }
            let lf = Documents::new().with("crlf.txt", "a\n");
            let want = lf.search(q, &Limits::new(), None).unwrap();
            assert_eq!(b.items(), want.items(), "{corpus}: {q:?}");
        }
    }
}

#[test]
fn a_lone_cr_is_an_ordinary_character() {
    let both = Both::new(&[("cr.txt", b"a\rb\n")]);
    for (corpus, c) in both.all() {
        let end = c.search(&Query::regex("a$"), &Limits::new(), None).unwrap();
        assert!(end.is_empty(), "{corpus}: `$` matched before a lone \\r");
        let start = c.search(&Query::regex("^b"), &Limits::new(), None).unwrap();
        assert!(start.is_empty(), "{corpus}: `^` matched after a lone \\r");
        let dot = c
            .search(&Query::regex("a.b"), &Limits::new(), None)
            .unwrap();
        assert_eq!(dot.len(), 1, "{corpus}: `.` did not match a lone \\r");
    }
}

#[test]
fn a_match_that_fits_the_columns_is_kept_whole() {
    // "é" is 2 bytes: the window [len - max, len) starts inside one, moves
    // back a byte, and then ends a byte before the line does.
    let text = format!("{}needle\n", "é".repeat(500));
    let both = Both::new(&[("w.txt", text.as_bytes())]);
    for max in [7, 19, 101] {
        for (corpus, c) in both.all() {
            let q = Query::literal("needle").max_columns(max);
            let b = c.search(&q, &Limits::new(), None).unwrap();
            let m = &b.items()[0];
            let spans: Vec<&str> = m.matches.iter().map(|s| &m.line[s.start..s.end]).collect();
            assert_eq!(
                spans,
                ["needle"],
                "{corpus}: max {max}: kept {:?} with {:?}",
                m.line,
                m.line_cut
            );
        }
    }
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

//! Table cases, each run on every corpus of the fixture (documents, and
//! the tree with 1, 2 and 4 threads): matching semantics, refused queries
//! and excerpts. Every case carries a unique `name` (checked below).

use std::collections::BTreeSet;

use candor_search::{Bounded, ErrorKind, Excerpt, Limits, Match, Query, SkipReason, Total};

use crate::fixture::Fixture;

// ---------------------------------------------------------------------------
// Helpers

type Files = &'static [(&'static str, &'static [u8])];

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

fn kind_name(kind: &ErrorKind) -> String {
    format!("{kind:?}")
}

// ---------------------------------------------------------------------------
// Table: matching semantics, on every corpus

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
        // Each byte of an invalid sequence matches `(?-u:.)`; the shown
        // line has one U+FFFD for both, and one span for it.
        name: "matches_inside_one_invalid_sequence_are_one_span",
        files: &[("i.txt", b"\xe6\x97x\n")],
        query: || Query::regex("(?-u:.)"),
        expect: &[("i.txt", 1, 0, "\u{FFFD}x", &[(0, 3), (3, 4)])],
        binary: 0,
    },
    Case {
        // `\B` next to invalid UTF-8 is decided by decoding the bytes
        // before it; a line that starts inside a character must not reach
        // into the line before (the `\n` there decodes).
        name: "a_word_boundary_at_a_line_start_inside_a_character",
        files: &[("w.txt", b"a\n\x98\n")],
        query: || Query::regex(r"\B"),
        expect: &[],
        binary: 0,
    },
    Case {
        // A match that ends before a lone continuation byte is a match.
        name: "a_match_before_a_lone_continuation_byte",
        files: &[("c.txt", b"a\x98A\n")],
        query: || Query::regex("a*"),
        expect: &[("c.txt", 1, 0, "a\u{FFFD}A", &[(0, 1), (4, 4), (5, 5)])],
        binary: 0,
    },
    Case {
        // A lone continuation byte is a character of its own: `^` before
        // it, at the start of its line, splits nothing.
        name: "a_line_start_before_a_lone_continuation_byte",
        files: &[("c.txt", b"abc\n\x80abc\n")],
        query: || Query::regex("^"),
        expect: &[
            ("c.txt", 1, 0, "abc", &[(0, 0)]),
            ("c.txt", 2, 4, "\u{FFFD}abc", &[(0, 0)]),
        ],
        binary: 0,
    },
    Case {
        // Empty matches between lone continuation bytes are kept; those
        // inside a character, valid or one invalid sequence, are not.
        name: "empty_matches_at_the_edges_of_lossy_characters",
        files: &[("c.txt", b"\x80\x80\n\xE2\x82\n\xC3\xA9\n")],
        query: || Query::regex(r"(?-u:\B)"),
        expect: &[
            ("c.txt", 1, 0, "\u{FFFD}\u{FFFD}", &[(0, 0), (3, 3), (6, 6)]),
            ("c.txt", 2, 3, "\u{FFFD}", &[(0, 0), (3, 3)]),
            ("c.txt", 3, 6, "é", &[(0, 0), (2, 2)]),
        ],
        binary: 0,
    },
    Case {
        // A column window ends before a character, and a lone
        // continuation byte is one: the window keeps what fits.
        name: "a_window_ends_before_a_lone_continuation_byte",
        files: &[("w.txt", b"b\x80xyz\nab\x80\x80\x80xyz\n")],
        query: || Query::regex("ab|^b").max_columns(4),
        expect: &[
            ("w.txt", 1, 0, "b\u{FFFD}xy", &[(0, 1)]),
            ("w.txt", 2, 6, "ab\u{FFFD}\u{FFFD}", &[(0, 2)]),
        ],
        binary: 0,
    },
    Case {
        // For whole words an invalid sequence is one non-word character:
        // no empty match lies inside it, to land after the `a` before it.
        name: "whole_words_see_an_invalid_sequence_as_one_character",
        files: &[("w.txt", b"a\xE2\x82b\n")],
        query: || Query::regex("a*").whole_word(true),
        expect: &[("w.txt", 1, 0, "a\u{FFFD}b", &[(0, 1)])],
        binary: 0,
    },
    Case {
        name: "no_whole_word_empty_match_inside_an_invalid_sequence",
        files: &[("w.txt", b"a\xE2\x82b\n")],
        query: || Query::regex("x?").whole_word(true),
        expect: &[],
        binary: 0,
    },
    Case {
        // An invalid byte matches no character class, only a byte class
        // (as the `regex` crate's bytes API matches it).
        name: "an_invalid_byte_matches_only_a_byte_class",
        files: &[("w.txt", b"a\xffb\n")],
        query: || Query::regex(r"a.b|a\Wb|(?-u:\xff)b"),
        expect: &[("w.txt", 1, 0, "a\u{FFFD}b", &[(1, 5)])],
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
        // A byte-order mark that starts a file is not text, as in ripgrep:
        // `^` matches after it, the line holds no U+FEFF, and the line's
        // offset is its true offset in the file.
        name: "a_byte_order_mark_at_the_start_is_not_text",
        files: &[
            ("b.txt", b"\xEF\xBB\xBFtest\ntest\n"),
            ("c.txt", b"\xEF\xBB\xBF\r\ntest"),
            // Its only match is on its first line.
            ("d.txt", b"\xEF\xBB\xBFtest\nno\n"),
        ],
        query: || Query::regex("^test|^$"),
        expect: &[
            ("b.txt", 1, 3, "test", &[(0, 4)]),
            ("b.txt", 2, 8, "test", &[(0, 4)]),
            ("c.txt", 1, 3, "", &[(0, 0)]),
            ("c.txt", 2, 5, "test", &[(0, 4)]),
            ("d.txt", 1, 3, "test", &[(0, 4)]),
        ],
        binary: 0,
    },
    Case {
        name: "a_byte_order_mark_at_the_start_is_not_matched",
        files: &[("b.txt", b"\xEF\xBB\xBFa\xEF\xBB\xBF\n")],
        query: || Query::literal("\u{FEFF}"),
        expect: &[("b.txt", 1, 3, "a\u{FEFF}", &[(1, 4)])],
        binary: 0,
    },
    Case {
        // Only the file's first bytes can be a mark that is not text.
        name: "a_byte_order_mark_past_the_start_is_text",
        files: &[
            ("m.txt", b"a\n\xEF\xBB\xBFtest\n"),
            ("n.txt", b" \xEF\xBB\xBFtest\n"),
        ],
        query: || Query::regex("^\u{FEFF}test"),
        expect: &[("m.txt", 2, 2, "\u{FEFF}test", &[(0, 7)])],
        binary: 0,
    },
    Case {
        // Nothing but a mark: no line at all, as for an empty file.
        name: "a_file_of_only_a_byte_order_mark_has_no_line",
        files: &[("o.txt", b"\xEF\xBB\xBF")],
        query: || Query::regex(""),
        expect: &[],
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
        let f = Fixture::new(case.files);
        let query = (case.query)();
        for (corpus, c) in f.all() {
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
            let counts = c
                .count_per_file(&query, &Limits::new(), None)
                .expect("count");
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
// Table: refused queries, on every corpus

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
        name: "a_column_limit_of_zero",
        files: &[("a", b"x\n")],
        query: || Query::literal("x").max_columns(0),
        expect: |k| {
            matches!(
                k,
                ErrorKind::InvalidArgument {
                    name: "max_columns",
                    ..
                }
            )
        },
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
        name: "one_bad_path_among_good_ones",
        files: &[("a", b"x\n")],
        query: || Query::literal("x").paths(["a", "../a"]),
        expect: |k| matches!(k, ErrorKind::OutsideRoot { .. }),
    },
];

#[test]
fn refused_queries_on_both_corpora() {
    for case in ERROR_CASES {
        let f = Fixture::new(case.files);
        let query = (case.query)();
        for (corpus, c) in f.all() {
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
            let count = c
                .count_per_file(&query, &Limits::new(), None)
                .expect_err(&at);
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
                    panic!("{at}: a refused query streamed");
                })
                .expect_err(&at);
            assert_eq!(kind_name(each.kind()), kind_name(err.kind()), "{at}: each");
        }
    }
}

/// A path the caller names that the corpus does not hold is no error, as
/// in ripgrep: it is counted in `skipped` as `vanished`, an error skip, so
/// the answer is incomplete; the other paths are searched, and a missing
/// path never widens the query. Also below a file, and below a folder
/// that holds other files; on every corpus and by every query.
#[test]
fn named_paths_that_name_nothing_are_counted_and_the_others_searched() {
    let f = Fixture::new(&[
        ("a/x.txt", b"x\n"),
        ("b.txt", b"x\n"),
        ("c.txt", b"x\n"),
        ("d/e.txt", b"x\n"),
    ]);
    let query =
        Query::literal("x").paths(["d", "nope", "a/missing/deeper", "b.txt", "zz", "b.txt/in"]);
    let missing = BTreeSet::from(["a/missing/deeper", "b.txt/in", "nope", "zz"]);
    let only_missing = Query::literal("x").paths(["nope", "a/nope"]);
    for (corpus, c) in f.all() {
        let check = |what: &str, skipped: &candor_search::Skipped, complete: bool| {
            let named: BTreeSet<&str> = skipped.sample().iter().map(|s| s.path()).collect();
            assert_eq!(named, missing, "{corpus}: {what}");
            assert_eq!(skipped.count(&SkipReason::Vanished), 4, "{corpus}: {what}");
            assert_eq!(skipped.total(), 4, "{corpus}: {what}");
            assert!(
                !complete,
                "{corpus}: {what}: an input named was not searched"
            );
        };
        let b = c.search(&query, &Limits::new(), None).expect(corpus);
        let paths: Vec<&str> = b.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["b.txt", "d/e.txt"], "{corpus}");
        assert!(b.completeness().is_exact(), "{corpus}");
        check("search", b.skipped(), b.is_complete());
        let counts = c
            .count_per_file(&query, &Limits::new(), None)
            .expect(corpus);
        assert_eq!(counts.len(), 2, "{corpus}");
        check("count", counts.skipped(), counts.is_complete());
        let files = c
            .files_with_matches(&query, &Limits::new(), None)
            .expect(corpus);
        assert_eq!(files.items(), ["b.txt", "d/e.txt"], "{corpus}");
        check("files", files.skipped(), files.is_complete());
        let mut streamed = 0;
        let end = c
            .search_each(&query, &Limits::new(), None, &mut |_| {
                streamed += 1;
                std::ops::ControlFlow::Continue(())
            })
            .expect(corpus);
        assert_eq!(streamed, 2, "{corpus}");
        check("stream", end.skipped(), end.is_complete());

        // Only missing paths: nothing is searched, not everything.
        let none = c.search(&only_missing, &Limits::new(), None).expect(corpus);
        assert!(none.is_empty(), "{corpus}");
        assert_eq!(none.skipped().count(&SkipReason::Vanished), 2, "{corpus}");
        assert!(!none.is_complete(), "{corpus}");
    }
}

// ---------------------------------------------------------------------------
// Table: excerpts, on every corpus

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
        name: "excerpt_leaves_out_a_leading_byte_order_mark",
        files: &[("b.txt", b"\xEF\xBB\xBFone\ntwo\n")],
        excerpt: || Excerpt::new("b.txt", 1..=2),
        want: ExcerptWant::Lines(&[(1, 3, "one", None), (2, 7, "two", None)]),
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
        name: "excerpt_with_a_column_limit_of_zero",
        files: FIVE,
        excerpt: || Excerpt::new("f.txt", 1..=2).max_columns(0),
        want: ExcerptWant::Error(|k| {
            matches!(
                k,
                ErrorKind::InvalidArgument {
                    name: "max_columns",
                    ..
                }
            )
        }),
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
        // A folder of a tree; documents have no folders, and hold no "d".
        want: ExcerptWant::Error(|k| {
            matches!(k, ErrorKind::NotAFile { .. } | ErrorKind::NotFound { .. })
        }),
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
        let f = Fixture::new(case.files);
        let excerpt = (case.excerpt)();
        for (corpus, c) in f.all() {
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
// Decoding: what an item promises is checked

#[test]
fn decoding_refuses_items_that_break_what_a_line_promises() {
    use candor_search::Line;

    use crate::core_support::rejection;

    let page = |item: &str| {
        format!(
            r#"{{"complete":true,"count":1,"total":{{"value":1,"relation":"eq"}},"items":[{item}]}}"#
        )
    };
    let good = r#"{"path":"a","line_number":2,"byte_offset":4,"line":"xé x","matches":[{"start":0,"end":1},{"start":1,"end":3},{"start":5,"end":5}],"line_cut":{"original_bytes":90,"kept_from":89}}"#;
    let decoded: Bounded<Match> = serde_json::from_str(&page(good)).expect("a valid item");
    assert_eq!(decoded.items()[0].matches.len(), 3);
    let bad_matches = [
        (r#"[{"start":5,"end":1}]"#, "not a range"),
        (r#"[{"start":0,"end":6}]"#, "not a range"),
        (r#"[{"start":0,"end":2}]"#, "not a range"), // splits the é
        (
            r#"[{"start":1,"end":3},{"start":0,"end":1}]"#,
            "out of order",
        ),
        (r#"[{"start":0,"end":3},{"start":1,"end":3}]"#, "overlap"),
        (r#"[{"start":5,"end":5},{"start":5,"end":5}]"#, "repeat"),
    ];
    for (matches, why) in bad_matches {
        let item = format!(
            r#"{{"path":"a","line_number":2,"byte_offset":4,"line":"xé x","matches":{matches}}}"#
        );
        let error = rejection::<Match>(&page(&item));
        assert!(error.contains(why), "{matches}: {error}");
    }
    let zero = r#"{"path":"a","line_number":0,"byte_offset":0,"line":"x","matches":[]}"#;
    assert!(rejection::<Match>(&page(zero)).contains("numbered from 1"));
    let cut = r#"{"path":"a","line_number":1,"byte_offset":0,"line":"x","matches":[],"line_cut":{"original_bytes":1,"kept_from":99}}"#;
    assert!(rejection::<Match>(&page(cut)).contains("line_cut keeps from byte 99"));
    // A window at the line's very end (an empty match there) decodes.
    let at_end = r#"{"path":"a","line_number":1,"byte_offset":0,"line":"","matches":[{"start":0,"end":0}],"line_cut":{"original_bytes":5,"kept_from":5}}"#;
    let decoded: Bounded<Match> = serde_json::from_str(&page(at_end)).expect("a window at the end");
    assert_eq!(decoded.items()[0].line_cut.map(|c| c.kept_from), Some(5));
    // The items' fields are as strict as the envelope's.
    let extra = r#"{"path":"a","line_number":1,"byte_offset":0,"line":"x","matches":[],"extra":1}"#;
    assert!(rejection::<Match>(&page(extra)).contains("unknown field"));
    let extra = r#"{"path":"a","line_number":1,"byte_offset":0,"line":"x","matches":[{"start":0,"end":1,"x":0}]}"#;
    assert!(rejection::<Match>(&page(extra)).contains("unknown field"));
    // An excerpt's lines are checked the same way.
    let line = r#"{"line_number":0,"byte_offset":0,"line":"x"}"#;
    assert!(rejection::<Line>(&page(line)).contains("numbered from 1"));
    let line = r#"{"line_number":3,"byte_offset":0,"line":"x","extra":true}"#;
    assert!(rejection::<Line>(&page(line)).contains("unknown field"));
    let line = r#"{"line_number":3,"byte_offset":0,"line":"x"}"#;
    let decoded: Bounded<Line> = serde_json::from_str(&page(line)).expect("a valid line");
    assert_eq!(decoded.items()[0].line_number, 3);
}

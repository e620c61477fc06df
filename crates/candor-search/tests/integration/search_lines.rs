//! How a line is shown: long lines cut around the first match, and the
//! reproductions of engine bugs (all fixed) at a line's edges, beside a
//! `\r` and in invalid UTF-8, each on every corpus.

use candor_search::{Corpus, Documents, Limits, Match, Query};

use crate::fixture::{Fixture, paths_of};

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
    let f = Fixture::new(&files);
    // Windows whose edges fall on character boundaries of the wide line,
    // and windows whose edges fall inside a character and move to one.
    for max in [18, 19, 80, 81, 100, 101] {
        let q = Query::literal("needle").max_columns(max);
        for (corpus, c) in f.all() {
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
    let f = Fixture::new(&[("l.txt", text.as_bytes())]);
    for max in [1, 3, 5] {
        let q = Query::literal("needle").max_columns(max);
        for (corpus, c) in f.all() {
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
// Engine bugs (all fixed), each a minimal reproduction on every corpus.

#[test]
fn resuming_after_a_last_line_without_newline() {
    let f = Fixture::new(&[("a.txt", b"x"), ("b.txt", b"x\n")]);
    for (corpus, c) in f.all() {
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
    let f = Fixture::new(&[("a.txt", b"x\ny")]);
    for (corpus, c) in f.all() {
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
    let f = Fixture::new(&[("a.txt", b"ab\xff \xffab\n")]);
    for (corpus, c) in f.all() {
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
    let f = Fixture::new(&[("a.txt", b"\xe2\x82\n")]);
    for (corpus, c) in f.all() {
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
    let f = Fixture::new(&[("crlf.txt", b"a\r\n")]);
    for q in &queries {
        for (corpus, c) in f.all() {
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
    let f = Fixture::new(&[("cr.txt", b"a\rb\n")]);
    for (corpus, c) in f.all() {
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
    let f = Fixture::new(&[("w.txt", text.as_bytes())]);
    for max in [7, 19, 101] {
        for (corpus, c) in f.all() {
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

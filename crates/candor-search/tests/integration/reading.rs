//! Reading files: large files read through a bounded buffer, the binary
//! rule, work budgets and the deadline inside a file, and the single-file
//! queries (`find_in_file`, `excerpt`) with only the read policy.
//!
//! Each check runs on every corpus of the fixture where it applies (the
//! documents, and the tree with 1, 2 and 4 threads), against the lines of
//! the oracle (`fuzz/checks/oracle.rs`).

use std::ops::ControlFlow;
use std::time::Duration;

use crate::fixture::Fixture;
use crate::oracle::{BINARY_PREFIX, lines, searched};
use crate::pages::walk;
use candor_search::{
    BudgetKind, Corpus, Cursor, Documents, Excerpt, Limits, ManualClock, Match, Query, SkipReason,
    Tree,
};
use proptest::prelude::*;

/// A line as the oracle sees it: number, offset, text.
type Expected = (u64, u64, String);

/// Every line of `bytes` whose lossy text holds `needle`, in what the
/// binary rule searches of it (`oracle::searched`); `None` when the file
/// is binary whole (no items).
fn oracle(bytes: &[u8], needle: &str) -> Option<Vec<Expected>> {
    let expected = lines(searched(bytes)?)
        .into_iter()
        .map(|l| {
            let text = String::from_utf8_lossy(l.text).into_owned();
            (l.number, l.offset, text)
        })
        .filter(|(_, _, text)| text.contains(needle))
        .collect();
    Some(expected)
}

fn seen(items: &[Match]) -> Vec<Expected> {
    items
        .iter()
        .map(|m| (m.line_number, m.byte_offset, m.line.clone()))
        .collect()
}

/// Follows cursors page after page and returns every item, checking each
/// page's disclosure on the way: a page that is not complete was stopped
/// by `budget` (when given), and the last page is complete.
fn all_pages(
    corpus: &dyn Corpus,
    query: &Query,
    limits: &Limits,
    name: &str,
    budget: Option<BudgetKind>,
) -> Vec<Match> {
    let walked = walk(name, 10_000, |cursor| corpus.search(query, limits, cursor));
    if let Some(e) = walked.refused {
        panic!("{name}: {e}");
    }
    let (last, stopped) = walked.pages.split_last().expect("a page");
    assert!(last.is_complete(), "{name}: {:?}", last.completeness());
    if let Some(kind) = budget {
        assert!(
            !stopped.is_empty(),
            "{name}: the {kind:?} budget never stopped a page"
        );
        for page in stopped {
            let by = page.completeness().budget().map(|b| b.kind());
            assert_eq!(by, budget, "{name}: stopped by {by:?}");
        }
    }
    walked
        .pages
        .iter()
        .flat_map(|page| page.iter().cloned())
        .collect()
}

/// `lines` lines, every 97th holding the needle, about 40 bytes each.
fn big_text(lines: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(lines * 40);
    for i in 0..lines {
        if i % 97 == 0 {
            text.extend_from_slice(format!("line {i:08} holds the needle here\n").as_bytes());
        } else {
            text.extend_from_slice(format!("line {i:08} is plain text, nothing\n").as_bytes());
        }
    }
    text
}

#[test]
fn the_deadline_stops_inside_a_file_and_resuming_loses_no_line() {
    let text = big_text(100_000); // about 3.6 MiB: 14 blocks
    let expected = oracle(&text, "needle").unwrap();
    let f = Fixture::new(&[("big.txt", &text)]);
    // Each reading of the clock moves it 1 ms: the deadline passes after
    // a few blocks of the one file.
    let limits = Limits::new()
        .deadline(Duration::from_millis(5))
        .clock(ManualClock::new().auto_advance(Duration::from_millis(1)));
    let query = Query::literal("needle");
    for (name, corpus) in f.all() {
        let first = corpus.search(&query, &limits, None).unwrap();
        assert!(
            !first.is_complete(),
            "{name}: one slow file must not be complete"
        );
        let items = all_pages(corpus, &query, &limits, name, Some(BudgetKind::Deadline));
        assert_eq!(seen(&items), expected, "{name}");
    }
}

#[test]
fn counts_under_a_deadline_count_each_file_once() {
    let text = big_text(100_000);
    let n = oracle(&text, "needle").unwrap().len() as u64;
    let files: &[(&str, &[u8])] = &[
        ("a.txt", b"needle\n"),
        ("big.txt", &text),
        ("z.txt", b"needle\n"),
    ];
    let f = Fixture::new(files);
    let limits = Limits::new()
        .deadline(Duration::from_millis(5))
        .clock(ManualClock::new().auto_advance(Duration::from_millis(1)));
    let query = Query::literal("needle");
    let want = vec![
        ("a.txt".to_owned(), 1),
        ("big.txt".to_owned(), n),
        ("z.txt".to_owned(), 1),
    ];
    for (name, corpus) in f.all() {
        let mut counts = Vec::new();
        let mut cursor: Option<Cursor> = None;
        for _ in 0..100 {
            let page = corpus
                .count_per_file(&query, &limits, cursor.as_ref())
                .unwrap();
            counts.extend(page.iter().map(|c| (c.path.clone(), c.count)));
            match page.next_cursor() {
                Some(c) => cursor = Some(c.clone()),
                None => break,
            }
        }
        assert_eq!(counts, want, "{name}");
    }
}

#[test]
fn the_scanned_bytes_budget_stops_inside_a_file() {
    let text = big_text(60_000); // about 2.2 MiB
    let expected = oracle(&text, "needle").unwrap();
    let f = Fixture::new(&[("a/big.txt", &text), ("b.txt", b"needle\n")]);
    let limits = Limits::new().max_scanned_bytes(512 * 1024);
    let query = Query::literal("needle");
    for (name, corpus) in f.all() {
        let items = all_pages(
            corpus,
            &query,
            &limits,
            name,
            Some(BudgetKind::ScannedBytes),
        );
        let (a, b): (Vec<Match>, Vec<Match>) =
            items.into_iter().partition(|m| m.path == "a/big.txt");
        assert_eq!(seen(&a), expected, "{name}");
        assert_eq!(b.len(), 1, "{name}");
        // The one file alone, by name.
        let found = corpus
            .find_in_file("a/big.txt", &query, &limits, None)
            .unwrap();
        let budget = found.completeness().budget().expect("a budget stop");
        assert_eq!(budget.kind(), BudgetKind::ScannedBytes, "{name}");
        assert!(
            found.len() < expected.len() && found.next_cursor().is_some(),
            "{name}"
        );
    }
}

#[test]
fn max_files_zero_reads_nothing_and_says_so() {
    let f = Fixture::new(&[("a.txt", b"x\n"), ("b.txt", b"x\n")]);
    let query = Query::literal("x");
    for (name, corpus) in f.all() {
        let page = corpus
            .search(&query, &Limits::new().max_files(0), None)
            .unwrap();
        assert!(page.is_empty(), "{name}");
        let budget = page.completeness().budget().expect("a budget stop");
        assert_eq!(
            (budget.kind(), budget.max(), budget.used()),
            (BudgetKind::Files, 0, 0),
            "{name}"
        );
        // The cursor resumes at the first file, unread.
        let rest = corpus
            .search(&query, &Limits::new(), page.next_cursor())
            .unwrap();
        assert_eq!(rest.len(), 2, "{name}");
        let one = corpus
            .find_in_file("b.txt", &query, &Limits::new().max_files(0), None)
            .unwrap();
        assert!(one.is_empty() && !one.is_complete(), "{name}");
        assert_eq!(
            one.completeness().budget().map(|b| b.used()),
            Some(0),
            "{name}"
        );
        let lines = corpus
            .excerpt(
                &Excerpt::new("a.txt", 1..=1),
                &Limits::new().max_files(0),
                None,
            )
            .unwrap();
        assert!(lines.is_empty() && !lines.is_complete(), "{name}");
    }
}

#[test]
fn max_files_zero_resumes_at_a_file_after_the_walks_skips() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".h")).unwrap();
    std::fs::write(dir.path().join(".h/x.txt"), "x\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "x\n").unwrap();
    for threads in [1, 4] {
        let tree = Tree::new(dir.path()).unwrap().threads(threads);
        let query = Query::literal("x");
        let page = tree
            .search(&query, &Limits::new().max_files(0), None)
            .unwrap();
        assert!(page.is_empty());
        assert_eq!(page.skipped().count(&SkipReason::Hidden), 1);
        let rest = tree
            .search(&query, &Limits::new(), page.next_cursor())
            .unwrap();
        assert_eq!(rest.items()[0].path, "b.txt");
        assert!(rest.is_complete());
    }
}

#[test]
fn find_in_file_searches_a_named_ignored_or_hidden_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".gitignore"), "secret.txt\n").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "a\nthe needle\n").unwrap();
    std::fs::write(dir.path().join(".hidden.txt"), "the needle\n").unwrap();
    let query = Query::literal("needle");
    for threads in [1, 4] {
        let tree = Tree::new(dir.path()).unwrap().threads(threads);
        for path in ["secret.txt", ".hidden.txt"] {
            let found = tree
                .find_in_file(path, &query, &Limits::new(), None)
                .unwrap();
            assert_eq!(found.len(), 1, "{path}, {threads} threads");
            assert_eq!(found.items()[0].path, path);
            assert!(found.is_complete());
        }
        // A walk still leaves them out.
        let walked = tree.search(&query, &Limits::new(), None).unwrap();
        assert!(walked.is_empty());
    }
}

#[test]
fn find_in_file_reads_only_the_named_file() {
    let f = Fixture::new(&[("a", b"x in a\n"), ("ab", b"x in ab\n")]);
    let docs = Documents::new()
        .with("a", "x in a\n")
        .with("a/b", "x in a/b\n");
    let found = docs
        .find_in_file("a", &Query::literal("x"), &Limits::new(), None)
        .unwrap();
    let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["a"]);
    assert!(found.is_complete());
    for (name, corpus) in f.all() {
        let found = corpus
            .find_in_file("a", &Query::literal("x"), &Limits::new(), None)
            .unwrap();
        assert_eq!(found.len(), 1, "{name}");
    }
}

#[test]
fn a_named_fifo_is_skipped_as_special() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        // No mkfifo here: nothing to check (a FIFO cannot be made otherwise
        // without unsafe code).
        eprintln!("mkfifo is not available");
        return;
    }
    let tree = Tree::new(dir.path()).unwrap();
    let found = tree
        .find_in_file("pipe", &Query::literal("x"), &Limits::new(), None)
        .unwrap();
    assert!(found.is_empty());
    assert_eq!(found.skipped().count(&SkipReason::Special), 1);
    let lines = tree
        .excerpt(&Excerpt::new("pipe", 1..=3), &Limits::new(), None)
        .unwrap();
    assert!(lines.is_empty());
    assert_eq!(lines.skipped().count(&SkipReason::Special), 1);
}

#[test]
fn excerpt_applies_the_read_policy() {
    let text = big_text(40_000); // about 1.5 MiB
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.txt"), &text).unwrap();
    let tree = Tree::new(dir.path()).unwrap().max_file_size(1 << 20);
    let wide = Excerpt::new("big.txt", 1..=40_000);
    let lines = tree.excerpt(&wide, &Limits::new(), None).unwrap();
    assert!(lines.is_empty());
    assert_eq!(lines.skipped().count(&SkipReason::TooLarge), 1);

    // The scanned-bytes budget stops an excerpt; its cursor resumes it.
    let want: Vec<String> = String::from_utf8(text.clone())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let f = Fixture::new(&[("big.txt", &text)]);
    let limits = Limits::new().max_scanned_bytes(300 * 1024);
    for (name, corpus) in f.all() {
        let mut got = Vec::new();
        let mut cursor: Option<Cursor> = None;
        let mut pages = 0;
        loop {
            let page = corpus.excerpt(&wide, &limits, cursor.as_ref()).unwrap();
            got.extend(page.iter().map(|l| l.line.clone()));
            pages += 1;
            if page.is_complete() {
                break;
            }
            let budget = page.completeness().budget().expect("a budget stop");
            assert_eq!(budget.kind(), BudgetKind::ScannedBytes, "{name}");
            cursor = Some(page.next_cursor().cloned().expect("a cursor"));
            assert!(pages < 100, "{name}: the pages never end");
        }
        assert!(pages > 1, "{name}");
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn excerpt_reads_only_as_far_as_its_lines() {
    // A NUL 2 MiB in: the first lines are read and shown without reading
    // that far.
    let mut text = big_text(60_000);
    text[2 << 20] = 0;
    let f = Fixture::new(&[("f.txt", &text)]);
    for (name, corpus) in f.all() {
        let lines = corpus
            .excerpt(&Excerpt::new("f.txt", 2..=3), &Limits::new(), None)
            .unwrap();
        let got: Vec<u64> = lines.iter().map(|l| l.line_number).collect();
        assert_eq!(got, [2, 3], "{name}");
        assert!(lines.is_complete(), "{name}");
        assert_eq!(lines.items()[0].byte_offset, 36, "{name}");
        // A NUL on a line asked for: binary, and named, so read as text:
        // the lines asked for, and the record that it is binary. One past
        // the last line asked for is not looked for.
        for (nul, told) in [(40, 1), (1000, 0)] {
            let mut early = text.clone();
            early[nul] = 0;
            let docs = Documents::new().with("f.txt", early);
            let lines = docs
                .excerpt(&Excerpt::new("f.txt", 2..=3), &Limits::new(), None)
                .unwrap();
            let got: Vec<u64> = lines.iter().map(|l| l.line_number).collect();
            assert_eq!(got, [2, 3]);
            assert!(lines.is_complete());
            assert_eq!(lines.skipped().count(&SkipReason::BinaryAsText), told);
            assert_eq!(lines.items()[0].line.contains('\0'), told == 1);
            if told == 1 {
                let detail = lines.skipped().sample()[0].detail().unwrap_or_default();
                assert!(detail.contains(&format!("at byte {nul}:")), "{detail}");
            }
        }
    }
}

#[test]
fn a_nul_near_the_start_makes_a_file_binary_and_one_further_in_ends_its_search() {
    for depth in [
        0usize,
        100,
        BINARY_PREFIX - 1,
        BINARY_PREFIX,
        300 * 1024,
        3 << 20,
    ] {
        let mut text = big_text(100_000);
        text[depth] = 0;
        let want = oracle(&text, "needle");
        let n = want.as_ref().map_or(0, Vec::len);
        assert_eq!(want.is_none(), depth < BINARY_PREFIX, "NUL at {depth}");
        let f = Fixture::new(&[("f.txt", &text), ("g.txt", b"needle\n")]);
        let query = Query::literal("needle");
        for (name, corpus) in f.all() {
            let found = corpus.search(&query, &Limits::new(), None).unwrap();
            let mut expected = want.clone().unwrap_or_default();
            expected.push((1, 0, "needle".to_owned()));
            let got: Vec<Expected> = seen(found.items());
            assert_eq!(got, expected, "{name}, NUL at {depth}");
            // Binary is a policy: whole or cut, the answer is complete.
            assert!(found.is_complete(), "{name}, NUL at {depth}");
            assert_eq!(found.skipped().count(&SkipReason::Binary), 1);
            let skip = &found.skipped().sample()[0];
            assert_eq!(skip.path(), "f.txt");
            // A cut says where: the NUL, and the end of what was searched.
            assert_eq!(
                skip.detail()
                    .is_some_and(|d| d.contains(&format!("byte {depth}"))),
                want.is_some(),
                "{name}: {:?}",
                skip.detail()
            );
            let counts = corpus.count_per_file(&query, &Limits::new(), None).unwrap();
            let counted: Vec<u64> = counts.iter().map(|c| c.count).collect();
            let mut expected_counts = vec![n as u64];
            expected_counts.retain(|&c| c > 0);
            expected_counts.push(1);
            assert_eq!(counted, expected_counts, "{name}, NUL at {depth}");
            assert_eq!(counts.skipped().count(&SkipReason::Binary), 1);
            let files = corpus
                .files_with_matches(&query, &Limits::new(), None)
                .unwrap();
            let want_files: &[&str] = if n > 0 {
                &["f.txt", "g.txt"]
            } else {
                &["g.txt"]
            };
            assert_eq!(files.items(), want_files, "{name}, NUL at {depth}");
            // A file known to match is read no further than its match.
            assert_eq!(
                files.skipped().count(&SkipReason::Binary),
                u64::from(n == 0)
            );
            // An excerpt names the file: every line is read as text, NUL
            // and all, and the excerpt says the file is binary.
            let total_lines = text.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            let excerpt = Excerpt::new("f.txt", 1..=total_lines);
            let lines = corpus.excerpt(&excerpt, &Limits::new(), None).unwrap();
            assert_eq!(
                lines.len(),
                crate::oracle::lines(&text).len(),
                "{name}, NUL at {depth}"
            );
            assert_eq!(
                lines.skipped().count(&SkipReason::BinaryAsText),
                1,
                "{name}, NUL at {depth}"
            );
            assert!(lines.is_complete(), "{name}, NUL at {depth}");
            // A page cut by its limit that counts on counts the file's
            // lines before the NUL. The NUL lies past the page's cursor:
            // the page that reaches it says the rest was not searched,
            // so a walk reports it once.
            let counted = corpus
                .search(&query, &Limits::new().limit(3).count_total(true), None)
                .unwrap();
            assert_eq!(
                counted.total(),
                candor_search::Total::Exact(n as u64 + 1),
                "{name}"
            );
            let cut = n + 1 > 3;
            assert_eq!(
                counted.skipped().count(&SkipReason::Binary),
                u64::from(!cut),
                "{name}, NUL at {depth}"
            );
            // A capped page stops before the NUL: the next pages find it.
            let paged = all_pages(corpus, &query, &Limits::new().limit(3), name, None);
            assert_eq!(seen(&paged), expected, "{name}, NUL at {depth}");
        }
    }
}

#[test]
fn the_thread_count_is_clamped_and_disclosed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    let tree = Tree::new(dir.path()).unwrap().threads(32_000);
    assert_eq!(tree.get_threads(), Tree::max_threads());
    assert!(Tree::max_threads() < 32_000);
    let found = tree
        .search(&Query::literal("x"), &Limits::new(), None)
        .unwrap();
    assert_eq!(found.len(), 1);
}

/// A piece of a generated file.
#[derive(Debug, Clone)]
enum Piece {
    Plain(usize),
    Needle {
        before: usize,
        after: usize,
    },
    Crlf(bool),
    /// A line with a NUL byte: the file is binary whole, or its search ends
    /// there (`oracle::searched`).
    Nul,
    /// Many short matching lines in a row: a file's lines come in parts.
    Dense(usize),
    /// A line longer than the read buffer (256 KiB), the needle at a place.
    Long {
        len: usize,
        at: Option<usize>,
    },
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        6 => (0usize..200).prop_map(Piece::Plain),
        3 => (0usize..100, 0usize..100).prop_map(|(before, after)| Piece::Needle { before, after }),
        1 => any::<bool>().prop_map(Piece::Crlf),
        1 => Just(Piece::Nul),
        1 => (1000usize..5000).prop_map(Piece::Dense),
        1 => (256usize * 1024..700 * 1024, proptest::option::of(0usize..700 * 1024))
            .prop_map(|(len, at)| Piece::Long { len, at: at.map(|a| a % len) }),
    ]
}

fn render(pieces: &[Piece], repeat: usize, final_newline: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..repeat {
        for p in pieces {
            match p {
                Piece::Plain(n) => out.extend(std::iter::repeat_n(b'a', *n)),
                Piece::Needle { before, after } => {
                    out.extend(std::iter::repeat_n(b'b', *before));
                    out.extend_from_slice(b"needle");
                    out.extend(std::iter::repeat_n(b'c', *after));
                }
                Piece::Crlf(needle) => {
                    out.extend_from_slice(if *needle { b"x needle\r" } else { b"plain\r" })
                }
                Piece::Nul => out.extend_from_slice(b"needle \0 nul"),
                Piece::Dense(n) => {
                    for i in 0..*n {
                        out.extend_from_slice(format!("needle {i}\n").as_bytes());
                    }
                }
                Piece::Long { len, at } => {
                    let start = out.len();
                    out.extend(std::iter::repeat_n(b'd', *len));
                    if let Some(at) = at {
                        let at = start + (*at).min(len - 6);
                        out[at..at + 6].copy_from_slice(b"needle");
                    }
                }
            }
            out.push(b'\n');
        }
    }
    if !final_newline && out.last() == Some(&b'\n') {
        out.pop();
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Files larger than the read buffer, lines longer than it, CRLF, no
    /// final newline, NULs near the start and further in, runs of matching
    /// lines longer than a part: every corpus gives the naive scan's
    /// lines, collected, streamed and counted, and pages rebuild them.
    #[test]
    fn large_files_read_in_blocks_match_a_naive_scan(
        pieces in proptest::collection::vec(piece(), 1..12),
        repeat in 1usize..60,
        final_newline in any::<bool>(),
        page in prop_oneof![Just(7usize), 2000usize..5000],
    ) {
        let mut text = render(&pieces, repeat, final_newline);
        // A few blocks are enough to put lines across block ends.
        text.truncate(1536 * 1024);
        let expected = oracle(&text, "needle").unwrap_or_default();
        let binary = u64::from(text.contains(&0));
        let f = Fixture::new(&[("f.txt", &text)]);
        let query = Query::literal("needle");
        for (name, corpus) in f.all() {
            let found = corpus.search(&query, &Limits::new(), None).unwrap();
            prop_assert!(found.is_complete(), "{}", name);
            prop_assert_eq!(seen(found.items()), expected.clone(), "{}", name);
            prop_assert_eq!(found.skipped().count(&SkipReason::Binary), binary, "{}", name);
            let mut streamed = Vec::new();
            let end = corpus
                .search_each(&query, &Limits::new(), None, &mut |m| {
                    streamed.push((m.line_number, m.byte_offset, m.line.clone()));
                    ControlFlow::Continue(())
                })
                .unwrap();
            prop_assert_eq!(&streamed, &expected, "{}: streamed", name);
            prop_assert_eq!(end.skipped().count(&SkipReason::Binary), binary, "{}", name);
            let counted = corpus.count_per_file(&query, &Limits::new(), None).unwrap();
            let n = counted.items().first().map_or(0, |c| c.count);
            prop_assert_eq!(n, expected.len() as u64, "{}", name);
            prop_assert_eq!(counted.skipped().count(&SkipReason::Binary), binary, "{}", name);
            // An excerpt of every line names the file: every line, read
            // as text, and the record that it is binary for a NUL.
            let total_lines = text.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            let excerpt = Excerpt::new("f.txt", 1..=total_lines);
            let lines = corpus.excerpt(&excerpt, &Limits::new(), None).unwrap();
            prop_assert_eq!(lines.len(), crate::oracle::lines(&text).len(), "{}: excerpt", name);
            let nul = u64::from(text.contains(&0));
            prop_assert_eq!(lines.skipped().count(&SkipReason::BinaryAsText), nul, "{}: excerpt", name);
            prop_assert!(lines.is_complete(), "{}: excerpt", name);
            let exact = corpus
                .search(&query, &Limits::new().limit(page).count_total(true), None)
                .unwrap();
            prop_assert_eq!(exact.total(), candor_search::Total::Exact(expected.len() as u64), "{}", name);
            // Counted to its end, the file's cut is reached; a page cut by
            // its limit leaves it to the page that reaches it.
            let cut = expected.len() > page;
            prop_assert_eq!(
                exact.skipped().count(&SkipReason::Binary),
                if cut { 0 } else { binary },
                "{}: counted", name
            );
        }
        // At most about 50 pages: each is a whole query.
        let page = page.max(expected.len() / 50);
        let paged = all_pages(f.tree1(), &query, &Limits::new().limit(page), "paged", None);
        prop_assert_eq!(seen(&paged), expected.clone());
        let paged = all_pages(f.all()[0].1, &query, &Limits::new().limit(page), "paged", None);
        prop_assert_eq!(seen(&paged), expected);
    }
}

#[cfg(feature = "tree")]
mod grep_example {
    use std::io::Read as _;
    use std::process::{Command, Stdio};

    use crate::examples_cli::example;

    #[test]
    fn grep_stops_at_once_when_its_output_closes() {
        let dir = tempfile::tempdir().unwrap();
        let lines: String = (0..5000).map(|i| format!("needle line {i}\n")).collect();
        for i in 0..40 {
            std::fs::write(dir.path().join(format!("f{i:02}.txt")), &lines).unwrap();
        }
        // About 4 MiB of output; the reader takes one line, then goes away.
        let mut child = Command::new(example("grep"))
            .args(["needle", "--threads", "2"])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"f00.txt:1:needle");
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        // Quietly: no error, and no final status line, which comes only
        // after a search that ran to its end.
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.is_empty(), "{err}");
    }

    #[test]
    fn grep_notes_a_clamped_thread_count() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "needle\n").unwrap();
        let output = Command::new(example("grep"))
            .args(["needle", "--threads", "32000"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{err}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "a.txt:1:needle\n");
        assert!(err.contains("note: --threads 32000"), "{err}");
    }
}

/// Items, counts and files as comparable text, for a long-line check.
fn long_line_answers(corpus: &dyn Corpus, query: &Query) -> String {
    let limits = Limits::new();
    let found = corpus.search(query, &limits, None).unwrap();
    let total = corpus
        .search(query, &limits.clone().limit(1).count_total(true), None)
        .unwrap();
    let counts = corpus.count_per_file(query, &limits, None).unwrap();
    let files = corpus.files_with_matches(query, &limits, None).unwrap();
    let items: Vec<_> = found
        .iter()
        .map(|m| {
            let cut = m.line_cut.map(|c| (c.original_bytes, c.kept_from));
            (m.line_number, m.byte_offset, &m.line, &m.matches, cut)
        })
        .collect();
    let counts: Vec<_> = counts.iter().map(|c| (&c.path, c.count)).collect();
    format!(
        "{items:?} {} {:?} {counts:?} {:?} {:?}",
        found.is_complete(),
        found.skipped(),
        files.items(),
        total.total()
    )
}

/// A line over the 16 MiB cap, with a column window and a query whose
/// matches are at most a known length long: found and shown cut as a
/// corpus that holds it whole (documents in memory have no cap) shows it, with its matches at its start, on the reader's piece
/// boundary (its first 16 MiB and one byte, then reads of the buffer's
/// size), past the window and at its end; counted exactly; and excerpted
/// from its first bytes. Without a window, it skips its file as before.
#[test]
fn a_line_over_the_16_mib_cap_is_found_and_shown_cut_with_a_window() {
    const CAP: usize = 16 << 20;
    let mut line = "abcdefgh".repeat((CAP + (1 << 20)) / 8).into_bytes();
    let len = line.len();
    for at in [0, 300, CAP - 3, CAP + 1 - 3, 2 * CAP - 200, len - 6] {
        if at + 6 <= len {
            line[at..at + 6].copy_from_slice(b"NEEDLE");
        }
    }
    let mut text = b"first NEEDLE line\n".to_vec();
    text.extend_from_slice(&line);
    text.extend_from_slice(b"\r\nlast NEEDLE line\n");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wide.min.js"), &text).unwrap();
    let docs = Documents::new().with("wide.min.js", text.clone());
    let tree = Tree::new(dir.path()).unwrap().threads(2);
    for query in [
        Query::literal("NEEDLE").max_columns(120),
        Query::literals(["NEEDLE", "EEDLEa", "hNEE"]).max_columns(64),
        Query::regex(r"N[A-Z]{4}E(?-u:\b)|^first").max_columns(80),
    ] {
        let want = long_line_answers(&docs, &query);
        assert_eq!(long_line_answers(&tree, &query), want, "{query:?}");
        assert!(want.contains(&len.to_string()), "{want}");
    }
    let found = tree
        .search(
            &Query::literal("NEEDLE").max_columns(120),
            &Limits::new(),
            None,
        )
        .unwrap();
    assert_eq!(found.len(), 3);
    let cut = found.items()[1].line_cut.unwrap();
    assert_eq!((cut.original_bytes, cut.kept_from), (len as u64, 0));
    let excerpt = Excerpt::new("wide.min.js", 1..=3).max_columns(100);
    let lines = tree.excerpt(&excerpt, &Limits::new(), None).unwrap();
    let want = docs.excerpt(&excerpt, &Limits::new(), None).unwrap();
    assert_eq!(lines.items(), want.items());
    assert!(lines.is_complete());
    assert_eq!(lines.items()[1].line.len(), 100);
    // Without a window, the line skips its file, as it always did.
    let whole = tree
        .search(&Query::literal("NEEDLE"), &Limits::new(), None)
        .unwrap();
    assert_eq!(whole.len(), 1);
    assert_eq!(whole.skipped().count(&SkipReason::LongLine), 1);
}

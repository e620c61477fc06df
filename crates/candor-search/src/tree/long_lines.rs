//! Tests: a line longer than the reader holds, searched with a column
//! window, gives what the same file gives read with a cap that holds it
//! (the line cut by the window as any line is), in every mode; without a
//! window, or with a regex, it is skipped as before.

use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;

use super::{Tree, WrapInput, tree_with};
use crate::reader::{Input, ReadRules, Stat};
use crate::{Corpus, Excerpt, Limits, Query, SkipReason};

/// The rules of a tree read through blocks of `block` bytes, holding lines
/// of at most `max_line` bytes.
fn rules(block: usize, max_line: usize) -> ReadRules {
    ReadRules {
        block,
        binary_prefix: block,
        max_line,
        max_file_size: None,
        as_text: false,
    }
}

/// Everything a query gives for a tree, as comparable text: the items,
/// the counts, the files, and the total with their disclosure.
fn answers(tree: &Tree, query: &Query, limits: &Limits) -> String {
    let found = tree.search(query, limits, None).unwrap();
    let counted = tree.count_per_file(query, limits, None).unwrap();
    let files = tree.files_with_matches(query, limits, None).unwrap();
    let total = tree
        .search(query, &limits.clone().count_total(true), None)
        .unwrap();
    let items: Vec<_> = found
        .iter()
        .map(|m| {
            (
                m.line_number,
                m.byte_offset,
                m.line.clone(),
                m.matches.clone(),
                m.line_cut,
            )
        })
        .collect();
    let counts: Vec<_> = counted.iter().map(|c| (c.path.clone(), c.count)).collect();
    // Pages of one item, each resumed from the last one's cursor.
    let mut paged = Vec::new();
    let mut cursor = None;
    loop {
        let page = tree
            .search(query, &Limits::new().limit(1), cursor.as_ref())
            .unwrap();
        paged.extend(
            page.iter()
                .map(|m| (m.line_number, m.byte_offset, m.line.clone())),
        );
        match page.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    format!(
        "items {items:?}\npaged {paged:?}\ncomplete {} skipped {:?}\ncounts {counts:?} {:?}\nfiles {:?} {:?}\ntotal {:?}",
        found.is_complete(),
        found.skipped(),
        counted.skipped(),
        files.items(),
        files.skipped(),
        total.total(),
    )
}

/// The lines an excerpt of the whole file gives, as comparable text.
fn excerpt_of(tree: &Tree, lines: u64, max: usize) -> String {
    let e = Excerpt::new("f.txt", 1..=lines).max_columns(max);
    let got = tree.excerpt(&e, &Limits::new(), None).unwrap();
    let lines: Vec<_> = got
        .iter()
        .map(|l| (l.line_number, l.byte_offset, l.line.clone(), l.line_cut))
        .collect();
    format!("{lines:?} {} {:?}", got.is_complete(), got.skipped())
}

/// The line numbers of `text`'s lines that `pattern` matches, by a plain
/// scan with the `regex` crate, line by line (a `\r` before a `\n`, or
/// ending the text, is no content).
fn naive_lines(text: &[u8], pattern: &str) -> Vec<u64> {
    let re = regex::bytes::Regex::new(pattern).unwrap();
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.ends_with(b"\n") {
        lines.pop();
    }
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let content = line.strip_suffix(b"\r").unwrap_or(line);
        if re.is_match(content) {
            out.push(i as u64 + 1);
        }
    }
    out
}

/// A query whose matches are at most a known length long, and the same
/// pattern for the `regex` crate; the needles written into the line.
fn bounded_query(kind: usize) -> (Query, &'static str, &'static [&'static str]) {
    match kind {
        0 => (Query::literal("ab"), "ab", &["ab"]),
        1 => (Query::literal("abcab"), "abcab", &["abcab"]),
        2 => (
            Query::literals(["ab", "abcab", "bca"]),
            "ab|abcab|bca",
            &["ab", "abcab", "bca"],
        ),
        3 => (Query::regex("a[bc]{1,3}b"), "a[bc]{1,3}b", &["abcb", "acb"]),
        4 => (
            Query::regex(r"(?-u:\b)ab[a-c]?"),
            r"(?-u:\b)ab[a-c]?",
            &[" ab", "ab", "xab "],
        ),
        5 => (Query::regex("^ab|ca$"), "^ab|ca$", &["ab", "ca"]),
        _ => (
            Query::literal("AB").case_insensitive(true),
            "(?i)ab",
            &["Ab", "aB"],
        ),
    }
}

/// A text of short lines around one long line, with `needles` written at
/// `places` (fractions of the long line) over a filler of `fill`.
fn long_text(
    before: usize,
    after: usize,
    long: usize,
    fill: &str,
    places: &[(u16, usize)],
    needles: &[&str],
    crlf: bool,
) -> Vec<u8> {
    let mut line: Vec<u8> = fill.bytes().cycle().take(long).collect();
    for &(at, which) in places {
        let needle = needles[which % needles.len()].as_bytes();
        let at = (at as usize * long / u16::MAX as usize).min(long - needle.len());
        line[at..at + needle.len()].copy_from_slice(needle);
    }
    let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut text = Vec::new();
    for i in 0..before {
        text.extend_from_slice(format!("short {i} ab").as_bytes());
        text.extend_from_slice(end);
    }
    text.extend_from_slice(&line);
    text.extend_from_slice(end);
    for i in 0..after {
        text.extend_from_slice(format!("after {i} cab").as_bytes());
        text.extend_from_slice(end);
    }
    text
}

/// `text` in a tree of one file, read with a cap of `max_line` bytes.
fn tree_of(
    text: &[u8],
    block: usize,
    max_line: usize,
    threads: usize,
) -> (tempfile::TempDir, Tree) {
    let (dir, mut tree) = tree_with(&[]);
    std::fs::write(dir.path().join("f.txt"), text).unwrap();
    tree.threads = threads;
    tree.solo = Duration::ZERO;
    tree.rules = Some(rules(block, max_line));
    (dir, tree)
}

/// A file read at most `most` bytes per call, as a pipe or a network
/// file system may hand it: pieces of a few bytes.
struct Trickle {
    file: Box<dyn Input>,
    most: usize,
}

impl Input for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let most = self.most.min(buf.len());
        self.file.read(&mut buf[..most])
    }

    fn seek_to(&mut self, offset: u64) -> std::io::Result<()> {
        self.file.seek_to(offset)
    }

    fn stat(&self) -> std::io::Result<Stat> {
        self.file.stat()
    }
}

/// Reads `tree`'s files at most `most` bytes per call.
fn trickle(tree: &mut Tree, most: usize) {
    tree.wrap_input = Some(WrapInput(Arc::new(move |_: &std::path::Path, file| {
        Box::new(Trickle { file, most })
    })));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The line over the cap, in pieces of about a block, gives what it
    /// gives held whole: the same items cut the same way, the same
    /// counts, files and total; its matching lines are those of a plain
    /// scan; an excerpt shows it as it shows a held line.
    #[test]
    fn a_line_over_the_cap_is_found_and_shown_as_one_held_whole(
        long in 300usize..3000,
        block in 16usize..96,
        max in 1usize..120,
        places in proptest::collection::vec((any::<u16>(), 0usize..3), 0..6),
        fill in prop_oneof![Just("xyz"), Just("aba"), Just("bca\r"), Just("é\u{80}ab"), Just("ab ca")],
        kind in 0usize..7,
        before in 0usize..3,
        after in 0usize..3,
        crlf: bool,
        limit in prop_oneof![Just(None), (1usize..4).prop_map(Some)],
        threads in 1usize..=2,
        most in prop_oneof![Just(usize::MAX), 1usize..9],
        nul in prop_oneof![3 => Just(None), 1 => any::<u16>().prop_map(Some)],
    ) {
        let (query, pattern, needles) = bounded_query(kind);
        let mut text = long_text(before, after, long, fill, &places, needles, crlf);
        if let Some(at) = nul {
            // A NUL anywhere: in the long line (which then ends the
            // search at its start) or in a line after it.
            let at = at as usize * (text.len() - 1) / u16::MAX as usize;
            text[at] = 0;
        }
        let query = query.max_columns(max);
        let limits = limit.map_or_else(Limits::new, |l| Limits::new().limit(l));
        let cap = 128usize.max(block * 2);
        let (_a, mut pieces) = tree_of(&text, block, cap, threads);
        if most < usize::MAX {
            trickle(&mut pieces, most);
        }
        let (_b, whole) = tree_of(&text, block, 1 << 20, threads);
        let got = answers(&pieces, &query, &limits);
        prop_assert_eq!(&got, &answers(&whole, &query, &limits));
        prop_assert!(!got.contains("LongLine"), "{}", got);
        if nul.is_none() {
            let want = naive_lines(&text, pattern);
            let found = whole.search(&query, &Limits::new(), None).unwrap();
            let numbers: Vec<u64> = found.iter().map(|m| m.line_number).collect();
            prop_assert_eq!(numbers, want);
        }
        let lines = (before + after + 1) as u64;
        prop_assert_eq!(excerpt_of(&pieces, lines, max), excerpt_of(&whole, lines, max));
    }
}

#[test]
fn without_a_window_or_with_a_regex_a_line_over_the_cap_is_still_skipped() {
    let mut text = "x".repeat(500);
    text.push_str("ab\nab\n");
    let (_dir, tree) = tree_of(text.as_bytes(), 32, 128, 1);
    for query in [
        Query::literal("ab"),
        Query::regex("ab+").max_columns(40),
        Query::regex(r"\bab").max_columns(40),
        Query::regex("x?").max_columns(40),
        Query::regex("a[b-z]{0,70000}").max_columns(40),
        Query::literal("ab").whole_word(true).max_columns(40),
        Query::literal("ab").max_columns(128),
    ] {
        let found = tree.search(&query, &Limits::new(), None).unwrap();
        assert_eq!(found.len(), 0, "{query:?}");
        assert_eq!(found.skipped().count(&SkipReason::LongLine), 1, "{query:?}");
    }
    let found = tree
        .search(&Query::literal("ab").max_columns(40), &Limits::new(), None)
        .unwrap();
    assert_eq!(found.len(), 2);
    assert!(found.is_complete());
    let e = tree
        .excerpt(&Excerpt::new("f.txt", 1..=2), &Limits::new(), None)
        .unwrap();
    assert_eq!(e.skipped().count(&SkipReason::LongLine), 1);
}

#[test]
fn lines_read_in_short_reads_before_the_binary_rule_decides_are_not_one_line() {
    // The first block is read a byte at a time before any line is handed
    // on: its line ends are found once it is, not only those read after.
    let mut text = "ab\n".to_owned();
    text.push_str(&"x".repeat(63));
    text.push_str("\nab\n");
    let (_dir, mut tree) = tree_of(text.as_bytes(), 16, 64, 1);
    trickle(&mut tree, 1);
    let found = tree
        .search(&Query::literal("ab"), &Limits::new(), None)
        .unwrap();
    assert!(found.is_complete(), "{:?}", found.skipped());
    let lines: Vec<u64> = found.iter().map(|m| m.line_number).collect();
    assert_eq!(lines, [1, 3]);
}

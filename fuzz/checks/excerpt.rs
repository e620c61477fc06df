//! The `excerpt` check: excerpts of a random document against the lines of
//! the oracle (`oracle.rs`: split on `\n`, one trailing `\r` stripped, a
//! leading byte-order mark left out), shown as lossy UTF-8, whole and page
//! by page. The file is named, so a NUL byte is text: every line is
//! returned, and the excerpt says the file is binary (`binary_as_text`,
//! once over its pages) when its first NUL lies on a line up to the last
//! asked for.

use candor_search::{Corpus, Documents, Excerpt, Limits, SkipReason};

use super::oracle::{BOM, excerpt_lines, lines};
use super::pages::{items, pages};

const CHUNKS: &[&[u8]] = &[
    b"a",
    b"bc",
    b" ",
    b"\n",
    b"\n",
    b"\n",
    b"\r\n",
    b"\r",
    "é".as_bytes(),
    "€".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"\0",
    b"long line long line long line ",
];

/// One line as the oracle sees it: number, offset, lossy text.
type Item = (u64, u64, String);

/// Checks one input.
pub fn check(data: &[u8]) {
    let byte = |i: usize| data.get(i).copied().unwrap_or(0);
    let first = u64::from(byte(0) % 12);
    let last = first + u64::from(byte(1) % 12);
    let limit = 1 + usize::from(byte(2) % 4);
    // The limit byte's top values also start the document with a
    // byte-order mark (the lower ones read as they always did).
    let mut bytes: Vec<u8> = if byte(2) >= 248 {
        BOM.to_vec()
    } else {
        Vec::new()
    };
    bytes.extend(
        data.iter()
            .skip(3)
            .take(64)
            .flat_map(|&b| CHUNKS[usize::from(b) % CHUNKS.len()].to_vec()),
    );
    let want: Vec<Item> = excerpt_lines(&bytes, first, last);
    // The line of the first NUL, if the file holds one.
    let nul_line = bytes.iter().position(|&b| b == 0).map(|nul| {
        lines(&bytes)
            .iter()
            .take_while(|l| l.offset <= nul as u64)
            .count() as u64
    });
    let told = u64::from(nul_line.is_some_and(|n| n <= last));
    let docs = Documents::new().with("doc.txt", bytes.clone());
    let excerpt = Excerpt::new("doc.txt", first..=last);
    let full = match docs.excerpt(&excerpt, &Limits::new(), None) {
        Ok(full) => full,
        // Line numbers are 1-based: line 0 may be refused, with an error.
        Err(_) if first == 0 => return,
        Err(e) => panic!("lines {first}..={last}: {e}"),
    };
    let got: Vec<Item> = full
        .iter()
        .map(|l| (l.line_number, l.byte_offset, l.line.clone()))
        .collect();
    assert_eq!(got, want, "lines {first}..={last} of {bytes:?}");
    assert!(full.completeness().is_exact());
    assert!(full.is_complete(), "lines {first}..={last} of {bytes:?}");
    let as_text = |b: &candor_search::Bounded<candor_search::Line>| {
        b.skipped().count(&SkipReason::BinaryAsText)
    };
    assert_eq!(as_text(&full), told, "lines {first}..={last} of {bytes:?}");

    let what = format!("lines {first}..={last} of {bytes:?}");
    let limits = Limits::new().limit(limit);
    let paged: Vec<Item> = items(
        &what,
        want.len() + 2,
        limit,
        |cursor| docs.excerpt(&excerpt, &limits, cursor),
        |l| (l.line_number, l.byte_offset, l.line.clone()),
    );
    assert_eq!(paged, want, "pages of lines {first}..={last} of {bytes:?}");
    // Told once over the pages, by the page that holds its line (or the
    // first, for a NUL before the first line asked for).
    let walked = pages(&what, want.len() + 2, |cursor| {
        docs.excerpt(&excerpt, &limits, cursor)
    });
    let told_over_pages: u64 = walked.iter().map(as_text).sum();
    assert_eq!(
        told_over_pages, told,
        "pages of lines {first}..={last} of {bytes:?}"
    );
}

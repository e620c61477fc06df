//! The `excerpt` check: excerpts of a random document against a naive line
//! split (on `\n`, one trailing `\r` stripped, lossy UTF-8), whole and page
//! by page.

use candor::{Corpus, Cursor, Documents, Excerpt, Limits};

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
    let bytes: Vec<u8> = data
        .iter()
        .skip(3)
        .take(64)
        .flat_map(|&b| CHUNKS[usize::from(b) % CHUNKS.len()].to_vec())
        .collect();
    let want: Vec<Item> = if bytes.contains(&0) {
        Vec::new()
    } else {
        lines(&bytes)
            .into_iter()
            .filter(|(n, _, _)| (first..=last).contains(n))
            .collect()
    };
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

    let mut paged: Vec<Item> = Vec::new();
    let mut cursor: Option<Cursor> = None;
    for page in 0.. {
        assert!(page <= want.len() + 1, "too many pages");
        let b = docs
            .excerpt(&excerpt, &Limits::new().limit(limit), cursor.as_ref())
            .unwrap_or_else(|e| panic!("page {page}: {e}"));
        assert!(b.len() <= limit);
        paged.extend(
            b.iter()
                .map(|l| (l.line_number, l.byte_offset, l.line.clone())),
        );
        match b.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => {
                assert!(b.completeness().is_exact());
                break;
            }
        }
    }
    assert_eq!(paged, want, "pages of lines {first}..={last} of {bytes:?}");
}

/// Every line: split on `\n` (the empty piece after a final `\n` is not a
/// line), one trailing `\r` stripped.
fn lines(bytes: &[u8]) -> Vec<Item> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| at + p);
        let raw = &bytes[at..end];
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        out.push((
            out.len() as u64 + 1,
            at as u64,
            String::from_utf8_lossy(line).into_owned(),
        ));
        at = end + 1;
    }
    out
}

//! The naive oracle of text search, shared by the fuzz checks and the
//! search properties: a document is split on `\n` (the empty piece after
//! a final `\n` is not a line) and one trailing `\r` is stripped from each
//! line; each line is then searched alone. A UTF-8 byte-order mark that
//! starts a document is not text: the first line starts after it, at
//! offset 3.
//!
//! Literals are found by comparing windows: non-overlapping, leftmost, and
//! for several literals the first one given wins at a position. Without
//! case, characters compare by Unicode simple case folding (`ſ` with `s`,
//! the Kelvin sign with `k`), so a match can be longer or shorter than its
//! needle. Whole words check the character on each side with
//! `char::is_alphanumeric` or `_` (invalid UTF-8 and the line's edges are
//! not word characters).
//!
//! Regexes run with the `regex` crate on each line alone, so that `^`/`$`
//! are the line's edges: the `str` API for a line of UTF-8, the bytes API
//! otherwise, keeping only the empty matches that do not split a
//! character.
//!
//! A line is shown as lossy UTF-8, and spans move onto it: an offset
//! inside an invalid sequence starts at its U+FFFD and ends after it, so a
//! non-empty match never shrinks to nothing and an empty one stays empty;
//! spans that come to overlap there (two matches in one sequence) are
//! joined.

/// Byte ranges in a line.
pub type Spans = Vec<(usize, usize)>;

/// Finds the spans of one line (its `\r` already stripped).
pub type LineSpans = dyn Fn(&[u8]) -> Spans;

/// One line of a document.
pub struct Line<'a> {
    /// 1-based.
    pub number: u64,
    /// The offset of its first byte in the document.
    pub offset: u64,
    /// Its bytes, without the `\n` and one trailing `\r`.
    pub text: &'a [u8],
}

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = "\u{FEFF}".as_bytes();

/// The lines of a document (after the byte-order mark that may start it).
pub fn lines(bytes: &[u8]) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut at = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| at + p);
        let raw = &bytes[at..end];
        out.push(Line {
            number: out.len() as u64 + 1,
            offset: at as u64,
            text: raw.strip_suffix(b"\r").unwrap_or(raw),
        });
        at = end + 1;
    }
    out
}

/// The binary rule's reach: a NUL byte in a document's first this many
/// bytes makes it binary whole.
pub const BINARY_PREFIX: usize = 256 * 1024;

/// What of a document is searched, by the binary rule: `None` when it is
/// binary whole (a NUL byte in its first `BINARY_PREFIX` bytes, or on its
/// first line); else its bytes up to the start of the line of its first
/// NUL, or all of them.
pub fn searched(bytes: &[u8]) -> Option<&[u8]> {
    let Some(nul) = bytes.iter().position(|&b| b == 0) else {
        return Some(bytes);
    };
    if nul < BINARY_PREFIX {
        return None;
    }
    let line_start = bytes[..nul].iter().rposition(|&b| b == b'\n')? + 1;
    Some(&bytes[..line_start])
}

/// Lines `first..=last` of a document that is not binary, those that
/// exist: number, offset and lossy text.
pub fn excerpt_lines(bytes: &[u8], first: u64, last: u64) -> Vec<(u64, u64, String)> {
    lines(bytes)
        .into_iter()
        .filter(|l| (first..=last).contains(&l.number))
        .map(|l| {
            let text = String::from_utf8_lossy(l.text).into_owned();
            (l.number, l.offset, text)
        })
        .collect()
}

/// A matching line as the oracle shows it.
pub struct Hit {
    pub number: u64,
    pub offset: u64,
    /// The line as lossy UTF-8.
    pub line: String,
    /// The spans, moved onto `line`.
    pub spans: Spans,
}

/// The matching lines of a document that is not binary.
pub fn matching_lines(bytes: &[u8], spans_of: &LineSpans) -> Vec<Hit> {
    lines(bytes)
        .into_iter()
        .filter_map(|l| {
            let spans = spans_of(l.text);
            (!spans.is_empty()).then(|| {
                let (line, spans) = lossy(l.text, &spans);
                Hit {
                    number: l.number,
                    offset: l.offset,
                    line,
                    spans,
                }
            })
        })
        .collect()
}

/// The line as lossy UTF-8, with raw spans moved onto it.
fn lossy(line: &[u8], spans: &[(usize, usize)]) -> (String, Spans) {
    // Where each raw offset lands in the lossy text, as a start and as an
    // end.
    let mut starts = vec![0usize; line.len() + 1];
    let mut ends = vec![0usize; line.len() + 1];
    let (mut raw, mut out) = (0usize, 0usize);
    for chunk in line.utf8_chunks() {
        for _ in chunk.valid().bytes() {
            starts[raw] = out;
            ends[raw] = out;
            raw += 1;
            out += 1;
        }
        let invalid = chunk.invalid().len();
        if invalid > 0 {
            let after = out + '\u{FFFD}'.len_utf8();
            for k in 0..invalid {
                starts[raw + k] = out;
                ends[raw + k] = if k == 0 { out } else { after };
            }
            raw += invalid;
            out = after;
        }
    }
    starts[raw] = out;
    ends[raw] = out;
    let mut moved: Spans = Vec::new();
    for &(s, e) in spans {
        let start = starts[s];
        let end = if s == e { start } else { ends[e].max(start) };
        // Matches inside one invalid sequence land on its one character:
        // spans that come to overlap (or repeat) are joined.
        match moved.last_mut() {
            Some(last) if start < last.1 || (start, end) == *last => last.1 = last.1.max(end),
            _ => moved.push((start, end)),
        }
    }
    (String::from_utf8_lossy(line).into_owned(), moved)
}

/// The character ending at `at`, if the bytes before it are valid UTF-8.
fn char_before(line: &[u8], at: usize) -> Option<char> {
    (1..=at.min(4)).find_map(|k| {
        let s = std::str::from_utf8(&line[at - k..at]).ok()?;
        let mut chars = s.chars();
        let c = chars.next()?;
        chars.next().is_none().then_some(c)
    })
}

/// The character starting at `at`, if it is valid UTF-8.
fn char_after(line: &[u8], at: usize) -> Option<char> {
    line[at..].utf8_chunks().next()?.valid().chars().next()
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Returns true when `x` and `y` are the same character but for case:
/// equal, or with the same single-character lower case, or the same
/// single-character upper case (Unicode simple case folding for the
/// characters the tests use: `ſ` and `s` share `S`, the Kelvin sign and
/// `K` share `k`).
fn same_but_case(x: char, y: char) -> bool {
    fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
        let c = it.next()?;
        it.next().is_none().then_some(c)
    }
    x == y
        || single(x.to_lowercase()).is_some_and(|l| Some(l) == single(y.to_lowercase()))
        || single(x.to_uppercase()).is_some_and(|u| Some(u) == single(y.to_uppercase()))
}

/// The length in `line` of a match of `needle` at `at`, if there is one.
/// Without case, a fold can change a character's length (`s` and `ſ`), so
/// the needle is matched character by character.
fn match_len(line: &[u8], at: usize, needle: &str, case_insensitive: bool) -> Option<usize> {
    if !case_insensitive {
        return line[at..]
            .starts_with(needle.as_bytes())
            .then_some(needle.len());
    }
    let mut pos = at;
    for n in needle.chars() {
        let c = char_after(line, pos)?;
        if !same_but_case(c, n) {
            return None;
        }
        pos += c.len_utf8();
    }
    Some(pos - at)
}

/// The spans of `needles` in one line: non-overlapping, leftmost; at one
/// position the first needle given wins.
pub fn literal_spans(
    line: &[u8],
    needles: &[String],
    case_insensitive: bool,
    whole_word: bool,
) -> Spans {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let hit = needles.iter().find_map(|n| {
            let end = i + match_len(line, i, n, case_insensitive)?;
            (!whole_word || (!is_word(char_before(line, i)) && !is_word(char_after(line, end))))
                .then_some(end)
        });
        match hit {
            Some(end) => {
                out.push((i, end));
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// The regex oracle for one line, or the `regex` crate's error when it
/// refuses the pattern.
pub fn regex_spans(
    pattern: &str,
    case_insensitive: bool,
    whole_word: bool,
) -> Result<Box<LineSpans>, regex::Error> {
    let pattern = if whole_word {
        format!(r"\b{{start-half}}(?:{pattern})\b{{end-half}}")
    } else {
        pattern.to_owned()
    };
    let text_re = regex::RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive)
        .build()?;
    let bytes_re = regex::bytes::RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive)
        .build()?;
    Ok(Box::new(move |line: &[u8]| {
        // For whole words, an invalid sequence counts as one non-word
        // character of its length: U+0000, U+0080 or U+FFFF stands in.
        let text: Vec<u8> = if whole_word {
            line.utf8_chunks()
                .flat_map(|c| {
                    let stand_in = ["", "\0", "\u{80}", "\u{FFFF}"][c.invalid().len()];
                    c.valid().bytes().chain(stand_in.bytes())
                })
                .collect()
        } else {
            line.to_vec()
        };
        match std::str::from_utf8(&text) {
            Ok(text) => text_re
                .find_iter(text)
                .map(|m| (m.start(), m.end()))
                .collect(),
            // An empty match strictly inside a character of the lossy
            // decoding (a valid character, or one invalid sequence shown
            // as one U+FFFD) would split it: the `str` API never reports
            // one. The characters' edges, from the decoding itself:
            Err(_) => {
                let edge = character_edges(&text);
                bytes_re
                    .find_iter(&text)
                    .filter(|m| !m.is_empty() || edge[m.start()])
                    .map(|m| (m.start(), m.end()))
                    .collect()
            }
        }
    }))
}

/// Which offsets of `bytes` are edges of a character of its lossy
/// decoding (`String::from_utf8_lossy`): each valid character, and each
/// invalid sequence shown as one U+FFFD, is one character.
pub fn character_edges(bytes: &[u8]) -> Vec<bool> {
    let mut edge = vec![false; bytes.len() + 1];
    edge[0] = true;
    let mut at = 0;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            at += c.len_utf8();
            edge[at] = true;
        }
        at += chunk.invalid().len();
        edge[at] = true;
    }
    edge
}

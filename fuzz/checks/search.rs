//! The `search` check: small documents, a literal, several literals or a
//! regex built from parts, against a naive oracle that splits each
//! document on `\n`, strips one trailing `\r`, and matches each line alone
//! (literals by comparing windows, regexes with the `regex` crate's `str`
//! API, or for a line that is not UTF-8 its bytes API keeping only empty
//! matches that do not split a character). Pages followed by cursor must
//! rebuild the same answer.

use candor::{Corpus, Cursor, Documents, Limits, Query};

/// Reads an input byte by byte; past its end, every byte is zero.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[usize::from(self.byte()) % from.len()]
    }
}

const CHUNKS: &[&[u8]] = &[
    b"a",
    b"b",
    b"ab",
    b"s",
    b"K",
    b"x",
    b"1",
    b" ",
    b"_",
    b"\n",
    b"\n",
    b"\r\n",
    b"\r",
    "é".as_bytes(),
    "€".as_bytes(),
    "ſ".as_bytes(),
    "\u{212A}".as_bytes(),
    b"\xff",
    b"\xe2\x82",
    b"ab ab ab ",
    b"\0",
];
const NEEDLES: &[&str] = &[
    "a", "b", "ab", "s", "k", "K", "é", "ſ", "\u{212A}", " ", "_", "1", "x",
];
const LITERALS: &[&str] = &[
    "a", "b", "ab", "s", "k", "K", "x", "é", "ſ", "\u{212A}", "€", " ", "1", "xy",
];
const CLASSES: &[&str] = &[
    ".",
    r"\d",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    "[ab]",
    "[^ab]",
    "[a-c1]",
    r"\p{L}",
    r"\P{L}",
    "[[:alpha:]]",
    "[^é]",
];
const LOOKS: &[&str] = &["^", "$", r"\b", r"\B", r"\A", r"\z"];
const REPEATS: &[&str] = &[
    "?", "*", "+", "??", "*?", "+?", "{2}", "{0,2}", "{1,3}", "{2,}", "{1,2}?",
];
const NAMES: &[&str] = &["a", "b/c", "b-d", "é"];

/// A regex built from parts; every part is wrapped so that an operator
/// applies to all of it.
fn regex(r: &mut Reader<'_>, depth: u32) -> String {
    let choice = if depth == 0 {
        r.byte() % 3
    } else {
        r.byte() % 7
    };
    match choice {
        0 => regex_syntax_escape(r.pick(LITERALS)),
        1 => r.pick(CLASSES).to_owned(),
        2 => r.pick(LOOKS).to_owned(),
        3 => {
            let n = 2 + r.byte() % 2;
            (0..n)
                .map(|_| format!("(?:{})", regex(r, depth - 1)))
                .collect()
        }
        4 => {
            let n = 2 + r.byte() % 2;
            let parts: Vec<String> = (0..n).map(|_| regex(r, depth - 1)).collect();
            parts.join("|")
        }
        5 => format!("(?:{}){}", regex(r, depth - 1), r.pick(REPEATS)),
        _ => format!("({})", regex(r, depth - 1)),
    }
}

fn regex_syntax_escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_punctuation() {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Finds the spans of one line (its `\r` already stripped).
type LineSpans = dyn Fn(&[u8]) -> Vec<(usize, usize)>;

/// One matching line as the oracle sees it: path, line number, offset,
/// lossy text, spans in that text.
type Item = (String, u64, u64, String, Vec<(usize, usize)>);

/// Checks one input.
pub fn check(data: &[u8]) {
    let mut r = Reader { data, at: 0 };
    let mode = r.byte();
    let case_insensitive = mode & 4 != 0;
    let whole_word = mode & 8 != 0;
    let (query, line_spans): (Query, Box<LineSpans>) = match mode % 3 {
        0 | 1 => {
            let count = if mode.is_multiple_of(3) {
                1
            } else {
                1 + r.byte() % 3
            };
            let needles: Vec<String> = (0..count)
                .map(|_| {
                    let n = 1 + r.byte() % 3;
                    (0..n).map(|_| r.pick(NEEDLES)).collect()
                })
                .collect();
            let query = if count == 1 {
                Query::literal(needles[0].clone())
            } else {
                Query::literals(needles.clone())
            };
            (
                query,
                Box::new(move |line| literal_spans(line, &needles, case_insensitive, whole_word)),
            )
        }
        _ => {
            let pattern = regex(&mut r, 3);
            let Some(spans) = regex_spans(&pattern, case_insensitive, whole_word) else {
                return;
            };
            (Query::regex(pattern), spans)
        }
    };
    let query = query
        .case_insensitive(case_insensitive)
        .whole_word(whole_word);
    let mut docs = Documents::new();
    let mut want: Vec<Item> = Vec::new();
    let count = 1 + usize::from(r.byte() % 3);
    for name in &NAMES[..count] {
        let len = r.byte() % 24;
        let bytes: Vec<u8> = (0..len).flat_map(|_| r.pick(CHUNKS).to_vec()).collect();
        if !bytes.contains(&0) {
            want.extend(oracle(name, &bytes, &*line_spans));
        }
        docs.insert(name.to_string(), bytes)
            .expect("the names are valid document names");
    }
    // NAMES is in path order, so the oracle's items are in answer order.
    let limit = 1 + usize::from(r.byte() % 4);

    let full = match docs.search(&query, &Limits::new(), None) {
        Ok(full) => full,
        Err(e) => panic!("{query:?}: {e}"),
    };
    let got: Vec<Item> = full.iter().map(item).collect();
    assert_eq!(got, want, "{query:?}");
    assert!(full.is_complete(), "{query:?}");
    for m in full.iter() {
        for s in &m.matches {
            assert!(
                m.line.get(s.start..s.end).is_some(),
                "{query:?}: span {}..{} splits a character of {:?}",
                s.start,
                s.end,
                m.line
            );
        }
    }

    let mut paged: Vec<Item> = Vec::new();
    let mut cursor: Option<Cursor> = None;
    for page in 0.. {
        assert!(page <= want.len() + 1, "{query:?}: too many pages");
        let b = docs
            .search(&query, &Limits::new().limit(limit), cursor.as_ref())
            .unwrap_or_else(|e| panic!("{query:?}: page {page}: {e}"));
        assert!(b.len() <= limit);
        paged.extend(b.iter().map(item));
        match b.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => {
                assert!(b.completeness().is_exact(), "{query:?}");
                break;
            }
        }
    }
    assert_eq!(paged, want, "{query:?}: pages");
}

fn item(m: &candor::Match) -> Item {
    (
        m.path.clone(),
        m.line_number,
        m.byte_offset,
        m.line.clone(),
        m.matches.iter().map(|s| (s.start, s.end)).collect(),
    )
}

/// The oracle's items for one document.
fn oracle(name: &str, bytes: &[u8], spans_of: &LineSpans) -> Vec<Item> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut number = 0;
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| at + p);
        number += 1;
        let raw = &bytes[at..end];
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let spans = spans_of(line);
        if !spans.is_empty() {
            let (text, spans) = lossy(line, &spans);
            out.push((name.to_owned(), number, at as u64, text, spans));
        }
        at = end + 1;
    }
    out
}

/// The line as lossy UTF-8, with raw spans moved onto it: an offset inside
/// an invalid sequence starts at its U+FFFD and ends after it.
fn lossy(line: &[u8], spans: &[(usize, usize)]) -> (String, Vec<(usize, usize)>) {
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
    let spans = spans
        .iter()
        .map(|&(s, e)| {
            let start = starts[s];
            let end = if s == e { start } else { ends[e].max(start) };
            (start, end)
        })
        .collect();
    (String::from_utf8_lossy(line).into_owned(), spans)
}

fn char_before(line: &[u8], at: usize) -> Option<char> {
    (1..=at.min(4)).find_map(|k| {
        let s = std::str::from_utf8(&line[at - k..at]).ok()?;
        let mut chars = s.chars();
        let c = chars.next()?;
        chars.next().is_none().then_some(c)
    })
}

fn char_after(line: &[u8], at: usize) -> Option<char> {
    line[at..].utf8_chunks().next()?.valid().chars().next()
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Unicode simple case folding, for the characters used here: equal, or
/// the same single lower case, or the same single upper case.
fn same_but_case(x: char, y: char) -> bool {
    fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
        let c = it.next()?;
        it.next().is_none().then_some(c)
    }
    x == y
        || single(x.to_lowercase()).is_some_and(|l| Some(l) == single(y.to_lowercase()))
        || single(x.to_uppercase()).is_some_and(|u| Some(u) == single(y.to_uppercase()))
}

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

/// Non-overlapping, leftmost; at one position the first needle given wins.
fn literal_spans(
    line: &[u8],
    needles: &[String],
    case_insensitive: bool,
    whole_word: bool,
) -> Vec<(usize, usize)> {
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

/// The regex oracle for one line, or None when the regex crate itself
/// refuses the pattern.
fn regex_spans(pattern: &str, case_insensitive: bool, whole_word: bool) -> Option<Box<LineSpans>> {
    let pattern = if whole_word {
        format!(r"\b{{start-half}}(?:{pattern})\b{{end-half}}")
    } else {
        pattern.to_owned()
    };
    let text_re = regex::RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive)
        .build()
        .ok()?;
    let bytes_re = regex::bytes::RegexBuilder::new(&pattern)
        .case_insensitive(case_insensitive)
        .build()
        .ok()?;
    Some(Box::new(move |line: &[u8]| {
        // For whole words, a byte that is not UTF-8 counts as a non-word
        // character: a NUL stands in for it, byte for byte.
        let text: Vec<u8> = if whole_word {
            line.utf8_chunks()
                .flat_map(|c| {
                    c.valid()
                        .bytes()
                        .chain(std::iter::repeat_n(0u8, c.invalid().len()))
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
            Err(_) => bytes_re
                .find_iter(&text)
                .filter(|m| {
                    !m.is_empty()
                        || text
                            .get(m.start())
                            .is_none_or(|&b| !(0x80..0xC0).contains(&b))
                })
                .map(|m| (m.start(), m.end()))
                .collect(),
        }
    }))
}

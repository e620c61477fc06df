//! The `search` check: small documents (some starting with a byte-order
//! mark), a literal, several literals or a regex built from parts, against
//! the naive oracle of `oracle.rs`, which matches each line alone. Pages
//! followed by cursor must rebuild the same answer, and a column limit
//! must keep the matches of the window it shows.

use candor_search::{Corpus, Documents, Limits, Query};

use super::oracle::{
    BOM, LineSpans, Spans, character_edges, literal_spans, matching_lines, regex_spans, searched,
};
use super::pages::items;

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
    b"\x98",
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
    "(?-u:.)",
    r"(?-u:[\x80-\xFF])",
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

/// One matching line as the oracle sees it: path, line number, offset,
/// lossy text, spans in that text.
type Item = (String, u64, u64, String, Spans);

/// Checks one input.
pub fn check(data: &[u8]) {
    let mut r = Reader { data, at: 0 };
    let mode = r.byte();
    let case_insensitive = mode & 4 != 0;
    let whole_word = mode & 8 != 0;
    let (query, line_spans): (Query, Box<LineSpans>) = match mode % 3 {
        0 | 1 => {
            let count = if mode % 3 == 0 { 1 } else { 1 + r.byte() % 3 };
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
            // A pattern the `regex` crate itself refuses has no oracle.
            let Ok(spans) = regex_spans(&pattern, case_insensitive, whole_word) else {
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
    let mut sources: Vec<(&str, Vec<u8>)> = Vec::new();
    let count = 1 + usize::from(r.byte() % 3);
    for name in &NAMES[..count] {
        // The length byte's top values also start the document with a
        // byte-order mark (the lower ones read as they always did, so the
        // corpus keeps its meaning).
        let len_byte = r.byte();
        let len = len_byte % 24;
        let mut bytes: Vec<u8> = if len_byte >= 240 {
            BOM.to_vec()
        } else {
            Vec::new()
        };
        bytes.extend((0..len).flat_map(|_| r.pick(CHUNKS).to_vec()));
        if let Some(searched) = searched(&bytes) {
            want.extend(
                matching_lines(searched, &*line_spans)
                    .into_iter()
                    .map(|h| (name.to_string(), h.number, h.offset, h.line, h.spans)),
            );
        }
        sources.push((name, bytes.clone()));
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
        for w in m.matches.windows(2) {
            assert!(
                w[0].end <= w[1].start && w[0] != w[1],
                "{query:?}: spans overlap or repeat: {:?} in {:?}",
                m.matches,
                m.line
            );
        }
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

    // With a column limit, each line the full answer lists is listed,
    // cut to a window that keeps the spans within it; not a match more
    // or less, however many more the line holds.
    let max_columns = 1 + usize::from(r.byte() % 16);
    let cut_query = query.clone().max_columns(max_columns);
    let cut = match docs.search(&cut_query, &Limits::new(), None) {
        Ok(cut) => cut,
        Err(e) => panic!("{cut_query:?}: {e}"),
    };
    assert_eq!(cut.len(), full.len(), "{cut_query:?}");
    // Every page the search gives decodes back to itself.
    for page in [&full, &cut] {
        let json = page.to_json().expect("a page serializes");
        let back: candor_search::Bounded<candor_search::Match> = match serde_json::from_str(&json) {
            Ok(back) => back,
            Err(e) => panic!("{cut_query:?}: its own page does not decode: {e}: {json}"),
        };
        assert_eq!(back.to_json().expect("serializes"), json, "{cut_query:?}");
    }
    for (c, f) in cut.iter().zip(full.iter()) {
        assert_eq!(
            (&c.path, c.line_number, c.byte_offset),
            (&f.path, f.line_number, f.byte_offset)
        );
        let Some(line_cut) = c.line_cut else {
            assert_eq!(item(c), item(f), "{cut_query:?}: a line not cut");
            continue;
        };
        // Where the line is not UTF-8, the window ends at the last edge
        // of a character within `max_columns` bytes of its start: a lone
        // continuation byte is a character of its own.
        if f.line.contains('\u{FFFD}') {
            let raw = raw_line(&sources, f);
            let from = line_cut.kept_from as usize;
            let edges = character_edges(raw);
            let end = (from + max_columns).min(raw.len());
            let to = (from + 1..=end).rev().find(|&b| edges[b]).unwrap_or(from);
            assert_eq!(
                c.line,
                String::from_utf8_lossy(&raw[from..to]),
                "{cut_query:?}: the window of {raw:?} from {from}"
            );
            continue;
        }
        // Where the line is valid UTF-8, its shown text is its bytes.
        let (from, to) = (
            line_cut.kept_from as usize,
            line_cut.kept_from as usize + c.line.len(),
        );
        assert!(c.line.len() <= max_columns && f.line.len() > max_columns);
        assert_eq!(c.line, f.line[from..to], "{cut_query:?}: the kept text");
        let clipped: Vec<(usize, usize)> = f
            .matches
            .iter()
            .map(|s| (s.start, s.end))
            .filter(|&(s, e)| {
                if s == e {
                    from <= s && s <= to
                } else {
                    s.max(from) < e.min(to)
                }
            })
            .map(|(s, e)| (s.max(from) - from, e.min(to) - from))
            .collect();
        let got: Vec<(usize, usize)> = c.matches.iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(
            got, clipped,
            "{cut_query:?}: the spans in {:?} of {:?}",
            c.line, f.line
        );
    }

    let what = format!("{query:?}");
    let limits = Limits::new().limit(limit);
    let paged: Vec<Item> = items(
        &what,
        want.len() + 2,
        limit,
        |cursor| docs.search(&query, &limits, cursor),
        item,
    );
    assert_eq!(paged, want, "{query:?}: pages");
}

/// The bytes of the line `m` lists, without its line ending.
fn raw_line<'a>(sources: &'a [(&str, Vec<u8>)], m: &candor_search::Match) -> &'a [u8] {
    let bytes = &sources
        .iter()
        .find(|(name, _)| *name == m.path)
        .expect("a listed document")
        .1[m.byte_offset as usize..];
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn item(m: &candor_search::Match) -> Item {
    (
        m.path.clone(),
        m.line_number,
        m.byte_offset,
        m.line.clone(),
        m.matches.iter().map(|s| (s.start, s.end)).collect(),
    )
}

//! Differential properties of the text-search engine against a naive
//! oracle written here, one property per rule of DESIGN.md that applies to
//! search.
//!
//! The oracle splits each document on `\n`, strips one trailing `\r` from
//! each line, and scans every line left to right by comparing windows:
//! non-overlapping, leftmost, and for several literals the first one given
//! wins at a position. Whole words check the character on each side with
//! `char::is_alphanumeric` (invalid UTF-8 and the line's edge are not word
//! characters; case folds compare characters, `ſ` with `s`). Regexes run
//! with the `regex` crate on each line alone, in single-line mode, so that
//! `^`/`$` are the line's edges: the `str` API for a line of UTF-8, the
//! bytes API otherwise (keeping only the empty matches that do not split a
//! character). The engine instead searches the whole buffer with rewritten
//! anchors, which is what the comparison checks. Regexes come from a fixed
//! list and from a generator that builds them from parts (optional,
//! repeated, lazy, counted and nested groups, classes, anchors,
//! alternations, Unicode literals).
//!
//! Every property runs on the in-memory `Documents` and on a `Tree` over a
//! temporary directory with the same files, searched with 1 and with 4
//! threads; the two trees must agree to the byte, cursors included.
//!
//! Corpora come from a small alphabet so that matches are frequent, with
//! CRLF endings, no final newline, empty documents, invalid UTF-8, long
//! lines, and now and then a NUL byte that makes a document binary.

use std::collections::BTreeMap;
use std::time::Duration;

use candor::{
    Bounded, BudgetKind, Completeness, Corpus, Cursor, Documents, ErrorKind, Excerpt, Limits,
    Match, Query, SkipReason, Total, Tree,
};
use proptest::prelude::*;

use crate::core_support::{Pick, pick_below};
use proptest::sample::Index;
use proptest::test_runner::Config;
use tempfile::TempDir;

fn config(cases: u32) -> Config {
    Config {
        cases,
        // Keep failures in the report, not in files beside the tests.
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------
// Corpora

/// Names that can all live in one tree (no name is a folder of another),
/// chosen so that component-wise order differs from plain string order
/// ("a/b" < "a-c" < "a.txt", "B" < "_u" < "a").
const NAMES: &[&str] = &[
    "B",
    "_u",
    "a/b",
    "a/b-",
    "a/c/d.txt",
    "a/c/e",
    "a-c",
    "a.txt",
    "a0",
    "b",
    "b.md",
    "c/x/y/z",
    "zz/a",
    "é.txt",
];

#[derive(Clone)]
struct Doc {
    name: String,
    bytes: Vec<u8>,
}

impl std::fmt::Debug for Doc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} => b\"{}\"", self.name, self.bytes.escape_ascii())
    }
}

impl Doc {
    fn is_binary(&self) -> bool {
        self.bytes.contains(&0)
    }
}

/// What a corpus may hold beside the common alphabet.
#[derive(Debug, Clone, Copy)]
struct Alphabet {
    /// Bytes that are not UTF-8 (0xff, a cut "€").
    invalid_utf8: bool,
    /// `\r` that is not part of a line ending (in the middle of a line).
    lone_cr: bool,
    /// Now and then a NUL byte, which makes the document binary.
    nul: bool,
    /// Every document that is not empty ends with `\n`.
    final_newline: bool,
}

const COMMON: Alphabet = Alphabet {
    invalid_utf8: true,
    lone_cr: false,
    nul: true,
    final_newline: false,
};

const WITH_FINAL_NEWLINES: Alphabet = Alphabet {
    final_newline: true,
    ..COMMON
};

fn chunk(alphabet: Alphabet) -> BoxedStrategy<Vec<u8>> {
    let mut options: Vec<(u32, BoxedStrategy<Vec<u8>>)> = vec![
        (6, Just(b"a".to_vec()).boxed()),
        (4, Just(b"b".to_vec()).boxed()),
        (4, Just(b"ab".to_vec()).boxed()),
        (2, Just(b"s".to_vec()).boxed()),
        (2, Just(b"K".to_vec()).boxed()),
        (1, Just(b"A".to_vec()).boxed()),
        (1, Just("é".as_bytes().to_vec()).boxed()),
        (1, Just("€".as_bytes().to_vec()).boxed()),
        // The long s and the Kelvin sign fold to ASCII `s` and `k`.
        (1, Just("ſ".as_bytes().to_vec()).boxed()),
        (1, Just("\u{212A}".as_bytes().to_vec()).boxed()),
        (1, Just(b"x".to_vec()).boxed()),
        (3, Just(b" ".to_vec()).boxed()),
        (1, Just(b"_".to_vec()).boxed()),
        (1, Just(b"1".to_vec()).boxed()),
        (4, Just(b"\n".to_vec()).boxed()),
        (2, Just(b"\r\n".to_vec()).boxed()),
        (1, (1..300usize).prop_map(|n| b"ab ".repeat(n)).boxed()),
    ];
    if alphabet.invalid_utf8 {
        options.push((1, Just(vec![0xff]).boxed()));
        options.push((1, Just(vec![0xe2, 0x82]).boxed()));
    }
    if alphabet.lone_cr {
        options.push((2, Just(b"\r".to_vec()).boxed()));
    }
    prop::strategy::Union::new_weighted(options).boxed()
}

fn content(alphabet: Alphabet) -> impl Strategy<Value = Vec<u8>> {
    let nul = if alphabet.nul { 0.1 } else { 0.0 };
    (
        prop::collection::vec(chunk(alphabet), 0..40),
        prop::option::weighted(nul, any::<Index>()),
        // Sometimes end with a lone "\r" (no final newline): it is stripped
        // like the "\r" of a CRLF ending.
        prop::bool::weighted(0.05),
    )
        .prop_map(move |(chunks, nul, final_cr)| {
            let mut bytes = chunks.concat();
            if final_cr {
                bytes.push(b'\r');
            }
            if alphabet.final_newline && !bytes.is_empty() && !bytes.ends_with(b"\n") {
                bytes.push(b'\n');
            }
            if let Some(i) = nul {
                let at = i.index(bytes.len() + 1);
                bytes.insert(at, 0);
            }
            bytes
        })
}

fn corpus(alphabet: Alphabet) -> impl Strategy<Value = Vec<Doc>> {
    prop::sample::subsequence(NAMES.to_vec(), 0..=NAMES.len())
        .prop_flat_map(move |names| {
            let n = names.len();
            (
                Just(names),
                prop::collection::vec(content(alphabet), n),
                // The order in which the documents are handed to
                // `Documents`: it must not matter.
                any::<u64>(),
            )
        })
        .prop_map(|(names, contents, seed)| {
            let mut docs: Vec<Doc> = names
                .into_iter()
                .zip(contents)
                .map(|(name, bytes)| Doc {
                    name: name.to_owned(),
                    bytes,
                })
                .collect();
            // A cheap deterministic shuffle from the seed.
            let len = docs.len();
            if len > 1 {
                for i in (1..len).rev() {
                    let j = (seed.rotate_left(i as u32) % (i as u64 + 1)) as usize;
                    docs.swap(i, j);
                }
            }
            docs
        })
}

/// The same documents, in memory and on disk.
struct Fixture {
    docs: Documents<'static>,
    tree1: Tree,
    tree2: Tree,
    tree4: Tree,
    _dir: TempDir,
}

fn fixture(corpus: &[Doc]) -> Fixture {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut docs = Documents::new();
    for doc in corpus {
        let path = dir.path().join(&doc.name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, &doc.bytes).expect("write");
        docs.insert(doc.name.clone(), doc.bytes.clone())
            .expect("a generated name is a document name");
    }
    let tree = Tree::new(dir.path()).expect("a tree");
    Fixture {
        docs,
        tree1: tree.clone().threads(1),
        // Alone for the first millisecond (the default): small corpora
        // end before the other thread starts.
        tree2: tree.clone().threads(2),
        // The other threads start after the first file.
        tree4: tree.threads(4).start_threads_after(Duration::ZERO),
        _dir: dir,
    }
}

// ---------------------------------------------------------------------------
// Queries

#[derive(Debug, Clone)]
enum Pattern {
    Literal(String),
    Literals(Vec<String>),
    Regex(String),
}

#[derive(Debug, Clone)]
struct Q {
    pattern: Pattern,
    case_insensitive: bool,
    whole_word: bool,
}

impl Q {
    fn query(&self) -> Query {
        let q = match &self.pattern {
            Pattern::Literal(n) => Query::literal(n.clone()),
            Pattern::Literals(ns) => Query::literals(ns.clone()),
            Pattern::Regex(p) => Query::regex(p.clone()),
        };
        q.case_insensitive(self.case_insensitive)
            .whole_word(self.whole_word)
    }
}

fn needle() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a", "b", "ab", "s", "k", "K", "A", "é", " ", "_", "1", "\r", "ſ", "\u{212A}", "É",
        ]),
        1..4,
    )
    .prop_map(|parts| parts.concat())
}

/// Regexes whose semantics per line do not depend on where the line ends
/// or on a `\r` (those are checked by their own properties below).
const REGEXES: &[&str] = &[
    "a",
    "ab",
    "b+",
    "[ab]+",
    "a.b",
    "^a",
    "b$",
    "^",
    r"\w+",
    r"\bab\b",
    "a|ab",
    "ab|a",
    r"\w*ab\w*",
    "s",
    "é+",
    "[^ab\r ]+",
    "x?ab",
    "b{2,}",
    r"\d",
    "(?:ab)+$",
    r"\Aa",
    r"b\z",
    "K",
    "€",
    r"a\b",
    // Matches the empty string everywhere: see `query_and_corpus`.
    "b*",
    "(a)(b)?",
    r"\w+ab",
    "[[:alpha:]]{3}",
];

/// A regex built from parts, printed as pattern text by `Display`.
#[derive(Debug, Clone)]
enum Re {
    /// Pattern text that matches one literal string.
    Literal(&'static str),
    /// Pattern text of one character class.
    Class(&'static str),
    /// Pattern text of one zero-width assertion.
    Look(&'static str),
    /// A group, capturing or not.
    Group(Box<Re>, bool),
    /// A repetition operator after its operand (greedy, lazy, counted).
    Repeat(Box<Re>, &'static str),
    Concat(Vec<Re>),
    Alternation(Vec<Re>),
}

impl Re {
    /// Returns true when an operator placed after this part applies to
    /// all of it.
    fn is_atom(&self) -> bool {
        match self {
            Re::Literal(text) => text.chars().count() == 1 || text.starts_with('\\'),
            Re::Class(_) | Re::Group(..) => true,
            Re::Look(_) | Re::Repeat(..) | Re::Concat(_) | Re::Alternation(_) => false,
        }
    }
}

impl std::fmt::Display for Re {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Re::Literal(text) | Re::Class(text) | Re::Look(text) => f.write_str(text),
            Re::Group(sub, true) => write!(f, "({sub})"),
            Re::Group(sub, false) => write!(f, "(?:{sub})"),
            Re::Repeat(sub, op) if sub.is_atom() => write!(f, "{sub}{op}"),
            Re::Repeat(sub, op) => write!(f, "(?:{sub}){op}"),
            Re::Concat(subs) => subs.iter().try_for_each(|sub| match sub {
                Re::Alternation(_) => write!(f, "(?:{sub})"),
                _ => write!(f, "{sub}"),
            }),
            Re::Alternation(subs) => {
                for (i, sub) in subs.iter().enumerate() {
                    if i > 0 {
                        f.write_str("|")?;
                    }
                    write!(f, "{sub}")?;
                }
                Ok(())
            }
        }
    }
}

/// Literals of the corpus alphabet, some of several bytes, some with
/// case folds outside ASCII (`s` and the long s, `k` and the Kelvin sign).
const RE_LITERALS: &[&str] = &[
    "a", "b", "ab", "ba", "s", "k", "K", "A", "x", "é", "É", "ſ", "\u{212A}", "€", " ", "_", "1",
    "a b",
];

const RE_CLASSES: &[&str] = &[
    ".",
    r"\d",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    "[ab]",
    "[^ab]",
    "[^a ]",
    "[a-c1]",
    "[sk]",
    r"\p{L}",
    r"\P{L}",
    r"\p{Greek}",
    "[[:alpha:]]",
    "[[:^alpha:]]",
    "[é€]",
    "[^é]",
];

const RE_LOOKS: &[&str] = &["^", "$", r"\b", r"\B", r"\A", r"\z"];

const RE_REPEATS: &[&str] = &[
    "?", "*", "+", "??", "*?", "+?", "{2}", "{0,2}", "{1,3}", "{2,}", "{1,2}?", "{0,1}", "{3}?",
];

/// Regexes of optional, repeated (greedy, lazy, counted) and nested
/// groups over classes, anchors, alternations and Unicode literals.
fn generated_regex() -> impl Strategy<Value = Re> {
    let leaf = prop_oneof![
        4 => prop::sample::select(RE_LITERALS).prop_map(Re::Literal),
        3 => prop::sample::select(RE_CLASSES).prop_map(Re::Class),
        1 => prop::sample::select(RE_LOOKS).prop_map(Re::Look),
    ];
    leaf.prop_recursive(4, 16, 4, |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 2..4).prop_map(Re::Concat),
            2 => prop::collection::vec(inner.clone(), 2..4).prop_map(Re::Alternation),
            3 => (inner.clone(), prop::sample::select(RE_REPEATS))
                .prop_map(|(sub, op)| Re::Repeat(Box::new(sub), op)),
            2 => (inner, any::<bool>()).prop_map(|(sub, capture)| Re::Group(Box::new(sub), capture)),
        ]
    })
}

fn pattern() -> impl Strategy<Value = Pattern> {
    prop_oneof![
        3 => needle().prop_map(Pattern::Literal),
        2 => prop::collection::vec(needle(), 1..4).prop_map(Pattern::Literals),
        2 => prop::sample::select(REGEXES).prop_map(|p| Pattern::Regex(p.to_owned())),
        3 => generated_regex().prop_map(|re| Pattern::Regex(re.to_string())),
    ]
}

fn query() -> impl Strategy<Value = Q> {
    (
        pattern(),
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(pattern, case_insensitive, whole_word)| Q {
            pattern,
            case_insensitive,
            whole_word,
        })
}

/// A query and a corpus for it, from `base`.
///
/// Two engine bugs are kept out of these corpora and checked by their own
/// (ignored) properties at the end of this file, so that the properties
/// here keep running: whole-word queries get no invalid UTF-8 (the engine
/// finds no whole word next to an invalid byte), and `b*`, which matches
/// the empty string everywhere, runs without whole words (the engine
/// matches between the `\r` and `\n` of a CRLF ending) and without
/// invalid UTF-8 (an empty match inside an invalid sequence becomes a
/// three-byte span).
fn query_and_corpus(base: Alphabet) -> impl Strategy<Value = (Q, Vec<Doc>)> {
    query().prop_flat_map(move |mut q| {
        let empty_matching = matches!(&q.pattern, Pattern::Regex(p) if p == "b*");
        if empty_matching {
            q.whole_word = false;
        }
        let alphabet = Alphabet {
            invalid_utf8: base.invalid_utf8 && !q.whole_word && !empty_matching,
            ..base
        };
        (Just(q), corpus(alphabet))
    })
}

// ---------------------------------------------------------------------------
// The oracle

/// A matching line as the oracle sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Want {
    path: String,
    line_number: u64,
    byte_offset: u64,
    line: String,
    matches: Vec<(usize, usize)>,
}

fn want_of(m: &Match) -> Want {
    assert!(m.line_cut.is_none(), "no column limit was set: {m:?}");
    Want {
        path: m.path.clone(),
        line_number: m.line_number,
        byte_offset: m.byte_offset,
        line: m.line.clone(),
        matches: m.matches.iter().map(|s| (s.start, s.end)).collect(),
    }
}

fn wants_of(b: &Bounded<Match>) -> Vec<Want> {
    b.iter().map(want_of).collect()
}

/// Component-wise path order: "a/b" < "a-c".
fn path_order(a: &str, b: &str) -> std::cmp::Ordering {
    let ca: Vec<&[u8]> = a.split('/').map(str::as_bytes).collect();
    let cb: Vec<&[u8]> = b.split('/').map(str::as_bytes).collect();
    ca.cmp(&cb)
}

/// The lines of a document: start offset and raw bytes without `\n`. The
/// empty piece after a final `\n` is not a line.
fn lines_of(bytes: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| at + p);
        out.push((at, &bytes[at..end]));
        at = end + 1;
    }
    out
}

fn shown(raw: &[u8]) -> &[u8] {
    raw.strip_suffix(b"\r").unwrap_or(raw)
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
    let rest = &line[at..];
    let chunk = rest.utf8_chunks().next()?;
    chunk.valid().chars().next()
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn literal_spans(
    line: &[u8],
    needles: &[Vec<u8>],
    case_insensitive: bool,
    whole_word: bool,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let hit = needles.iter().find_map(|n| {
            let end = i + match_len(line, i, n, case_insensitive)?;
            let ok =
                !whole_word || (!is_word(char_before(line, i)) && !is_word(char_after(line, end)));
            ok.then_some(end)
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

/// Returns true when `x` and `y` are the same character but for case:
/// they are equal, or have the same single-character lower case, or the
/// same single-character upper case (which is Unicode simple case folding
/// for the alphabet used here: `ſ` and `s` share `S`, the Kelvin sign and
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
/// Without case, a case fold can change a character's length (`s` and
/// `ſ`), so the needle is matched character by character.
fn match_len(line: &[u8], at: usize, needle: &[u8], case_insensitive: bool) -> Option<usize> {
    if !case_insensitive {
        return line[at..].starts_with(needle).then_some(needle.len());
    }
    let needle = std::str::from_utf8(needle).expect("needles are text");
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

/// Builds the oracle's matcher for one line (`\r` already stripped).
/// Finds the spans of one line.
type LineMatcher = Box<dyn Fn(&[u8]) -> Vec<(usize, usize)>>;

fn line_matcher(q: &Q) -> LineMatcher {
    match &q.pattern {
        Pattern::Literal(n) => {
            let needles = vec![n.as_bytes().to_vec()];
            let (ci, ww) = (q.case_insensitive, q.whole_word);
            Box::new(move |line| literal_spans(line, &needles, ci, ww))
        }
        Pattern::Literals(ns) => {
            let needles: Vec<Vec<u8>> = ns.iter().map(|n| n.as_bytes().to_vec()).collect();
            let (ci, ww) = (q.case_insensitive, q.whole_word);
            Box::new(move |line| literal_spans(line, &needles, ci, ww))
        }
        Pattern::Regex(p) => {
            let p = if q.whole_word {
                format!(r"\b{{start-half}}(?:{p})\b{{end-half}}")
            } else {
                p.clone()
            };
            // Single-line mode: the haystack is one line, so `^`/`$` are its
            // edges. A line of valid UTF-8 goes to the `str` API, whose
            // empty matches never split a character; other lines to the
            // bytes API, keeping only the empty matches that do not sit
            // before a continuation byte (0x80-0xBF), the same rule.
            let re = regex::RegexBuilder::new(&p)
                .case_insensitive(q.case_insensitive)
                .build()
                .expect("the oracle's regex compiles");
            let bytes_re = regex::bytes::RegexBuilder::new(&p)
                .case_insensitive(q.case_insensitive)
                .build()
                .expect("the oracle's regex compiles");
            let whole_word = q.whole_word;
            Box::new(move |line| {
                // For whole words, a byte that is not UTF-8 counts as a
                // non-word character: stand a NUL in for it, byte for byte.
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
                    Ok(text) => re
                        .find_iter(text)
                        .map(|m| (m.start(), m.end()))
                        .collect::<Vec<_>>(),
                    Err(_) => bytes_re
                        .find_iter(&text)
                        .filter(|m| {
                            !m.is_empty()
                                || text
                                    .get(m.start())
                                    .is_none_or(|&b| !(0x80..0xC0).contains(&b))
                        })
                        .map(|m| (m.start(), m.end()))
                        .collect::<Vec<_>>(),
                }
            })
        }
    }
}

/// The line as lossy UTF-8, with raw spans moved to its offsets.
fn lossy(line: &[u8], spans: &[(usize, usize)]) -> (String, Vec<(usize, usize)>) {
    // Where each raw offset lands in the lossy text, as a start and as an
    // end: an offset inside an invalid sequence starts at its U+FFFD and
    // ends after it, so a non-empty match never shrinks to nothing.
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
    let text = String::from_utf8_lossy(line).into_owned();
    let spans = spans
        .iter()
        .map(|&(s, e)| {
            let start = starts[s];
            let end = if s == e { start } else { ends[e].max(start) };
            (start, end)
        })
        .collect();
    (text, spans)
}

/// The oracle's full answer for `q` on `corpus` within `filters` (empty:
/// all), in path order, and the binary documents it left out.
struct Oracle {
    items: Vec<Want>,
    /// Matching lines per file, in path order.
    counts: Vec<(String, u64)>,
    binary: Vec<String>,
}

fn oracle(corpus: &[Doc], q: &Q, filters: &[String]) -> Oracle {
    let matcher = line_matcher(q);
    let mut docs: Vec<&Doc> = corpus
        .iter()
        .filter(|d| {
            filters.is_empty()
                || filters
                    .iter()
                    .any(|f| d.name == *f || d.name.starts_with(&format!("{f}/")))
        })
        .collect();
    docs.sort_by(|a, b| path_order(&a.name, &b.name));
    let mut o = Oracle {
        items: Vec::new(),
        counts: Vec::new(),
        binary: Vec::new(),
    };
    for doc in docs {
        if doc.is_binary() {
            o.binary.push(doc.name.clone());
            continue;
        }
        let mut n = 0;
        for (i, (start, raw)) in lines_of(&doc.bytes).into_iter().enumerate() {
            let line = shown(raw);
            let spans = matcher(line);
            if spans.is_empty() {
                continue;
            }
            n += 1;
            let (text, spans) = lossy(line, &spans);
            o.items.push(Want {
                path: doc.name.clone(),
                line_number: i as u64 + 1,
                byte_offset: start as u64,
                line: text,
                matches: spans,
            });
        }
        if n > 0 {
            o.counts.push((doc.name.clone(), n));
        }
    }
    o
}

// ---------------------------------------------------------------------------
// Checks shared by the properties

/// Checks that every span of every item falls on character boundaries of
/// its line (the line is text; a span inside a character cannot be shown).
fn spans_on_char_boundaries(name: &str, b: &Bounded<Match>) -> Result<(), TestCaseError> {
    for m in b.iter() {
        for s in &m.matches {
            prop_assert!(
                s.start <= s.end && m.line.get(s.start..s.end).is_some(),
                "{}: span {}..{} is not on character boundaries of {:?}",
                name,
                s.start,
                s.end,
                m.line
            );
        }
    }
    Ok(())
}

fn counts_of(b: &Bounded<candor::FileCount>) -> Vec<(String, u64)> {
    b.iter().map(|c| (c.path.clone(), c.count)).collect()
}

fn json_len<T: serde::Serialize>(b: &Bounded<T>) -> usize {
    b.to_json().expect("serializes").len()
}

/// The corpora of a fixture, with names for messages.
fn corpora(f: &Fixture) -> [(&'static str, &dyn Corpus); 4] {
    [
        ("documents", &f.docs),
        ("tree, 1 thread", &f.tree1),
        ("tree, 2 threads, alone first", &f.tree2),
        ("tree, 4 threads at once", &f.tree4),
    ]
}

/// The parts of a result that must not depend on the corpus kind (cursors
/// do: they are bound to the corpus).
fn portable<T: Clone>(b: &Bounded<T>) -> (Vec<T>, Completeness, Total, candor::Skipped) {
    (
        b.items().to_vec(),
        b.completeness().clone(),
        b.total(),
        b.skipped().clone(),
    )
}

/// Checks that the trees (one thread, then the others of `corpora`) agree
/// exactly, and with the documents on everything but cursors.
fn agree<T: Clone + PartialEq + std::fmt::Debug>(
    results: &[(&'static str, Bounded<T>)],
) -> Result<(), TestCaseError> {
    let (_, docs) = &results[0];
    let (_, t1) = &results[1];
    for (name, tree) in &results[2..] {
        prop_assert_eq!(t1, tree, "{} differs from the tree on one thread", name);
    }
    prop_assert_eq!(portable(docs), portable(t1), "documents and tree differ");
    Ok(())
}

/// Checks that every corpus of `corpus` lists exactly the oracle's lines
/// for `q`, with no limit.
fn every_corpus_lists_the_oracle(corpus: &[Doc], q: &Q) -> Result<(), TestCaseError> {
    let o = oracle(corpus, q, &[]);
    let f = fixture(corpus);
    for (name, c) in corpora(&f) {
        let b = c
            .search(&q.query(), &Limits::new(), None)
            .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
        spans_on_char_boundaries(name, &b)?;
        prop_assert_eq!(wants_of(&b), o.items.clone(), "{}", name);
    }
    Ok(())
}

fn filters_of(corpus: &[Doc], picks: &[Index]) -> Vec<String> {
    // Every file and every folder above one is a valid filter.
    let mut candidates: Vec<String> = Vec::new();
    for doc in corpus {
        let parts: Vec<&str> = doc.name.split('/').collect();
        for k in 1..=parts.len() {
            let p = parts[..k].join("/");
            if !candidates.contains(&p) {
                candidates.push(p);
            }
        }
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    candidates.sort();
    let mut out: Vec<String> = picks.iter().map(|i| i.get(&candidates).clone()).collect();
    out.sort();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(config(96))]

    /// Without limits every query is exact and equals the oracle: search,
    /// count, files_with_matches and search_each, on all three corpora;
    /// binary documents are counted and never searched.
    #[test]
    fn exact_answers_equal_the_oracle(
        (q, corpus) in query_and_corpus(COMMON),
        picks in prop::collection::vec(any::<Index>(), 0..3),
        count_total in any::<bool>(),
    ) {
        let filters = filters_of(&corpus, &picks);
        let o = oracle(&corpus, &q, &filters);
        let query = q.query().paths(filters.clone());
        let limits = Limits::new().count_total(count_total);
        let f = fixture(&corpus);
        let mut searches = Vec::new();
        let mut counts = Vec::new();
        let mut files = Vec::new();
        for (name, c) in corpora(&f) {
            let b = c.search(&query, &limits, None).map_err(|e| {
                TestCaseError::fail(format!("{name}: search failed: {e}"))
            })?;
            prop_assert!(b.completeness().is_exact(), "{}: {:?}", name, b.completeness());
            spans_on_char_boundaries(name, &b)?;
            prop_assert_eq!(wants_of(&b), o.items.clone(), "{}: items", name);
            prop_assert_eq!(b.total(), Total::Exact(o.items.len() as u64), "{}", name);
            prop_assert!(b.next_cursor().is_none(), "{}: an exact result has no cursor", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::Binary), o.binary.len() as u64, "{}", name);
            prop_assert_eq!(b.skipped().total(), o.binary.len() as u64, "{}", name);
            prop_assert!(b.is_complete(), "{}: binary files are policy, not errors", name);

            let mut streamed = Vec::new();
            let end = c.search_each(&query, &limits, None, &mut |m| streamed.push(want_of(m)))
                .map_err(|e| TestCaseError::fail(format!("{name}: search_each failed: {e}")))?;
            prop_assert_eq!(&streamed, &o.items, "{}: streamed items", name);
            prop_assert_eq!(end.count(), o.items.len(), "{}", name);
            prop_assert!(end.is_complete(), "{}", name);
            prop_assert_eq!(end.skipped(), b.skipped(), "{}", name);

            let n = c.count(&query, &limits, None).map_err(|e| {
                TestCaseError::fail(format!("{name}: count failed: {e}"))
            })?;
            prop_assert_eq!(counts_of(&n), o.counts.clone(), "{}: counts", name);
            prop_assert_eq!(n.total(), Total::Exact(o.counts.len() as u64), "{}", name);
            prop_assert!(n.is_complete(), "{}", name);

            let w = c.files_with_matches(&query, &limits, None).map_err(|e| {
                TestCaseError::fail(format!("{name}: files_with_matches failed: {e}"))
            })?;
            let want_files: Vec<String> = o.counts.iter().map(|(p, _)| p.clone()).collect();
            prop_assert_eq!(w.items(), &want_files[..], "{}: files", name);
            prop_assert!(w.is_complete(), "{}", name);

            searches.push((name, b));
            counts.push((name, n));
            files.push((name, w));
        }
        agree(&searches)?;
        agree(&counts)?;
        agree(&files)?;
    }

    /// find_in_file is search confined to one file.
    #[test]
    fn find_in_file_equals_the_oracle_for_that_file(
        (q, corpus) in query_and_corpus(COMMON),
        pick in any::<Index>(),
    ) {
        prop_assume!(!corpus.is_empty());
        let doc = pick.get(&corpus);
        let o = oracle(&corpus, &q, std::slice::from_ref(&doc.name));
        let f = fixture(&corpus);
        let mut results = Vec::new();
        for (name, c) in corpora(&f) {
            let b = c.find_in_file(&doc.name, &q.query(), &Limits::new(), None).map_err(|e| {
                TestCaseError::fail(format!("{name}: find_in_file failed: {e}"))
            })?;
            prop_assert!(b.completeness().is_exact(), "{}", name);
            prop_assert_eq!(wants_of(&b), o.items.clone(), "{}", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::Binary), u64::from(doc.is_binary()), "{}", name);
            results.push((name, b));
        }
        agree(&results)?;
    }
}

fn pick() -> impl Strategy<Value = Pick> {
    pick_below(30)
}

/// A byte budget relative to the exact answer's JSON size.
#[derive(Debug, Clone, Copy)]
enum BytesPick {
    FullMinusOne,
    Full,
    Fraction(u8),
    Any(usize),
}

impl BytesPick {
    fn resolve(self, full: usize) -> usize {
        match self {
            BytesPick::FullMinusOne => full - 1,
            BytesPick::Full => full,
            BytesPick::Fraction(p) => full * usize::from(p) / 100,
            BytesPick::Any(n) => n,
        }
    }
}

fn bytes_pick() -> impl Strategy<Value = BytesPick> {
    prop_oneof![
        Just(BytesPick::FullMinusOne),
        Just(BytesPick::Full),
        (1..100u8).prop_map(BytesPick::Fraction),
        (0..3000usize).prop_map(BytesPick::Any),
    ]
}

/// Checks one limited search result against the oracle's full answer
/// (`answer`): rules 1 to 5.
fn check_limited(
    name: &str,
    b: &Bounded<Match>,
    answer: &[Want],
    limit: usize,
    max_bytes: Option<usize>,
    count_total: bool,
) -> Result<(), TestCaseError> {
    let got = wants_of(b);
    prop_assert!(
        got.len() <= limit,
        "{}: {} items over the limit {}",
        name,
        got.len(),
        limit
    );
    prop_assert!(
        got.len() <= answer.len(),
        "{}: more items than the answer",
        name
    );
    prop_assert_eq!(&got[..], &answer[..got.len()], "{}: not a prefix", name);
    if let Some(max) = max_bytes {
        prop_assert!(
            json_len(b) <= max,
            "{}: {} bytes over max_bytes {}",
            name,
            json_len(b),
            max
        );
    }
    match b.completeness() {
        Completeness::Exact => {
            prop_assert_eq!(got.len(), answer.len(), "{}: exact but short", name);
            prop_assert_eq!(b.total(), Total::Exact(answer.len() as u64), "{}", name);
            prop_assert!(b.next_cursor().is_none(), "{}", name);
        }
        Completeness::TruncatedByLimit {
            limit: applied,
            requested,
        } => {
            prop_assert_eq!(*applied, limit, "{}", name);
            prop_assert_eq!(*requested, None, "{}: no ceiling was set", name);
            prop_assert_eq!(got.len(), limit, "{}", name);
            prop_assert!(
                answer.len() > limit,
                "{}: false alarm: the answer has {} items",
                name,
                answer.len()
            );
            if count_total {
                prop_assert_eq!(b.total(), Total::Exact(answer.len() as u64), "{}", name);
            } else {
                prop_assert!(
                    b.total().value() > got.len() as u64,
                    "{}: {:?}",
                    name,
                    b.total()
                );
                prop_assert!(
                    b.total().value() <= answer.len() as u64,
                    "{}: {:?}",
                    name,
                    b.total()
                );
            }
            prop_assert_eq!(
                b.next_cursor().is_some(),
                !got.is_empty(),
                "{}: cursor",
                name
            );
        }
        Completeness::TruncatedByBudget { budget, .. } => {
            prop_assert_eq!(budget.kind(), BudgetKind::OutputBytes, "{}", name);
            prop_assert!(max_bytes.is_some(), "{}: no byte budget was set", name);
            prop_assert!(got.len() < answer.len(), "{}: truncated but whole", name);
            prop_assert!(
                b.total().value() > got.len() as u64,
                "{}: {:?}",
                name,
                b.total()
            );
            prop_assert!(
                b.total().value() <= answer.len() as u64,
                "{}: {:?}",
                name,
                b.total()
            );
            if b.total().is_exact() {
                prop_assert_eq!(b.total().value(), answer.len() as u64, "{}", name);
            }
            prop_assert_eq!(
                b.next_cursor().is_some(),
                !got.is_empty(),
                "{}: cursor",
                name
            );
        }
        other => prop_assert!(false, "{}: unexpected completeness {:?}", name, other),
    }
    Ok(())
}

/// Runs one query function with limits and a cursor.
type Run<'a, T> = dyn Fn(&Limits, Option<&Cursor>) -> Result<Bounded<T>, candor::Error> + 'a;

/// Checks one result under `max` output bytes against `answer` (its full
/// answer), then pages through the answer with a budget that holds any one
/// item, and returns the items of those pages.
fn budgeted<
    T: serde::Serialize + Clone + PartialEq + std::fmt::Debug,
    V: Clone + PartialEq + std::fmt::Debug,
>(
    name: &str,
    answer: &[V],
    max: usize,
    run: &Run<T>,
    view: &dyn Fn(&Bounded<T>) -> Vec<V>,
) -> Result<Vec<V>, TestCaseError> {
    match run(&Limits::new().max_bytes(max), None) {
        Ok(b) => {
            prop_assert!(
                json_len(&b) <= max,
                "{}: {} bytes over {}",
                name,
                json_len(&b),
                max
            );
            let got = view(&b);
            prop_assert!(got.len() <= answer.len(), "{}", name);
            prop_assert_eq!(&got[..], &answer[..got.len()], "{}: not a prefix", name);
            if b.completeness().is_exact() {
                prop_assert_eq!(got.len(), answer.len(), "{}: exact but short", name);
            } else {
                let budget = b.completeness().budget().map(|b| b.kind());
                prop_assert_eq!(budget, Some(BudgetKind::OutputBytes), "{}", name);
                prop_assert!(got.len() < answer.len(), "{}", name);
                prop_assert!(
                    b.total().value() > got.len() as u64,
                    "{}: {:?}",
                    name,
                    b.total()
                );
                prop_assert_eq!(b.next_cursor().is_some(), !got.is_empty(), "{}", name);
            }
        }
        Err(e) => match e.kind() {
            ErrorKind::BudgetTooSmall { needed, .. } => {
                prop_assert!(*needed > max, "{}: {}", name, e);
            }
            _ => prop_assert!(false, "{}: {}", name, e),
        },
    }
    // Page with room for the largest item.
    let full =
        run(&Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
    let largest = full
        .iter()
        .map(|item| serde_json::to_string(item).expect("serializes").len())
        .max()
        .unwrap_or(0);
    let limits = Limits::new().max_bytes(largest + 1500);
    let mut all = Vec::new();
    let mut cursor: Option<Cursor> = None;
    for page in 0.. {
        prop_assert!(page <= answer.len() + 1, "{}: too many pages", name);
        let b = run(&limits, cursor.as_ref())
            .map_err(|e| TestCaseError::fail(format!("{name}: page {page}: {e}")))?;
        prop_assert!(json_len(&b) <= largest + 1500, "{}", name);
        all.extend(view(&b));
        match b.next_cursor() {
            Some(next) => {
                prop_assert!(!b.is_empty(), "{}: a cursor that does not advance", name);
                cursor = Some(next.clone());
            }
            None => {
                prop_assert!(
                    b.completeness().is_exact(),
                    "{}: {:?}",
                    name,
                    b.completeness()
                );
                break;
            }
        }
    }
    Ok(all)
}

/// Pages through the answer of `q` on all three corpora and compares the
/// pages with the oracle.
fn check_pages(
    q: &Q,
    corpus: &[Doc],
    page_limits: &[usize],
    extra_bytes: Option<usize>,
    count_total: bool,
) -> Result<(), TestCaseError> {
    let o = oracle(corpus, q, &[]);
    let query = q.query();
    let f = fixture(corpus);
    let mut results = Vec::new();
    for (name, c) in corpora(&f) {
        let full = c
            .search(&query, &Limits::new(), None)
            .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
        // Room for the largest item with an envelope that carries a
        // budget note, a cursor and a skipped sample.
        let largest = full
            .iter()
            .map(|m| serde_json::to_string(m).expect("serializes").len())
            .max()
            .unwrap_or(0);
        let max_bytes = extra_bytes.map(|x| largest + 1500 + x);
        let pages = page_through(
            name,
            c,
            &query,
            page_limits,
            max_bytes,
            count_total,
            o.items.len(),
        )?;
        prop_assert_eq!(&pages, &o.items, "{}: pages", name);
        results.push((name, pages));
    }
    prop_assert_eq!(&results[1].1, &results[2].1);
    Ok(())
}

/// Follows cursors from the start until the answer ends, with the page
/// limits in turn; returns the items of all pages.
fn page_through<C: Corpus + ?Sized>(
    name: &str,
    c: &C,
    query: &Query,
    page_limits: &[usize],
    max_bytes: Option<usize>,
    count_total: bool,
    answer_len: usize,
) -> Result<Vec<Want>, TestCaseError> {
    let mut all: Vec<Want> = Vec::new();
    let mut cursor: Option<Cursor> = None;
    for page in 0.. {
        prop_assert!(page <= answer_len + 1, "{}: too many pages", name);
        let limit = page_limits[page % page_limits.len()];
        let mut limits = Limits::new().limit(limit).count_total(count_total);
        if let Some(max) = max_bytes {
            limits = limits.max_bytes(max);
        }
        let b = c
            .search(query, &limits, cursor.as_ref())
            .map_err(|e| TestCaseError::fail(format!("{name}: page {page} failed: {e}")))?;
        if let Some(max) = max_bytes {
            prop_assert!(
                json_len(&b) <= max,
                "{}: page {} is {} bytes",
                name,
                page,
                json_len(&b)
            );
        }
        // A page says where it starts, and its total counts the whole
        // answer, also on a resumed page.
        prop_assert_eq!(b.start(), all.len() as u64, "{}: page {}", name, page);
        if count_total && b.completeness().is_truncated_by_limit() {
            prop_assert_eq!(
                b.total(),
                Total::Exact(answer_len as u64),
                "{}: page {}",
                name,
                page
            );
        }
        if b.completeness().is_exact() {
            prop_assert_eq!(b.total(), Total::Exact(answer_len as u64), "{}", name);
        }
        all.extend(wants_of(&b));
        match b.next_cursor() {
            Some(next) => {
                prop_assert!(b.is_truncated(), "{}: a cursor on an exact page", name);
                prop_assert!(!b.is_empty(), "{}: a cursor that does not advance", name);
                cursor = Some(next.clone());
            }
            None => {
                prop_assert!(
                    b.completeness().is_exact(),
                    "{}: page {} ends the answer while truncated: {:?}",
                    name,
                    page,
                    b.completeness()
                );
                break;
            }
        }
    }
    Ok(all)
}

proptest! {
    #![proptest_config(config(96))]

    /// A limited (and byte-budgeted) search is a prefix of the oracle and
    /// discloses why it stopped; exactly `limit` items is no false alarm.
    #[test]
    fn limited_results_are_honest_prefixes(
        (q, corpus) in query_and_corpus(COMMON),
        limit in pick(),
        bytes in prop::option::weighted(0.4, bytes_pick()),
        count_total in any::<bool>(),
    ) {
        let o = oracle(&corpus, &q, &[]);
        let limit = limit.resolve(o.items.len());
        let query = q.query();
        let f = fixture(&corpus);
        let mut results = Vec::new();
        for (name, c) in corpora(&f) {
            let full = c.search(&query, &Limits::new(), None).map_err(|e| {
                TestCaseError::fail(format!("{name}: {e}"))
            })?;
            let max_bytes = bytes.map(|p| p.resolve(json_len(&full)));
            let mut limits = Limits::new().limit(limit).count_total(count_total);
            if let Some(max) = max_bytes {
                limits = limits.max_bytes(max);
            }
            match c.search(&query, &limits, None) {
                Ok(b) => {
                    check_limited(name, &b, &o.items, limit, max_bytes, count_total)?;
                    results.push((name, b));
                }
                Err(e) => match e.kind() {
                    ErrorKind::BudgetTooSmall { max_bytes: asked, needed } => {
                        prop_assert_eq!(Some(*asked), max_bytes);
                        prop_assert!(*needed > *asked, "{}: {}", name, e);
                        results.clear();
                        break;
                    }
                    _ => prop_assert!(false, "{}: {}", name, e),
                },
            }
        }
        if results.len() == 3 {
            agree(&results)?;
        }
    }

    /// count() and files_with_matches() under a limit are prefixes of the
    /// oracle's aggregates, and count_total gives the exact total.
    #[test]
    fn limited_aggregates_are_honest_prefixes(
        (q, corpus) in query_and_corpus(COMMON),
        limit in pick(),
        count_total in any::<bool>(),
    ) {
        let o = oracle(&corpus, &q, &[]);
        let limit = limit.resolve(o.counts.len());
        let query = q.query();
        let limits = Limits::new().limit(limit).count_total(count_total);
        let f = fixture(&corpus);
        let mut counts = Vec::new();
        let mut files = Vec::new();
        let want_files: Vec<String> = o.counts.iter().map(|(p, _)| p.clone()).collect();
        for (name, c) in corpora(&f) {
            let n = c.count(&query, &limits, None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let w = c.files_with_matches(&query, &limits, None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let expect_truncated = o.counts.len() > limit;
            prop_assert_eq!(n.is_truncated(), expect_truncated, "{}: count {:?}", name, n.completeness());
            prop_assert_eq!(w.is_truncated(), expect_truncated, "{}: files {:?}", name, w.completeness());
            let k = limit.min(o.counts.len());
            prop_assert_eq!(counts_of(&n), o.counts[..k].to_vec(), "{}", name);
            prop_assert_eq!(w.items(), &want_files[..k], "{}", name);
            if !expect_truncated || count_total {
                prop_assert_eq!(n.total(), Total::Exact(o.counts.len() as u64), "{}", name);
                prop_assert_eq!(w.total(), Total::Exact(o.counts.len() as u64), "{}", name);
            } else {
                prop_assert!(n.total().value() > k as u64, "{}", name);
                prop_assert!(w.total().value() > k as u64, "{}", name);
            }
            counts.push((name, n));
            files.push((name, w));
        }
        agree(&counts)?;
        agree(&files)?;
    }

    /// count() and files_with_matches() under a byte budget fit it and are
    /// prefixes of their full answers; paging under a budget that holds any
    /// one item rebuilds them.
    #[test]
    fn byte_budgets_bound_aggregates(
        (q, corpus) in query_and_corpus(COMMON),
        bytes in bytes_pick(),
    ) {
        let o = oracle(&corpus, &q, &[]);
        let want_files: Vec<String> = o.counts.iter().map(|(p, _)| p.clone()).collect();
        let query = q.query();
        let f = fixture(&corpus);
        for (name, c) in corpora(&f) {
            let full = c.count(&query, &Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let max = bytes.resolve(json_len(&full));
            let counts = budgeted(name, &o.counts, max, &|l, cur| c.count(&query, l, cur), &counts_of)?;
            prop_assert_eq!(&counts, &o.counts, "{}: count pages", name);
            let full = c.files_with_matches(&query, &Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let max = bytes.resolve(json_len(&full));
            let files = budgeted(name, &want_files, max, &|l, cur| c.files_with_matches(&query, l, cur), &|b| b.items().to_vec())?;
            prop_assert_eq!(&files, &want_files, "{}: file pages", name);
        }
    }

    /// Following next_cursor page after page, with changing limits and a
    /// byte budget big enough for any one item, rebuilds the oracle exactly
    /// once; every page fits its budget. Every file ends with a newline
    /// here: see the ignored property below for files that do not.
    #[test]
    fn pages_rebuild_the_answer_exactly_once(
        (q, corpus) in query_and_corpus(WITH_FINAL_NEWLINES),
        page_limits in prop::collection::vec(1..6usize, 1..4),
        extra_bytes in prop::option::weighted(0.4, 0..4000usize),
        count_total in any::<bool>(),
    ) {
        check_pages(&q, &corpus, &page_limits, extra_bytes, count_total)?;
    }

    /// Paging count() and files_with_matches() rebuilds their answers too.
    #[test]
    fn aggregate_pages_rebuild_the_answer(
        (q, corpus) in query_and_corpus(COMMON),
        page_limit in 1..4usize,
    ) {
        let o = oracle(&corpus, &q, &[]);
        let query = q.query();
        let limits = Limits::new().limit(page_limit);
        let f = fixture(&corpus);
        for (name, c) in corpora(&f) {
            let mut counts = Vec::new();
            let mut cursor: Option<Cursor> = None;
            for page in 0.. {
                prop_assert!(page <= o.counts.len() + 1, "{}: too many pages", name);
                let b = c.count(&query, &limits, cursor.as_ref()).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
                counts.extend(counts_of(&b));
                match b.next_cursor() {
                    Some(next) => cursor = Some(next.clone()),
                    None => { prop_assert!(b.completeness().is_exact(), "{}", name); break; }
                }
            }
            prop_assert_eq!(&counts, &o.counts, "{}: count pages", name);

            let mut files = Vec::new();
            let mut cursor: Option<Cursor> = None;
            for page in 0.. {
                prop_assert!(page <= o.counts.len() + 1, "{}: too many pages", name);
                let b = c.files_with_matches(&query, &limits, cursor.as_ref()).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
                files.extend(b.items().iter().cloned());
                match b.next_cursor() {
                    Some(next) => cursor = Some(next.clone()),
                    None => { prop_assert!(b.completeness().is_exact(), "{}", name); break; }
                }
            }
            let want: Vec<String> = o.counts.iter().map(|(p, _)| p.clone()).collect();
            prop_assert_eq!(&files, &want, "{}: file pages", name);
        }
    }

    /// search_each hands on exactly the items search returns, and ends
    /// with the same disclosure; its cursor resumes search (on files that
    /// end with a newline, as above).
    #[test]
    fn search_each_agrees_with_search(
        (q, corpus) in query_and_corpus(WITH_FINAL_NEWLINES),
        limit in prop::option::of(pick()),
        count_total in any::<bool>(),
    ) {
        let o = oracle(&corpus, &q, &[]);
        let query = q.query();
        let mut limits = Limits::new().count_total(count_total);
        if let Some(limit) = limit {
            limits = limits.limit(limit.resolve(o.items.len()));
        }
        let f = fixture(&corpus);
        for (name, c) in corpora(&f) {
            let b = c.search(&query, &limits, None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let mut streamed: Vec<Match> = Vec::new();
            let end = c.search_each(&query, &limits, None, &mut |m| streamed.push(m.clone()))
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            prop_assert_eq!(&streamed[..], b.items(), "{}: streamed items", name);
            prop_assert_eq!(end.count(), b.len(), "{}", name);
            prop_assert_eq!(end.completeness(), b.completeness(), "{}", name);
            prop_assert_eq!(end.total(), b.total(), "{}", name);
            prop_assert_eq!(end.next_cursor(), b.next_cursor(), "{}", name);
            prop_assert_eq!(end.skipped(), b.skipped(), "{}", name);
            prop_assert_eq!(end.is_complete(), b.is_complete(), "{}", name);
            if let Some(next) = end.next_cursor() {
                let rest = c.search(&query, &Limits::new(), Some(next)).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
                let mut all = wants_of(&b);
                all.extend(wants_of(&rest));
                prop_assert_eq!(&all, &o.items, "{}: stream then resume", name);
            }
        }
    }

    /// A streamed search refuses a byte budget.
    #[test]
    fn search_each_refuses_max_bytes(corpus in corpus(COMMON), max in 0..5000usize) {
        let f = fixture(&corpus);
        for (name, c) in corpora(&f) {
            let err = c
                .search_each(&Query::literal("a"), &Limits::new().max_bytes(max), None, &mut |_| {})
                .expect_err("max_bytes on a stream");
            prop_assert!(matches!(err.kind(), ErrorKind::InvalidArgument { name: "max_bytes", .. }), "{}: {}", name, err);
        }
    }
}

// ---------------------------------------------------------------------------
// Excerpts

/// The oracle's excerpt: line numbers, offsets and lossy text of lines
/// `first..=last` that exist.
fn excerpt_oracle(bytes: &[u8], first: u64, last: u64) -> Vec<(u64, u64, String)> {
    lines_of(bytes)
        .into_iter()
        .enumerate()
        .map(|(i, (start, raw))| (i as u64 + 1, start as u64, raw))
        .filter(|(n, _, _)| (first..=last).contains(n))
        .map(|(n, start, raw)| (n, start, String::from_utf8_lossy(shown(raw)).into_owned()))
        .collect()
}

proptest! {
    #![proptest_config(config(64))]

    /// Excerpts equal the oracle's lines, and paging through them with
    /// small limits rebuilds them.
    #[test]
    fn excerpts_equal_the_oracle(
        corpus in corpus(COMMON),
        pick in any::<Index>(),
        first in 1..30u64,
        span in 0..30u64,
        page_limit in 1..5usize,
    ) {
        prop_assume!(!corpus.is_empty());
        let doc = pick.get(&corpus);
        let last = first + span;
        let want = if doc.is_binary() { Vec::new() } else { excerpt_oracle(&doc.bytes, first, last) };
        let f = fixture(&corpus);
        let excerpt = Excerpt::new(doc.name.clone(), first..=last);
        let mut results = Vec::new();
        for (name, c) in corpora(&f) {
            let b = c.excerpt(&excerpt, &Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let got: Vec<(u64, u64, String)> = b.iter().map(|l| (l.line_number, l.byte_offset, l.line.clone())).collect();
            prop_assert_eq!(&got, &want, "{}", name);
            prop_assert!(b.completeness().is_exact(), "{}", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::Binary), u64::from(doc.is_binary()), "{}", name);

            let mut paged = Vec::new();
            let mut cursor: Option<Cursor> = None;
            for page in 0.. {
                prop_assert!(page <= want.len() + 1, "{}: too many pages", name);
                let b = c.excerpt(&excerpt, &Limits::new().limit(page_limit), cursor.as_ref())
                    .map_err(|e| TestCaseError::fail(format!("{name}: page {page}: {e}")))?;
                paged.extend(b.iter().map(|l| (l.line_number, l.byte_offset, l.line.clone())));
                match b.next_cursor() {
                    Some(next) => cursor = Some(next.clone()),
                    None => { prop_assert!(b.completeness().is_exact(), "{}: {:?}", name, b.completeness()); break; }
                }
            }
            prop_assert_eq!(&paged, &want, "{}: pages", name);
            results.push((name, b));
        }
        agree(&results)?;
    }
}

// ---------------------------------------------------------------------------
// Column cuts

proptest! {
    #![proptest_config(config(64))]

    /// With a column limit, a longer line is cut to a window of valid
    /// UTF-8 that keeps the first match (when it fits with room to spare),
    /// and the spans are the oracle's spans clipped to the window.
    #[test]
    fn cut_lines_keep_their_matches(
        q in query().prop_filter("literals", |q| !matches!(q.pattern, Pattern::Regex(_))),
        corpus in corpus(Alphabet { invalid_utf8: false, ..COMMON }),
        max_columns in 1..60usize,
    ) {
        let o = oracle(&corpus, &q, &[]);
        let query = q.query().max_columns(max_columns);
        let f = fixture(&corpus);
        // The raw shown line of each oracle item, by (path, offset).
        let raw_lines: BTreeMap<(String, u64), Vec<u8>> = corpus
            .iter()
            .flat_map(|d| {
                lines_of(&d.bytes)
                    .into_iter()
                    .map(|(start, raw)| ((d.name.clone(), start as u64), shown(raw).to_vec()))
                    .collect::<Vec<_>>()
            })
            .collect();
        for (name, c) in corpora(&f) {
            let b = c.search(&query, &Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            prop_assert_eq!(b.len(), o.items.len(), "{}", name);
            for (m, want) in b.iter().zip(&o.items) {
                prop_assert_eq!((&m.path, m.line_number, m.byte_offset), (&want.path, want.line_number, want.byte_offset));
                let line = &raw_lines[&(m.path.clone(), m.byte_offset)];
                let Some(cut) = m.line_cut else {
                    prop_assert!(line.len() <= max_columns, "{}: {} bytes, not cut", name, line.len());
                    prop_assert_eq!(&m.line, &want.line);
                    prop_assert_eq!(m.matches.iter().map(|s| (s.start, s.end)).collect::<Vec<_>>(), want.matches.clone());
                    continue;
                };
                prop_assert!(m.is_cut());
                prop_assert!(line.len() > max_columns, "{}: cut a line of {} bytes", name, line.len());
                prop_assert_eq!(cut.original_bytes, line.len() as u64);
                let from = cut.kept_from as usize;
                let to = from + m.line.len();
                prop_assert!(m.line.len() <= max_columns, "{}: kept {} bytes", name, m.line.len());
                prop_assert!(to <= line.len());
                prop_assert_eq!(m.line.as_bytes(), &line[from..to], "{}: the kept text is not the line's", name);
                let (s0, e0) = want.matches[0];
                // With room to spare the first match is kept whole. Only
                // on ASCII lines: next to wide characters the window can
                // lose the match's end (the ignored
                // `search_tree::a_match_that_fits_the_columns_is_kept_whole`).
                if e0 - s0 + 12 <= max_columns && line.is_ascii() {
                    prop_assert!(from <= s0 && e0 <= to, "{}: first match {}..{} not in {}..{}", name, s0, e0, from, to);
                }
                let clipped: Vec<(usize, usize)> = want
                    .matches
                    .iter()
                    .filter(|&&(s, e)| s.max(from) < e.min(to))
                    .map(|&(s, e)| (s.max(from) - from, e.min(to) - from))
                    .collect();
                let got: Vec<(usize, usize)> = m.matches.iter().map(|s| (s.start, s.end)).collect();
                prop_assert_eq!(&got, &clipped, "{}: spans in the kept text", name);
                for &(s, e) in &got {
                    prop_assert!(m.line.get(s..e).is_some(), "{}: span {}..{} is not on char boundaries", name, s, e);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Properties written for engine bugs found by the tests above (all fixed):
// each pins the awkward input down on its own.

proptest! {
    #![proptest_config(config(128))]

    /// An empty match at the very end of a file that has no final newline
    /// (`$`, `\z`, `b*$` on the last line) is a match of that line.
    #[test]
    fn end_anchors_match_the_last_line(
        corpus in corpus(Alphabet { invalid_utf8: false, ..COMMON }),
        pattern in prop::sample::select(vec!["$", r"\z", "b*$", "(?:ab)*$", "^$"]),
    ) {
        let q = Q { pattern: Pattern::Regex(pattern.to_owned()), case_insensitive: false, whole_word: false };
        every_corpus_lists_the_oracle(&corpus, &q)?;
    }

    /// Resuming after the last line of a file that does not end with a
    /// newline continues with the next file.
    #[test]
    fn pages_rebuild_the_answer_without_final_newlines(
        (q, corpus) in query_and_corpus(COMMON),
        page_limits in prop::collection::vec(1..6usize, 1..4),
        extra_bytes in prop::option::weighted(0.4, 0..4000usize),
        count_total in any::<bool>(),
    ) {
        check_pages(&q, &corpus, &page_limits, extra_bytes, count_total)?;
    }

    /// An empty match stays empty when the line holds invalid UTF-8, and
    /// sits on the line as shown (lossy UTF-8).
    #[test]
    fn empty_matches_stay_empty_in_invalid_utf8(
        corpus in corpus(COMMON),
        pattern in prop::sample::select(vec!["b*", "a*", "(?:)", "x?"]),
    ) {
        let q = Q { pattern: Pattern::Regex(pattern.to_owned()), case_insensitive: false, whole_word: false };
        // The oracle maps spans to the lossy text independently: an empty
        // match inside a replaced sequence must stay empty there too.
        every_corpus_lists_the_oracle(&corpus, &q)?;
    }

    /// Whole-word matching treats an invalid UTF-8 byte like any other
    /// non-word character beside the match.
    #[test]
    fn whole_words_beside_invalid_utf8(
        corpus in corpus(COMMON),
        q in query()
            .prop_filter("empty matches", |q| !matches!(&q.pattern, Pattern::Regex(p) if p == "b*"))
            .prop_map(|q| Q { whole_word: true, ..q }),
    ) {
        every_corpus_lists_the_oracle(&corpus, &q)?;
    }

    /// A `\r` that does not end a line is an ordinary character: anchors
    /// do not match beside it and `.` matches it; the `\r` of a CRLF ending
    /// is not part of the line, so a pattern cannot match it.
    #[test]
    fn carriage_returns_are_not_line_ends(
        corpus in corpus(Alphabet { lone_cr: true, invalid_utf8: false, ..WITH_FINAL_NEWLINES }),
        pattern in prop::sample::select(vec!["$", "^", "a$", "^b", "a.b", r"\s", "[^ab]", r"\s+$", r"\r", "b\r?$", "b*"]),
        whole_word in any::<bool>(),
    ) {
        let q = Q { pattern: Pattern::Regex(pattern.to_owned()), case_insensitive: false, whole_word };
        every_corpus_lists_the_oracle(&corpus, &q)?;
    }
}

/// Documents whose lines are drawn from `lines`, with LF or CRLF endings.
fn corpus_of_lines(lines: &'static [&'static str]) -> impl Strategy<Value = Vec<Doc>> {
    prop::collection::vec(
        prop::collection::vec((prop::sample::select(lines), any::<bool>()), 0..12),
        1..4,
    )
    .prop_map(|docs| {
        docs.into_iter()
            .enumerate()
            .map(|(i, lines)| Doc {
                name: NAMES[i].to_owned(),
                bytes: lines
                    .into_iter()
                    .flat_map(|(line, crlf)| {
                        let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
                        [line.as_bytes(), end].concat()
                    })
                    .collect(),
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(config(64))]

    /// An optional group that holds a repetition (`(?:\d+)?`) may match
    /// nothing: the lines without it match too. (Printing such a pattern
    /// and parsing the text again read it as the lazy `\d+?`.)
    #[test]
    fn optional_groups_may_match_nothing(
        corpus in corpus_of_lines(&["xy", "x1y", "x12y", "foobar", "foo1bar", "foo12bar", "bar", "12bar", "fooxbar", ""]),
        pattern in prop::sample::select(vec![
            r"x(?:\d+)?y", r"foo(?:\d+)?bar", r"foo(?:\d{2})?bar", r"foo(?:[0-9]+)?bar",
            r"(?:\d+)?bar", r"foo(?:\d+?)?bar", r"x(?:\d*)?y", r"(?:x(?:\d+)?)+y",
        ]),
        case_insensitive in any::<bool>(),
        whole_word in any::<bool>(),
    ) {
        let q = Q { pattern: Pattern::Regex(pattern.to_owned()), case_insensitive, whole_word };
        every_corpus_lists_the_oracle(&corpus, &q)?;
    }

    /// Patterns that can match the empty string, case-insensitive or not,
    /// never report a span inside a character (`ſ`, the Kelvin sign, `é`
    /// and `€` are several bytes long), whatever bytes surround it.
    #[test]
    fn empty_matches_fall_between_characters(
        corpus in corpus(COMMON),
        pattern in prop::sample::select(vec!["", "b*", "x?", "(?:s|k)*", r"\b", r"\B", "^", "$", "a??", r"[sk]{0,2}", r"\w*?"]),
        case_insensitive in any::<bool>(),
        whole_word in any::<bool>(),
    ) {
        let q = Q { pattern: Pattern::Regex(pattern.to_owned()), case_insensitive, whole_word };
        every_corpus_lists_the_oracle(&corpus, &q)?;
    }
}

/// A regex whose compiled program would be huge (a counted repetition of a
/// large class) is refused at once on every corpus, with an error that
/// names the pattern and says why; it never runs for minutes.
#[test]
fn oversized_regexes_are_refused_with_the_reason() {
    let corpus = vec![Doc {
        name: "a".to_owned(),
        bytes: b"ab\n".repeat(100),
    }];
    let f = fixture(&corpus);
    for pattern in [r"[\s\S]{65535}", r"\w{1000}", r"(?:.{100}){100}{100}"] {
        for case_insensitive in [false, true] {
            let query = Query::regex(pattern).case_insensitive(case_insensitive);
            for (name, c) in corpora(&f) {
                let err = c
                    .search(&query, &Limits::new(), None)
                    .expect_err("an oversized pattern is refused");
                match err.kind() {
                    ErrorKind::InvalidPattern {
                        pattern: shown,
                        reason,
                    } => {
                        assert_eq!(shown, pattern, "{name}");
                        assert!(reason.contains("larger than the limit"), "{name}: {reason}");
                    }
                    other => panic!("{name}: {pattern}: {other:?}"),
                }
            }
        }
    }
}

/// A line's path, number, and the characters (byte ranges) a match touches.
type Touched = (String, u64, Vec<(usize, usize)>);

proptest! {
    #![proptest_config(config(64))]

    /// A pattern that can match part of a character (a byte class) reports
    /// the whole characters its matches touch: the engine's spans, sorted
    /// and not overlapping, cover exactly the characters that the `regex`
    /// crate's bytes API finds a matched byte in, on exactly those lines.
    #[test]
    fn byte_patterns_cover_whole_characters(
        corpus in corpus(Alphabet { invalid_utf8: false, ..COMMON }),
        pattern in prop::sample::select(vec![
            r"(?-u:\xA9)", r"(?-u:[\x80-\xBF])", r"(?-u:\xC3)", r"(?-u:\xE2\x82)", r"(?-u:\x84)a",
            r"(?-u:[\xAA\xBF])|b", r"a(?-u:.)",
        ]),
    ) {
        let raw = regex::bytes::Regex::new(pattern).expect("compiles");
        let f = fixture(&corpus);
        // (path, line number) -> the characters (their byte ranges) touched.
        let mut want: Vec<Touched> = Vec::new();
        let mut docs: Vec<&Doc> = corpus.iter().filter(|d| !d.is_binary()).collect();
        docs.sort_by(|a, b| path_order(&a.name, &b.name));
        for doc in docs {
            for (i, (_, line)) in lines_of(&doc.bytes).into_iter().enumerate() {
                let line = shown(line);
                let text = std::str::from_utf8(line).expect("valid UTF-8");
                let touched: Vec<(usize, usize)> = text
                    .char_indices()
                    .map(|(at, c)| (at, at + c.len_utf8()))
                    .filter(|&(s, e)| raw.find_iter(line).any(|m| m.start() < e && s < m.end()))
                    .collect();
                if !touched.is_empty() {
                    want.push((doc.name.clone(), i as u64 + 1, touched));
                }
            }
        }
        for (name, c) in corpora(&f) {
            let b = c
                .search(&Query::regex(pattern), &Limits::new(), None)
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            spans_on_char_boundaries(name, &b)?;
            let mut got = Vec::new();
            for m in b.iter() {
                for w in m.matches.windows(2) {
                    prop_assert!(w[0].end <= w[1].start, "{}: spans overlap: {:?}", name, m.matches);
                }
                let covered: Vec<(usize, usize)> = m
                    .line
                    .char_indices()
                    .map(|(at, c)| (at, at + c.len_utf8()))
                    .filter(|&(s, e)| m.matches.iter().any(|sp| sp.start <= s && e <= sp.end))
                    .collect();
                got.push((m.path.clone(), m.line_number, covered));
            }
            prop_assert_eq!(&got, &want, "{}", name);
        }
    }
}

//! Differential properties of the text-search engine against the naive
//! oracle of `fuzz/checks/oracle.rs` (each document split on `\n`, one
//! trailing `\r` stripped from each line, every line searched alone: see
//! that file for its rules). The engine instead searches the whole buffer
//! with rewritten anchors, which is what the comparison checks. Regexes
//! come from a fixed list and from a generator that builds them from parts
//! (optional, repeated, lazy, counted and nested groups, classes, anchors,
//! alternations, Unicode literals).
//!
//! The rules checked, for search: without limits the answer is exact and
//! is the oracle's; a limited result is a prefix of the answer, exact only
//! when nothing is missing, truncated only when item `limit + 1` exists,
//! with a total that never overstates; a byte budget bounds the whole
//! response, and a budget too small for the required fields is an error;
//! following cursors rebuilds the answer exactly once; binary documents
//! are counted as skipped, never searched.
//!
//! Every property runs on every corpus of the shared fixture: the
//! in-memory `Documents` and a `Tree` over a temporary directory with the
//! same files, searched with 1, 2 and 4 threads. The trees must agree to
//! the byte, cursors included, and the documents with them on all but
//! cursors.
//!
//! Corpora come from a small alphabet so that matches are frequent, with
//! CRLF endings, no final newline, empty documents, invalid UTF-8, long
//! lines, byte-order marks (at a document's start and elsewhere), and now
//! and then a NUL byte that makes a document binary.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use candor_search::{
    Bounded, BudgetKind, Completeness, Corpus, Cursor, ErrorKind, Excerpt, Limits, Match, Query,
    SkipReason, StreamError, Total,
};
use proptest::prelude::*;

use crate::core_support::{Pick, config, pick_below};
use crate::fixture::{Fixture, agree, agree_pages, path_order};
use crate::oracle::{
    BOM, LineSpans, excerpt_lines, lines, literal_spans, matching_lines, regex_spans, searched,
};
use crate::pages::pages;
use proptest::sample::Index;

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
    /// What of it is searched, by the binary rule (`None`: binary whole).
    fn searched(&self) -> Option<&[u8]> {
        searched(&self.bytes)
    }

    /// Whether a NUL byte ends its search (binary whole, or cut).
    fn has_binary_skip(&self) -> bool {
        self.bytes.contains(&0)
    }
}

/// What a corpus may hold beside the common alphabet.
#[derive(Debug, Clone, Copy)]
struct Alphabet {
    /// Bytes that are not UTF-8 (0xff, a cut "€", a lone continuation
    /// byte).
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
        // A byte-order mark past a document's start is an ordinary
        // character.
        (1, Just("\u{FEFF}".as_bytes().to_vec()).boxed()),
    ];
    if alphabet.invalid_utf8 {
        options.push((1, Just(vec![0xff]).boxed()));
        options.push((1, Just(vec![0xe2, 0x82]).boxed()));
        // A lone continuation byte: a line can start inside a character.
        options.push((1, Just(vec![0x98]).boxed()));
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
        // Sometimes start with a byte-order mark, which is not text.
        prop::bool::weighted(0.1),
    )
        .prop_map(move |(chunks, nul, final_cr, bom)| {
            let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
            bytes.extend(chunks.concat());
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

/// The corpus in memory and on disk.
fn fixture(corpus: &[Doc]) -> Fixture {
    let files: Vec<(&str, &[u8])> = corpus
        .iter()
        .map(|d| (d.name.as_str(), d.bytes.as_slice()))
        .collect();
    Fixture::new(&files)
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
fn query_and_corpus(base: Alphabet) -> impl Strategy<Value = (Q, Vec<Doc>)> {
    query().prop_flat_map(move |q| (Just(q), corpus(base)))
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

/// The oracle's matcher for one line of `q`.
fn line_matcher(q: &Q) -> Box<LineSpans> {
    let (ci, ww) = (q.case_insensitive, q.whole_word);
    let needles = match &q.pattern {
        Pattern::Literal(n) => vec![n.clone()],
        Pattern::Literals(ns) => ns.clone(),
        Pattern::Regex(p) => {
            return regex_spans(p, ci, ww).expect("the oracle's regex compiles");
        }
    };
    Box::new(move |line| literal_spans(line, &needles, ci, ww))
}

/// The oracle's full answer for `q` on `corpus` within `filters` (empty:
/// all), in path order, the binary documents it left out, and those a
/// filter names itself, searched whole as text.
struct Oracle {
    items: Vec<Want>,
    /// Matching lines per file, in path order.
    counts: Vec<(String, u64)>,
    binary: Vec<String>,
    as_text: Vec<String>,
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
        as_text: Vec::new(),
    };
    for doc in docs {
        // A document a filter names is searched whole, NUL bytes and all.
        let named = filters.contains(&doc.name);
        if doc.has_binary_skip() {
            match named {
                true => o.as_text.push(doc.name.clone()),
                false => o.binary.push(doc.name.clone()),
            }
        }
        let Some(searched) = (if named {
            Some(&doc.bytes[..])
        } else {
            doc.searched()
        }) else {
            continue;
        };
        let hits = matching_lines(searched, &*matcher);
        let n = hits.len() as u64;
        o.items.extend(hits.into_iter().map(|h| Want {
            path: doc.name.clone(),
            line_number: h.number,
            byte_offset: h.offset,
            line: h.line,
            matches: h.spans,
        }));
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

fn counts_of(b: &Bounded<candor_search::FileCount>) -> Vec<(String, u64)> {
    b.iter().map(|c| (c.path.clone(), c.count)).collect()
}

fn json_len<T: serde::Serialize>(b: &Bounded<T>) -> usize {
    b.to_json().expect("serializes").len()
}

/// Checks that every corpus of `corpus` lists exactly the oracle's lines
/// for `q`, with no limit.
fn every_corpus_lists_the_oracle(corpus: &[Doc], q: &Q) -> Result<(), TestCaseError> {
    let o = oracle(corpus, q, &[]);
    let f = fixture(corpus);
    for (name, c) in f.all() {
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
    /// count, files_with_matches and search_each, on every corpus;
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
        for (name, c) in f.all() {
            let b = c.search(&query, &limits, None).map_err(|e| {
                TestCaseError::fail(format!("{name}: search failed: {e}"))
            })?;
            prop_assert!(b.completeness().is_exact(), "{}: {:?}", name, b.completeness());
            spans_on_char_boundaries(name, &b)?;
            prop_assert_eq!(wants_of(&b), o.items.clone(), "{}: items", name);
            prop_assert_eq!(b.total(), Total::Exact(o.items.len() as u64), "{}", name);
            prop_assert!(b.next_cursor().is_none(), "{}: an exact result has no cursor", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::Binary), o.binary.len() as u64, "{}", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::BinaryAsText), o.as_text.len() as u64, "{}", name);
            prop_assert_eq!(b.skipped().total(), (o.binary.len() + o.as_text.len()) as u64, "{}", name);
            // Binary files are policy, not errors: one a filter names is
            // searched as text, and said to be binary.
            prop_assert!(b.is_complete(), "{}: binary files are policy", name);
            prop_assert!(!b.skipped().has_errors(), "{}", name);

            let mut streamed = Vec::new();
            let end = c.search_each(&query, &limits, None, &mut |m| { streamed.push(want_of(m)); ControlFlow::Continue(()) })
                .map_err(|e| TestCaseError::fail(format!("{name}: search_each failed: {e}")))?;
            prop_assert_eq!(&streamed, &o.items, "{}: streamed items", name);
            prop_assert_eq!(end.count(), o.items.len(), "{}", name);
            prop_assert!(end.is_complete(), "{}", name);
            prop_assert_eq!(end.skipped(), b.skipped(), "{}", name);

            let n = c.count_per_file(&query, &limits, None).map_err(|e| {
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
            prop_assert_eq!(w.skipped().count(&SkipReason::BinaryAsText), o.as_text.len() as u64, "{}", name);
            prop_assert_eq!(n.skipped().count(&SkipReason::BinaryAsText), o.as_text.len() as u64, "{}", name);

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
        for (name, c) in f.all() {
            let b = c.find_in_file(&doc.name, &q.query(), &Limits::new(), None).map_err(|e| {
                TestCaseError::fail(format!("{name}: find_in_file failed: {e}"))
            })?;
            prop_assert!(b.completeness().is_exact(), "{}", name);
            prop_assert_eq!(wants_of(&b), o.items.clone(), "{}", name);
            // Named: searched as text, and said to be binary.
            prop_assert_eq!(b.skipped().count(&SkipReason::Binary), 0, "{}", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::BinaryAsText), u64::from(doc.has_binary_skip()), "{}", name);
            prop_assert!(b.is_complete(), "{}", name);
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
/// (`answer`): at most `limit` items, a prefix of the answer, within the
/// byte budget; exact only when whole (with the exact total and no
/// cursor); truncated by the limit only when the answer holds more than
/// `limit` items, with a total that never overstates (exact when
/// counted); truncated by the byte budget only when one was set, naming
/// it; and a cursor whenever the page holds an item.
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
type Run<'a, T> = dyn Fn(&Limits, Option<&Cursor>) -> Result<Bounded<T>, candor_search::Error> + 'a;

/// Checks one result under `max` output bytes against `answer` (its full
/// answer), then pages through the answer with a budget that holds any one
/// item, and returns the items of those pages and the pages.
fn budgeted<
    T: serde::Serialize + Clone + PartialEq + std::fmt::Debug,
    V: Clone + PartialEq + std::fmt::Debug,
>(
    name: &str,
    answer: &[V],
    max: usize,
    run: &Run<T>,
    view: &dyn Fn(&Bounded<T>) -> Vec<V>,
) -> Result<(Vec<V>, Vec<Bounded<T>>), TestCaseError> {
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
    let walked = pages(name, answer.len() + 2, |cursor| run(&limits, cursor));
    let mut all = Vec::new();
    for b in &walked {
        prop_assert!(json_len(b) <= largest + 1500, "{}", name);
        if b.next_cursor().is_some() {
            prop_assert!(!b.is_empty(), "{}: a cursor that does not advance", name);
        }
        all.extend(view(b));
    }
    Ok((all, walked))
}

/// Pages through the answer of `q` on every corpus and compares the pages
/// with the oracle, and the corpora's pages with each other.
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
    for (name, c) in f.all() {
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
        let items: Vec<Want> = pages.iter().flat_map(wants_of).collect();
        prop_assert_eq!(&items, &o.items, "{}: pages", name);
        results.push((name, pages));
    }
    agree_pages(&results)
}

/// Follows the cursors of streams that their callback stops at its
/// `stop`-th match: after it (`ControlFlow::Break`), or before it, the
/// callback failing (`try_search_each`). Every stream's end says where it
/// starts, how many items it handed on and that it was cut short; the
/// items rebuild the oracle's exactly once.
fn walk_stopped_streams<C: Corpus>(
    name: &str,
    c: &C,
    query: &Query,
    oracle: &[Want],
    stop: usize,
    fail: bool,
) -> Result<(), TestCaseError> {
    let mut got: Vec<Want> = Vec::new();
    let mut cursor: Option<Cursor> = None;
    for _ in 0..=oracle.len() + 1 {
        let mut handed = Vec::new();
        let mut calls = 0;
        let end = if fail {
            let outcome = c.try_search_each(query, &Limits::new(), cursor.as_ref(), |m| {
                calls += 1;
                if calls == stop {
                    return Err("the index is full");
                }
                handed.push(want_of(m));
                Ok(())
            });
            match outcome {
                Ok(end) => end,
                Err(StreamError::Callback { end, error }) => {
                    prop_assert_eq!(error, "the index is full");
                    *end
                }
                Err(e) => return Err(TestCaseError::fail(format!("{name}: {e}"))),
            }
        } else {
            let mut on_match = |m: &Match| {
                calls += 1;
                handed.push(want_of(m));
                if calls == stop {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            c.search_each(query, &Limits::new(), cursor.as_ref(), &mut on_match)
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?
        };
        // The callback is not called again once it stopped the stream.
        prop_assert!(
            calls <= stop,
            "{}: {} calls after a stop at {}",
            name,
            calls,
            stop
        );
        let at = got.len();
        prop_assert_eq!(end.start(), at as u64, "{}: a stream's start", name);
        prop_assert_eq!(end.count(), handed.len(), "{}: items handed on", name);
        prop_assert_eq!(
            &handed[..],
            &oracle[at..at + handed.len()],
            "{}: the next items",
            name
        );
        if calls == stop {
            let kind = end.completeness().budget().map(|b| b.kind());
            prop_assert_eq!(
                kind,
                Some(BudgetKind::Cancelled),
                "{}: a stopped stream",
                name
            );
            prop_assert!(end.total().value() <= oracle.len() as u64, "{}", name);
        }
        got.extend(handed);
        match end.next_cursor() {
            Some(next) => {
                prop_assert_eq!(next.start(), got.len() as u64, "{}: a cursor's start", name);
                cursor = Some(next.clone());
            }
            None => {
                prop_assert!(
                    end.completeness().is_exact(),
                    "{}: cut without a cursor",
                    name
                );
                prop_assert_eq!(&got[..], oracle, "{}: the streams rebuild the answer", name);
                return Ok(());
            }
        }
    }
    Err(TestCaseError::fail(format!(
        "{name}: the streams did not end"
    )))
}

/// Follows cursors from the start until the answer ends, with the page
/// limits in turn, and checks every page; returns the pages.
fn page_through<C: Corpus + ?Sized>(
    name: &str,
    c: &C,
    query: &Query,
    page_limits: &[usize],
    max_bytes: Option<usize>,
    count_total: bool,
    answer_len: usize,
) -> Result<Vec<Bounded<Match>>, TestCaseError> {
    let mut asked = 0;
    let walked = pages(name, answer_len + 2, |cursor| {
        let limit = page_limits[asked % page_limits.len()];
        asked += 1;
        let mut limits = Limits::new().limit(limit).count_total(count_total);
        if let Some(max) = max_bytes {
            limits = limits.max_bytes(max);
        }
        c.search(query, &limits, cursor)
    });
    let mut start = 0;
    for (page, b) in walked.iter().enumerate() {
        if let Some(max) = max_bytes {
            prop_assert!(
                json_len(b) <= max,
                "{}: page {} is {} bytes",
                name,
                page,
                json_len(b)
            );
        }
        // A page says where it starts, and its total counts the whole
        // answer, also on a resumed page.
        prop_assert_eq!(b.start(), start, "{}: page {}", name, page);
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
        if b.next_cursor().is_some() {
            prop_assert!(
                b.completeness().is_truncated(),
                "{}: a cursor on an exact page",
                name
            );
            prop_assert!(!b.is_empty(), "{}: a cursor that does not advance", name);
        }
        start += b.len() as u64;
    }
    Ok(walked)
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
        let mut refused = Vec::new();
        for (name, c) in f.all() {
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
                        refused.push(name);
                    }
                    _ => prop_assert!(false, "{}: {}", name, e),
                },
            }
        }
        // A budget too small for the required fields is so on every
        // corpus; otherwise every corpus gives the same page.
        if refused.is_empty() {
            agree(&results)?;
        } else {
            prop_assert!(results.is_empty(), "refused only by {:?}", refused);
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
        for (name, c) in f.all() {
            let n = c.count_per_file(&query, &limits, None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let w = c.files_with_matches(&query, &limits, None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let expect_truncated = o.counts.len() > limit;
            prop_assert_eq!(n.completeness().is_truncated(), expect_truncated, "{}: count {:?}", name, n.completeness());
            prop_assert_eq!(w.completeness().is_truncated(), expect_truncated, "{}: files {:?}", name, w.completeness());
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
        let (mut count_walks, mut file_walks) = (Vec::new(), Vec::new());
        for (name, c) in f.all() {
            let full = c.count_per_file(&query, &Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let max = bytes.resolve(json_len(&full));
            let (counts, walked) = budgeted(name, &o.counts, max, &|l, cur| c.count_per_file(&query, l, cur), &counts_of)?;
            prop_assert_eq!(&counts, &o.counts, "{}: count pages", name);
            count_walks.push((name, walked));
            let full = c.files_with_matches(&query, &Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let max = bytes.resolve(json_len(&full));
            let (files, walked) = budgeted(name, &want_files, max, &|l, cur| c.files_with_matches(&query, l, cur), &|b| b.items().to_vec())?;
            prop_assert_eq!(&files, &want_files, "{}: file pages", name);
            file_walks.push((name, walked));
        }
        agree_pages(&count_walks)?;
        agree_pages(&file_walks)?;
    }

    /// Following next_cursor page after page, with changing limits and a
    /// byte budget big enough for any one item, rebuilds the oracle exactly
    /// once; every page fits its budget. Every file ends with a newline
    /// here; `pages_rebuild_the_answer_without_final_newlines` below is
    /// the same property on files that may not.
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
        let want_files: Vec<String> = o.counts.iter().map(|(p, _)| p.clone()).collect();
        let (mut counts, mut files) = (Vec::new(), Vec::new());
        for (name, c) in f.all() {
            let most = o.counts.len() + 2;
            let n = pages(name, most, |cursor| c.count_per_file(&query, &limits, cursor));
            let got: Vec<(String, u64)> = n.iter().flat_map(counts_of).collect();
            prop_assert_eq!(&got, &o.counts, "{}: count pages", name);
            let w = pages(name, most, |cursor| c.files_with_matches(&query, &limits, cursor));
            let got: Vec<String> = w.iter().flat_map(|b| b.items().to_vec()).collect();
            prop_assert_eq!(&got, &want_files, "{}: file pages", name);
            counts.push((name, n));
            files.push((name, w));
        }
        agree_pages(&counts)?;
        agree_pages(&files)?;
    }

    /// search_each hands on exactly the items search returns, and ends
    /// with the same disclosure; its cursor resumes search.
    #[test]
    fn search_each_agrees_with_search(
        (q, corpus) in query_and_corpus(COMMON),
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
        let mut results = Vec::new();
        for (name, c) in f.all() {
            let b = c.search(&query, &limits, None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let mut streamed: Vec<Match> = Vec::new();
            let end = c.search_each(&query, &limits, None, &mut |m| { streamed.push(m.clone()); ControlFlow::Continue(()) })
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
            results.push((name, b));
        }
        agree(&results)?;
    }

    /// A stream that its callback stops (after a match, or failing on
    /// one) says where it stopped, and its cursor resumes there: no match
    /// is lost or repeated (docs/CONTRACT.md, rules 1 and 6).
    #[test]
    fn stopped_streams_resume_where_they_stopped(
        (q, corpus) in query_and_corpus(COMMON),
        stop in 1..6usize,
        fail in any::<bool>(),
    ) {
        // A callback that fails on every first match never moves on.
        let stop = if fail { stop.max(2) } else { stop };
        let o = oracle(&corpus, &q, &[]);
        let query = q.query();
        let f = fixture(&corpus);
        walk_stopped_streams("documents", &f.docs, &query, &o.items, stop, fail)?;
        for (name, tree) in &f.trees {
            walk_stopped_streams(name, tree, &query, &o.items, stop, fail)?;
        }
    }

    /// A streamed search refuses a byte budget.
    #[test]
    fn search_each_refuses_max_bytes(corpus in corpus(COMMON), max in 0..5000usize) {
        let f = fixture(&corpus);
        for (name, c) in f.all() {
            let err = c
                .search_each(&Query::literal("a"), &Limits::new().max_bytes(max), None, &mut |_| ControlFlow::Continue(()))
                .expect_err("max_bytes on a stream");
            prop_assert!(matches!(err.kind(), ErrorKind::InvalidArgument { name: "max_bytes", .. }), "{}: {}", name, err);
        }
    }
}

// ---------------------------------------------------------------------------
// Excerpts

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
        // Named: every line, read as text; said to be binary when the
        // first NUL's line is one asked for or before them.
        let want = excerpt_lines(&doc.bytes, first, last);
        let nul_line = doc.bytes.iter().position(|&b| b == 0).map(|nul| {
            lines(&doc.bytes).iter().take_while(|l| l.offset <= nul as u64).count() as u64
        });
        let told = u64::from(nul_line.is_some_and(|n| n <= last));
        let f = fixture(&corpus);
        let excerpt = Excerpt::new(doc.name.clone(), first..=last);
        let mut results = Vec::new();
        let mut walks = Vec::new();
        for (name, c) in f.all() {
            let b = c.excerpt(&excerpt, &Limits::new(), None).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            let got: Vec<(u64, u64, String)> = b.iter().map(|l| (l.line_number, l.byte_offset, l.line.clone())).collect();
            prop_assert_eq!(&got, &want, "{}", name);
            prop_assert!(b.completeness().is_exact(), "{}", name);
            prop_assert!(b.is_complete(), "{}", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::Binary), 0, "{}", name);
            prop_assert_eq!(b.skipped().count(&SkipReason::BinaryAsText), told, "{}", name);

            let limits = Limits::new().limit(page_limit);
            let walked = pages(name, want.len() + 2, |cursor| c.excerpt(&excerpt, &limits, cursor));
            let told_over: u64 = walked.iter().map(|p| p.skipped().count(&SkipReason::BinaryAsText)).sum();
            prop_assert_eq!(told_over, told, "{}: pages", name);
            let paged: Vec<(u64, u64, String)> = walked
                .iter()
                .flat_map(|b| b.iter().map(|l| (l.line_number, l.byte_offset, l.line.clone())))
                .collect();
            prop_assert_eq!(&paged, &want, "{}: pages", name);
            results.push((name, b));
            walks.push((name, walked));
        }
        agree(&results)?;
        agree_pages(&walks)?;
    }
}

// ---------------------------------------------------------------------------
// Column cuts

proptest! {
    #![proptest_config(config(64))]

    /// With a column limit, a longer line is cut to a window of valid
    /// UTF-8 that keeps the first match (when it fits with room to spare),
    /// and the spans are the oracle's spans clipped to the window: those
    /// that overlap it, and the empty ones within it (a regex's). Every
    /// match the window holds is there, however many more the line has.
    #[test]
    fn cut_lines_keep_their_matches(
        q in query(),
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
                lines(&d.bytes)
                    .into_iter()
                    .map(|l| ((d.name.clone(), l.offset), l.text.to_vec()))
                    .collect::<Vec<_>>()
            })
            .collect();
        for (name, c) in f.all() {
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
                // With room to spare the first match is kept whole, next
                // to wide characters too.
                if e0 - s0 + 12 <= max_columns {
                    prop_assert!(from <= s0 && e0 <= to, "{}: first match {}..{} not in {}..{}", name, s0, e0, from, to);
                }
                let clipped: Vec<(usize, usize)> = want
                    .matches
                    .iter()
                    .filter(|&&(s, e)| if s == e { from <= s && s <= to } else { s.max(from) < e.min(to) })
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
        q in query().prop_map(|q| Q { whole_word: true, ..q }),
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
            for (name, c) in f.all() {
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
        let mut docs: Vec<&Doc> = corpus.iter().filter(|d| d.searched() == Some(&d.bytes[..])).collect();
        docs.sort_by(|a, b| path_order(&a.name, &b.name));
        for doc in docs {
            for l in lines(&doc.bytes) {
                let line = l.text;
                let text = std::str::from_utf8(line).expect("valid UTF-8");
                let touched: Vec<(usize, usize)> = text
                    .char_indices()
                    .map(|(at, c)| (at, at + c.len_utf8()))
                    .filter(|&(s, e)| raw.find_iter(line).any(|m| m.start() < e && s < m.end()))
                    .collect();
                if !touched.is_empty() {
                    want.push((doc.name.clone(), l.number, touched));
                }
            }
        }
        for (name, c) in f.all() {
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

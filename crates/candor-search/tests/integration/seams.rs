//! The paging contract end to end, on `Documents` and on `Tree`, against a
//! naive oracle written here.
//!
//! File names are drawn to hold what tends to break a path: `\`, `:`, a
//! leading `.` or `-`, spaces, newlines, bytes that are not UTF-8 (trees
//! only) and nested folders. Contents come from a small alphabet so that
//! matches are frequent, with CRLF endings, no final newline, empty files
//! and now and then a NUL, which makes a file binary.
//!
//! The oracle walks the files itself, in path order (component by
//! component, each name's bytes), and finds the matches of each line with
//! the line oracle of `fuzz/checks/oracle.rs` (split on `\n`, one trailing
//! `\r` stripped). A search, a count and a listing of files are then paged
//! with random limits from the first page to the end, and every page is
//! checked against these rules: the pages rebuild the answer exactly once, each says where
//! it starts, totals never overstate, an exact page ends the answer, a
//! truncated one has a cursor while more exists, every cursor resumes,
//! every page fits its byte budget and decodes back to itself.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use candor_search::{
    Bounded, BudgetKind, Completeness, Corpus, Cursor, Documents, ErrorKind, FileCount, Limits,
    Match, Query, SkipReason, Total, Tree,
};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tempfile::TempDir;

use crate::core_support::config;
use crate::fixture::{path_order, threaded, written_path};
use crate::oracle::{LineSpans, literal_spans, matching_lines, regex_spans, searched};

// ---------------------------------------------------------------------------
// Corpora

/// The pieces a file name is made of.
const FRAGMENTS: &[&[u8]] = &[
    b"a",
    b"b",
    b"\\",
    b":",
    b".",
    b"-",
    b" ",
    b"\n",
    b"\xff",
    b"\xe2\x82", // a cut "€"
    "é".as_bytes(),
    b"x",
];

/// One name in a folder: one to three fragments.
fn component(utf8: bool) -> impl Strategy<Value = Vec<u8>> {
    let fragments: Vec<&'static [u8]> = FRAGMENTS
        .iter()
        .copied()
        .filter(|f| !utf8 || std::str::from_utf8(f).is_ok())
        .collect();
    prop::collection::vec(prop::sample::select(fragments), 1..=3).prop_map(|parts| parts.concat())
}

fn content() -> impl Strategy<Value = Vec<u8>> {
    let chunk = prop::sample::select(vec![
        "a", "a", "b", "ab", "ba", " ", "é", "x", "\n", "\n", "\r\n",
    ]);
    (
        prop::collection::vec(chunk, 0..14),
        // Now and then a lone "\r" at the very end (no final newline).
        prop::bool::weighted(0.1),
        prop::option::weighted(0.1, any::<prop::sample::Index>()),
    )
        .prop_map(|(chunks, final_cr, nul)| {
            let mut bytes = chunks.concat().into_bytes();
            if final_cr {
                bytes.push(b'\r');
            }
            if let Some(at) = nul {
                let at = at.index(bytes.len() + 1);
                bytes.insert(at, 0);
            }
            bytes
        })
}

/// A file of a tree: its names from the root, and its bytes.
#[derive(Clone)]
struct File {
    names: Vec<Vec<u8>>,
    bytes: Vec<u8>,
}

impl std::fmt::Debug for File {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self
            .names
            .iter()
            .map(|n| n.escape_ascii().to_string())
            .collect();
        write!(
            f,
            "{} => b\"{}\"",
            names.join("/"),
            self.bytes.escape_ascii()
        )
    }
}

/// Files that can live in one tree: no name is `.` or `..`, and no file is
/// a folder of another.
fn tree_files() -> impl Strategy<Value = Vec<File>> {
    prop::collection::vec(
        (prop::collection::vec(component(false), 1..=3), content()),
        0..9,
    )
    .prop_map(|drawn| {
        let mut files: Vec<File> = Vec::new();
        for (names, bytes) in drawn {
            if names.iter().any(|n| n == b"." || n == b"..") {
                continue;
            }
            let clash = files.iter().any(|f| {
                let common = f.names.len().min(names.len());
                f.names[..common] == names[..common]
            });
            if !clash {
                files.push(File { names, bytes });
            }
        }
        files
    })
}

/// A document as handed to `Documents::insert`: any name, valid or not.
#[derive(Debug, Clone)]
struct Doc {
    name: String,
    bytes: Vec<u8>,
}

fn doc_name() -> impl Strategy<Value = String> {
    let drawn = prop::collection::vec(component(true), 1..=3).prop_map(|names| {
        let names: Vec<String> = names
            .into_iter()
            .map(|n| String::from_utf8(n).expect("UTF-8 fragments"))
            .collect();
        names.join("/")
    });
    // Names that name no document, and names that normalize.
    let odd = prop::sample::select(vec![
        "", ".", "./", "/abs", "../up", "a/../..", "a/..", "n\0ul", "./a//b", "a/./b/", "c:d",
    ])
    .prop_map(str::to_owned);
    prop_oneof![6 => drawn, 1 => odd]
}

fn documents() -> impl Strategy<Value = Vec<Doc>> {
    prop::collection::vec(
        (doc_name(), content()).prop_map(|(name, bytes)| Doc { name, bytes }),
        0..9,
    )
}

// ---------------------------------------------------------------------------
// Queries and limits

#[derive(Debug, Clone)]
enum Q {
    Literal(&'static str),
    Literals(Vec<&'static str>),
    Regex(&'static str),
}

const NEEDLES: &[&str] = &["a", "b", "ab", "ba", "é", "a a"];

impl Q {
    fn query(&self) -> Query {
        match self {
            Q::Literal(n) => Query::literal(*n),
            Q::Literals(ns) => Query::literals(ns.iter().copied()),
            Q::Regex(p) => Query::regex(*p),
        }
    }

    /// The oracle's matcher for one line (see `fuzz/checks/oracle.rs`).
    fn line_spans(&self) -> Box<LineSpans> {
        let needles: Vec<String> = match self {
            Q::Literal(n) => vec![(*n).to_owned()],
            Q::Literals(ns) => ns.iter().map(|n| (*n).to_owned()).collect(),
            Q::Regex(p) => return regex_spans(p, false, false).expect("a valid regex"),
        };
        Box::new(move |line| literal_spans(line, &needles, false, false))
    }
}

fn query() -> impl Strategy<Value = Q> {
    prop_oneof![
        prop::sample::select(NEEDLES).prop_map(Q::Literal),
        prop::sample::subsequence(NEEDLES, 2..=3).prop_map(Q::Literals),
        prop::sample::select(vec!["a+", "ab?", "b$", "^a", "[bé]a", r"\ba", "a b*"])
            .prop_map(Q::Regex),
    ]
}

/// An output-bytes budget.
#[derive(Debug, Clone, Copy)]
enum Bytes {
    /// Room for the largest item and its envelope, plus this much.
    Roomy(usize),
    /// A small fixed budget: often too small for one item, or for the
    /// required fields alone.
    Tight(usize),
}

#[derive(Debug, Clone)]
struct Lim {
    limit: Option<usize>,
    max_bytes: Option<Bytes>,
    max_files: Option<u64>,
    max_scanned_bytes: Option<u64>,
    count_total: bool,
}

impl Lim {
    /// The limits, with the budget sized for items of at most `largest`
    /// bytes.
    fn limits(&self, largest: usize) -> Limits {
        match self.max_bytes(largest) {
            Some(max) => self.unbudgeted().max_bytes(max),
            None => self.unbudgeted(),
        }
    }

    /// The limits without the output-bytes budget.
    fn unbudgeted(&self) -> Limits {
        let mut limits = Limits::new().count_total(self.count_total);
        if let Some(limit) = self.limit {
            limits = limits.limit(limit);
        }
        if let Some(files) = self.max_files {
            limits = limits.max_files(files);
        }
        if let Some(scanned) = self.max_scanned_bytes {
            limits = limits.max_scanned_bytes(scanned);
        }
        limits
    }

    fn max_bytes(&self, largest: usize) -> Option<usize> {
        self.max_bytes.map(|b| match b {
            Bytes::Roomy(extra) => largest + 700 + extra,
            Bytes::Tight(max) => max,
        })
    }
}

fn lim() -> impl Strategy<Value = Lim> {
    (
        prop::option::weighted(0.7, 1..6usize),
        prop::option::weighted(
            0.5,
            prop_oneof![
                (0..400usize).prop_map(Bytes::Roomy),
                (0..700usize).prop_map(Bytes::Tight),
            ],
        ),
        prop::option::weighted(0.25, 1..4u64),
        prop::option::weighted(0.25, 0..64u64),
        any::<bool>(),
    )
        .prop_map(
            |(limit, max_bytes, max_files, max_scanned_bytes, count_total)| Lim {
                limit,
                max_bytes,
                max_files,
                max_scanned_bytes,
                count_total,
            },
        )
}

// ---------------------------------------------------------------------------
// The oracle

/// A matching line as the oracle sees it.
type Want = (String, u64, u64, String, Vec<(usize, usize)>);

fn want_of(m: &Match) -> Want {
    (
        m.path.clone(),
        m.line_number,
        m.byte_offset,
        m.line.clone(),
        m.matches.iter().map(|s| (s.start, s.end)).collect(),
    )
}

fn count_of(c: &FileCount) -> (String, u64) {
    (c.path.clone(), c.count)
}

/// A file the oracle searches: its written path, its bytes, and the key
/// it is walked in (its names' bytes, component by component).
struct Entry {
    key: Vec<Vec<u8>>,
    path: String,
    bytes: Vec<u8>,
}

/// The full answers of the three queries, and what the walk skips.
struct Answer {
    lines: Vec<Want>,
    counts: Vec<(String, u64)>,
    files: Vec<String>,
    /// Files the walk reads (binary ones included).
    walked: usize,
    binary: u64,
    hidden: u64,
}

fn answer(mut entries: Vec<Entry>, q: &Q, hidden: u64) -> Answer {
    entries.sort_by(|a, b| a.key.cmp(&b.key));
    let spans = q.line_spans();
    let mut lines = Vec::new();
    let mut counts = Vec::new();
    let mut binary = 0;
    for e in &entries {
        if e.bytes.contains(&0) {
            binary += 1;
        }
        let Some(searched) = searched(&e.bytes) else {
            continue;
        };
        std::str::from_utf8(searched).expect("contents are UTF-8 but for NUL");
        let hits = matching_lines(searched, &*spans);
        let n = hits.len() as u64;
        lines.extend(
            hits.into_iter()
                .map(|h| (e.path.clone(), h.number, h.offset, h.line, h.spans)),
        );
        if n > 0 {
            counts.push((e.path.clone(), n));
        }
    }
    let files = counts.iter().map(|(p, _)| p.clone()).collect();
    Answer {
        lines,
        counts,
        files,
        walked: entries.len(),
        binary,
        hidden,
    }
}

fn tree_answer(files: &[File], q: &Q, hidden: bool) -> Answer {
    let is_hidden = |n: &Vec<u8>| n.first() == Some(&b'.');
    // A hidden folder is counted once, however many files it holds.
    let hidden_entries: BTreeSet<&[Vec<u8>]> = files
        .iter()
        .filter_map(|f| {
            let at = f.names.iter().position(is_hidden)?;
            Some(&f.names[..=at])
        })
        .collect();
    let entries = files
        .iter()
        .filter(|f| hidden || !f.names.iter().any(is_hidden))
        .map(|f| Entry {
            key: f.names.clone(),
            path: written_path(&f.names),
            bytes: f.bytes.clone(),
        })
        .collect();
    let hidden_count = if hidden {
        0
    } else {
        hidden_entries.len() as u64
    };
    answer(entries, q, hidden_count)
}

/// A document name as `Documents::insert` documents it: `./` and repeated
/// separators go away, and a name that names no file (empty, `.`,
/// absolute, above the root, holding a NUL) is refused. As for a caller's
/// path, `\` separates names too and `c:` starts an absolute (drive) path.
fn normalized(name: &str) -> Option<String> {
    if name.contains('\0') {
        return None;
    }
    let unified = name.replace('\\', "/");
    let b = unified.as_bytes();
    if unified.starts_with('/') || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    let first = parts.first()?.as_bytes();
    if first.len() >= 2 && first[0].is_ascii_alphabetic() && first[1] == b':' {
        // `./c:x` is `c:x`, a drive path.
        return None;
    }
    Some(parts.join("/"))
}

// ---------------------------------------------------------------------------
// Paging

type Run<'a, T> = dyn Fn(&Limits, Option<&Cursor>) -> Result<Bounded<T>, candor_search::Error> + 'a;

/// What a walk over all pages saw.
struct Walked<V> {
    items: Vec<V>,
    /// Each page's JSON, to compare corpora that must agree to the byte.
    pages: Vec<String>,
    binary: u64,
    hidden: u64,
}

fn fail(name: &str, what: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(format!("{name}: {what}"))
}

/// Walks `next_cursor` from the first page to the end under `lim`, and
/// checks every page against `answer` (the full answer, in order).
///
/// A page that cannot advance (a byte budget too small for the next item,
/// or for the required fields alone) ends the walk under `lim`: its
/// cursor, or the last one issued, must then resume without the byte
/// budget, and the rest of the answer is read that way.
fn walk<T, V>(
    name: &str,
    run: &Run<T>,
    lim: &Lim,
    answer: &[V],
    files: usize,
    view: &dyn Fn(&T) -> V,
) -> Result<Walked<V>, TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
    V: PartialEq + std::fmt::Debug + Clone,
{
    let whole = run(&Limits::new(), None).map_err(|e| fail(name, e))?;
    let largest = whole
        .iter()
        .map(|item| serde_json::to_string(item).expect("serializes").len())
        .max()
        .unwrap_or(0);
    let mut limits = lim.limits(largest);
    let max_bytes = lim.max_bytes(largest);
    let mut walked = Walked {
        items: Vec::new(),
        pages: Vec::new(),
        binary: 0,
        hidden: 0,
    };
    let mut cursor: Option<Cursor> = None;
    // Each page reads at least one file or returns at least one item,
    // except one that cannot advance, after which the budget goes.
    let most_pages = answer.len() + files + 3;
    for page in 0.. {
        let name = &format!("{name}: page {page}");
        prop_assert!(page <= most_pages, "{}: too many pages", name);
        let b = match run(&limits, cursor.as_ref()) {
            Ok(b) => b,
            Err(e) => match e.kind() {
                ErrorKind::BudgetTooSmall {
                    max_bytes: max,
                    needed,
                } => {
                    prop_assert_eq!(Some(*max), max_bytes, "{}", name);
                    prop_assert!(*needed > *max, "{}: {}", name, e);
                    // `needed` is the smallest response for what the search
                    // had read when it stopped: with that budget it reads
                    // further, and either fits or needs more still.
                    let mut needed = *needed;
                    for retry in 0.. {
                        prop_assert!(retry < 8, "{}: needed keeps growing", name);
                        match run(&limits.clone().max_bytes(needed), cursor.as_ref()) {
                            Ok(again) => {
                                prop_assert!(json_len(&again) <= needed, "{}", name);
                                break;
                            }
                            Err(e) => match e.kind() {
                                ErrorKind::BudgetTooSmall { needed: more, .. }
                                    if *more > needed =>
                                {
                                    needed = *more;
                                }
                                _ => {
                                    return Err(fail(
                                        name,
                                        format!("with max_bytes {needed}: {e}"),
                                    ));
                                }
                            },
                        }
                    }
                    limits = lim.unbudgeted();
                    continue;
                }
                _ => return Err(fail(name, format!("a cursor that does not resume: {e}"))),
            },
        };
        let json = b.to_json().map_err(|e| fail(name, e))?;
        if let Some(max) = limits.get_max_bytes() {
            prop_assert!(
                json.len() <= max,
                "{}: {} bytes over max_bytes {}",
                name,
                json.len(),
                max
            );
        }
        let back: Bounded<T> = serde_json::from_str(&json)
            .map_err(|e| fail(name, format!("does not decode: {e}: {json}")))?;
        prop_assert_eq!(&back, &b, "{}: decodes to another value", name);

        let start = b.start() as usize;
        let end = start + b.len();
        prop_assert_eq!(start, walked.items.len(), "{}: start", name);
        prop_assert!(end <= answer.len(), "{}: more items than the answer", name);
        let got: Vec<V> = b.iter().map(view).collect();
        prop_assert_eq!(&got[..], &answer[start..end], "{}: items", name);
        walked.items.extend(got);

        let total = b.total();
        prop_assert!(end as u64 <= total.value(), "{}: {:?}", name, total);
        prop_assert!(
            total.value() <= answer.len() as u64,
            "{}: {:?} overstates {}",
            name,
            total,
            answer.len()
        );
        if total.is_exact() {
            prop_assert_eq!(total.value(), answer.len() as u64, "{}", name);
        }
        prop_assert!(!b.skipped().has_errors(), "{}: {:?}", name, b.skipped());
        prop_assert_eq!(b.is_complete(), b.completeness().is_exact(), "{}", name);
        walked.pages.push(json.clone());

        let budget = b.completeness().budget().map(|b| b.kind());
        if b.is_empty() && budget == Some(BudgetKind::OutputBytes) {
            // Not one item fitted. Such a page cannot advance, so it has
            // no cursor; the next item with the required fields must
            // really be over the budget. The rest is read from the same
            // place without the byte budget.
            prop_assert!(
                b.next_cursor().is_none(),
                "{}: a cursor that does not advance",
                name
            );
            let max = limits.get_max_bytes().unwrap_or(usize::MAX);
            let least = one_item_len(name, run, lim.unbudgeted(), cursor.as_ref(), &json)?;
            // `used` may gain a digit or two with an item.
            prop_assert!(
                least + 8 > max,
                "{}: a page of one item, {} bytes, would have fitted in {}",
                name,
                least,
                max
            );
            limits = lim.unbudgeted();
            continue;
        }
        walked.binary += b.skipped().count(&SkipReason::Binary);
        walked.hidden += b.skipped().count(&SkipReason::Hidden);

        match b.completeness() {
            Completeness::Exact => {
                prop_assert_eq!(total, Total::Exact(end as u64), "{}", name);
                prop_assert!(b.next_cursor().is_none(), "{}: a cursor", name);
                return Ok(walked);
            }
            c => {
                if c.proves_more() {
                    prop_assert!(end < answer.len(), "{}: false alarm: {:?}", name, c);
                    prop_assert!(total.value() > end as u64, "{}: {:?}", name, total);
                }
                if let Completeness::TruncatedByLimit { limit, requested } = c {
                    prop_assert_eq!(Some(*limit), lim.limit, "{}", name);
                    prop_assert_eq!(*requested, None, "{}", name);
                    prop_assert_eq!(b.len(), *limit, "{}", name);
                    if lim.count_total {
                        prop_assert_eq!(total, Total::Exact(answer.len() as u64), "{}", name);
                    }
                }
            }
        }
        let Some(next) = b.next_cursor() else {
            // Truncated without a cursor: only when nothing is left.
            prop_assert_eq!(
                end,
                answer.len(),
                "{}: truncated, more exist, no cursor",
                name
            );
            return Ok(walked);
        };
        prop_assert!(!b.is_empty() || budget.is_some(), "{}: an empty page", name);
        cursor = Some(next.clone());
    }
    unreachable!("the loop returns")
}

fn json_len<T: Serialize>(b: &Bounded<T>) -> usize {
    b.to_json().expect("serializes").len()
}

/// The length of the page `stopped` (a page without items, stopped by
/// its byte budget) had it held the next item: with the same disclosure
/// but for the optional parts (the skipped sample, the note), which yield
/// to an item, and with the cursor after that item under the same limits
/// but the byte budget (or, when none, as the exact answer it then is).
fn one_item_len<T: Serialize>(
    name: &str,
    run: &Run<T>,
    unbudgeted: Limits,
    cursor: Option<&Cursor>,
    stopped: &str,
) -> Result<usize, TestCaseError> {
    let one = run(&unbudgeted.limit(1), cursor)
        .map_err(|e| fail(name, format!("a cursor that does not resume: {e}")))?;
    prop_assert_eq!(
        one.len(),
        1,
        "{}: an output-bytes stop with nothing after it",
        name
    );
    let mut page: serde_json::Value = serde_json::from_str(stopped).expect("a JSON page");
    if let Some(skipped) = page.get_mut("skipped").and_then(|s| s.as_object_mut()) {
        // The sample yields to items, but its field stays.
        skipped.insert("sample".to_owned(), serde_json::json!([]));
    }
    let fields = page.as_object_mut().expect("a JSON object");
    match one.next_cursor() {
        Some(next) => {
            if let Some(t) = fields.get_mut("truncation").and_then(|t| t.as_object_mut()) {
                t.remove("note");
            }
            fields.insert("next_cursor".to_owned(), next.as_str().into());
        }
        None => {
            fields.remove("truncation");
            fields.insert("complete".to_owned(), true.into());
            fields.insert(
                "total".to_owned(),
                serde_json::json!({"value": one.total().value(), "relation": "eq"}),
            );
        }
    }
    fields.insert("count".to_owned(), 1.into());
    fields.insert("items".to_owned(), serde_json::json!([one.items()[0]]));
    Ok(serde_json::to_string(&page).expect("serializes").len())
}

/// Pages the three queries through `corpus` and compares them with the
/// oracle; returns each walk's page JSON.
fn check_corpus(
    name: &str,
    corpus: &dyn Corpus,
    q: &Q,
    lims: &[Lim; 3],
    want: &Answer,
) -> Result<Vec<String>, TestCaseError> {
    let query = q.query();
    let lines = walk(
        &format!("{name}: search"),
        &|l, c| corpus.search(&query, l, c),
        &lims[0],
        &want.lines,
        want.walked,
        &want_of,
    )?;
    prop_assert_eq!(&lines.items, &want.lines, "{}: search pages", name);
    // A page counts what its search passed over, which can reach past its
    // last item (the probe for one more): the next page may count the
    // same input again, but no input is left uncounted.
    prop_assert!(lines.binary >= want.binary, "{}: binary files", name);
    prop_assert!(lines.hidden >= want.hidden, "{}: hidden entries", name);
    let whole = corpus
        .search(&query, &Limits::new(), None)
        .map_err(|e| fail(name, e))?;
    prop_assert_eq!(
        whole.skipped().count(&SkipReason::Binary),
        want.binary,
        "{}",
        name
    );
    prop_assert_eq!(
        whole.skipped().count(&SkipReason::Hidden),
        want.hidden,
        "{}",
        name
    );

    let counts = walk(
        &format!("{name}: count"),
        &|l, c| corpus.count_per_file(&query, l, c),
        &lims[1],
        &want.counts,
        want.walked,
        &count_of,
    )?;
    prop_assert_eq!(&counts.items, &want.counts, "{}: count pages", name);

    let files = walk(
        &format!("{name}: files"),
        &|l, c| corpus.files_with_matches(&query, l, c),
        &lims[2],
        &want.files,
        want.walked,
        &String::clone,
    )?;
    prop_assert_eq!(&files.items, &want.files, "{}: file pages", name);

    // Two different files never share a path.
    let paths: BTreeSet<&str> = want.counts.iter().map(|(p, _)| p.as_str()).collect();
    prop_assert_eq!(paths.len(), want.counts.len(), "{}: shared paths", name);

    let mut pages = lines.pages;
    pages.extend(counts.pages);
    pages.extend(files.pages);
    Ok(pages)
}

/// The first page of a search that may read nothing (`max_files(0)`) or
/// return nothing (`limit(0)`): it says so, and its cursor resumes.
fn check_nothing_read(
    name: &str,
    corpus: &dyn Corpus,
    q: &Q,
    want: &Answer,
) -> Result<(), TestCaseError> {
    let query = q.query();
    for (what, limits) in [
        ("max_files(0)", Limits::new().max_files(0)),
        ("limit(0)", Limits::new().limit(0)),
    ] {
        let name = &format!("{name}: {what}");
        let b = corpus
            .search(&query, &limits, None)
            .map_err(|e| fail(name, e))?;
        prop_assert!(b.is_empty(), "{}", name);
        let anything = if what == "limit(0)" {
            !want.lines.is_empty()
        } else {
            want.walked > 0
        };
        prop_assert_eq!(
            b.completeness().is_truncated(),
            anything,
            "{}: {:?}",
            name,
            b.completeness()
        );
        if what == "max_files(0)" && b.next_cursor().is_some() {
            // The same budget would read nothing again: the summary says
            // to raise it before resuming.
            let summary = b.summary("matches");
            prop_assert!(
                summary.contains("Raise the file budget, then resume with next_cursor."),
                "{}: {}",
                name,
                summary
            );
        }
        if let Some(next) = b.next_cursor() {
            let rest = corpus
                .search(&query, &Limits::new(), Some(next))
                .map_err(|e| fail(name, format!("a cursor that does not resume: {e}")))?;
            prop_assert_eq!(rest.start(), 0, "{}", name);
            let got: Vec<Want> = rest.iter().map(want_of).collect();
            prop_assert_eq!(&got, &want.lines, "{}: resumed", name);
        }
    }
    Ok(())
}

fn build_tree(files: &[File]) -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for f in files {
        let path: PathBuf = f.names.iter().fold(dir.path().to_path_buf(), |p, n| {
            p.join(OsStr::from_bytes(n))
        });
        std::fs::create_dir_all(path.parent().expect("below the root")).expect("folders");
        std::fs::write(&path, &f.bytes).expect("a file");
    }
    dir
}

proptest! {
    #![proptest_config(config(48))]

    /// Pages of a tree rebuild the oracle's answer exactly once, with 1, 2
    /// and 4 threads, which agree to the byte.
    #[test]
    fn tree_pages_rebuild_the_answer(
        files in tree_files(),
        q in query(),
        lims in [lim(), lim(), lim()],
        hidden in any::<bool>(),
    ) {
        let dir = build_tree(&files);
        let want = tree_answer(&files, &q, hidden);
        let tree = Tree::new(dir.path())
            .map_err(|e| fail("tree", e))?
            .hidden(hidden)
            .parent_ignores(false);
        let trees = threaded(tree);
        let mut walks = Vec::new();
        for (name, tree) in &trees {
            walks.push((name, check_corpus(name, tree, &q, &lims, &want)?));
        }
        let (_, first) = &walks[0];
        for (name, pages) in &walks[1..] {
            prop_assert_eq!(first, pages, "{}: the thread count changed a page", name);
        }
        let (_, four) = &trees[2];
        check_nothing_read("tree", four, &q, &want)?;
    }

    /// Pages of in-memory documents rebuild the oracle's answer exactly
    /// once; names that name no document are refused.
    #[test]
    fn document_pages_rebuild_the_answer(
        drawn in documents(),
        q in query(),
        lims in [lim(), lim(), lim()],
    ) {
        let mut docs = Documents::new();
        let mut kept: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        for d in &drawn {
            let inserted = docs.insert(d.name.clone(), d.bytes.clone());
            match normalized(&d.name) {
                Some(name) => {
                    prop_assert!(inserted.is_ok(), "{:?}: {:?}", d.name, inserted);
                    kept.insert(name, d.bytes.clone());
                }
                None => {
                    let err = inserted.expect_err("a name that names no document");
                    prop_assert!(
                        matches!(
                            err.kind(),
                            ErrorKind::InvalidArgument { .. } | ErrorKind::OutsideRoot { .. }
                        ),
                        "{:?}: {}",
                        d.name,
                        err
                    );
                }
            }
        }
        let names: Vec<&str> = docs.names().collect();
        let mut expected: Vec<&str> = kept.keys().map(String::as_str).collect();
        expected.sort_by(|a, b| path_order(a, b));
        prop_assert_eq!(names, expected, "document names");
        let entries = kept
            .into_iter()
            .map(|(path, bytes)| Entry {
                key: path.split('/').map(|n| n.as_bytes().to_vec()).collect(),
                path,
                bytes,
            })
            .collect();
        let want = answer(entries, &q, 0);
        check_corpus("documents", &docs, &q, &lims, &want)?;
        check_nothing_read("documents", &docs, &q, &want)?;
    }
}

/// The budget a `BudgetTooSmall` error names fits the response it was
/// computed for, although that response names its budget (`max`) and so
/// grows with it.
#[test]
fn the_needed_budget_fits() {
    let docs = Documents::new().with("a", "a");
    for max in [0, 9, 99] {
        let err = docs
            .search(&Query::literal("a"), &Limits::new().max_bytes(max), None)
            .expect_err("too small");
        let ErrorKind::BudgetTooSmall { needed, .. } = err.kind() else {
            panic!("{max}: {err}");
        };
        let b = docs
            .search(
                &Query::literal("a"),
                &Limits::new().max_bytes(*needed),
                None,
            )
            .unwrap_or_else(|e| panic!("{max}: with max_bytes {needed}: {e}"));
        assert!(json_len(&b) <= *needed, "{max}");
    }
}

/// A document name that normalizes to a drive path (`./c:x` is `c:x`) is
/// refused like `c:x`, so every document a search returns can be resumed
/// at and named again.
#[test]
fn names_that_normalize_to_a_drive_path_are_refused() {
    for name in ["c:x", "./c:x", "a/../c:x", "./x:"] {
        let mut docs = Documents::new();
        let err = docs.insert(name, "a\n").expect_err(name);
        assert!(
            matches!(err.kind(), ErrorKind::OutsideRoot { .. }),
            "{name:?}: {err}"
        );
    }
    let docs = Documents::new()
        .with("a", "a\n")
        .with("b/c:x", "a\n")
        .with("d", "a\n");
    let first = docs
        .search(&Query::literal("a"), &Limits::new().limit(1), None)
        .unwrap();
    let second = docs
        .search(
            &Query::literal("a"),
            &Limits::new().limit(1),
            first.next_cursor(),
        )
        .unwrap();
    assert_eq!(second.items()[0].path, "b/c:x");
    let third = docs
        .search(
            &Query::literal("a"),
            &Limits::new().limit(1),
            second.next_cursor(),
        )
        .unwrap();
    assert_eq!(third.items()[0].path, "d");
}

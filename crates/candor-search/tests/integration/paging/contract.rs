//! Properties of paging under tight byte budgets, and of the disclosure's
//! rules as `Bounded::from_parts` and the decoder apply them.
//!
//! Walking `next_cursor` from the first page yields the full answer exactly
//! once; every page fits `max_bytes`, says where it starts and never claims
//! more than its total; every cursor resumes; and whenever the required
//! fields plus one item fit the budget, a page holds an item and a cursor.

use candor_search::{Bounded, JsonStream, Keyset};
use candor_search::{
    Budget, BudgetKind, Clamp, Completeness, Corpus, Cursor, Disclosure, Documents, ErrorKind,
    Fingerprint, Limits, Query, Scope, SkipReason, Skipped, SkippedInput, Total,
};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::ops::ControlFlow;

use crate::core_support::{Knobs, config};
use crate::pages::{Walk, walk};

/// Strings of every length that matter, some JSON-escaped.
fn item_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{0,12}",
        1 => "[a-z\"\\\\\n\u{1}é]{0,40}",
        1 => Just(String::new()),
    ]
}

/// Knobs for a walk: the page limit (with a ceiling that may clamp it),
/// a byte budget that is often tight, and counting.
fn knobs() -> impl Strategy<Value = Knobs> {
    (
        prop::option::weighted(0.7, 1..12usize),
        prop::option::weighted(0.3, 1..8usize),
        prop::option::weighted(0.85, prop_oneof![120..400usize, 400..1200usize]),
        any::<bool>(),
    )
        .prop_map(|(limit, ceiling, max_bytes, count_total)| Knobs {
            limit,
            ceiling,
            max_bytes,
            count_total,
            max_count: None,
            deadline: None,
        })
}

/// The size of the smallest page that holds `item` after `start` items and
/// a cursor: the required fields only (no note, an empty sample), with a
/// total and `used` as wide as they can be.
fn required_with_one<T: Serialize + Clone>(
    item: &T,
    start: u64,
    answer_len: u64,
    cursor: Cursor,
    max: usize,
    skipped: &Skipped,
    clamp: Option<Clamp>,
) -> usize {
    let completeness = Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::OutputBytes, max as u64, max as u64),
        clamp,
    };
    let disclosure = Disclosure::new(completeness, Total::AtLeast(answer_len.max(start + 2)))
        .with_start(start)
        .with_next_cursor(cursor)
        .with_skipped(skipped.clone());
    let b = Bounded::from_parts(vec![item.clone()], disclosure).expect("a valid page");
    let mut value: Value = serde_json::from_str(&b.to_json().unwrap()).unwrap();
    value["truncation"]
        .as_object_mut()
        .expect("a truncation")
        .remove("note");
    if let Some(sample) = value.get_mut("skipped").and_then(|s| s.get_mut("sample")) {
        *sample = Value::Array(Vec::new());
    }
    serde_json::to_string(&value).unwrap().len()
}

/// Checks one page of a walk, after `done` items of `full`: it says where
/// it starts, its total neither falls short of its items nor overstates
/// the answer (and is the answer's length when exact), it holds the next
/// items of the answer, it is exact only when it ends the answer (and then
/// has no cursor), its cursor starts after its items, it fits the byte
/// budget, and its wire form decodes back to the same page.
fn check_page<T>(
    full: &[T],
    done: usize,
    page: &Bounded<T>,
    max_bytes: Option<usize>,
) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + Clone,
{
    let len = page.len() as u64;
    prop_assert_eq!(page.start(), done as u64, "start is the items before");
    prop_assert!(
        page.start() + len <= page.total().value(),
        "start + count > total"
    );
    prop_assert!(
        page.total().value() <= full.len() as u64,
        "total overstates"
    );
    if page.total().is_exact() {
        prop_assert_eq!(page.total().value(), full.len() as u64);
    }
    prop_assert_eq!(page.items(), &full[done..done + page.len()]);
    if page.completeness().is_exact() {
        prop_assert_eq!(done + page.len(), full.len(), "exact but items are missing");
        prop_assert!(page.next_cursor().is_none());
    }
    if let Some(next) = page.next_cursor() {
        prop_assert_eq!(next.start(), page.start() + len);
        prop_assert!(!page.is_empty(), "a cursor that does not advance");
    }
    let json = page.to_json().unwrap();
    if let Some(max) = max_bytes {
        prop_assert!(json.len() <= max, "{} > {}: {}", json.len(), max, json);
    }
    // Serialize then deserialize is the identity, for every form of note.
    let back: Bounded<T> = serde_json::from_str(&json)
        .map_err(|e| TestCaseError::fail(format!("own output refused: {e}: {json}")))?;
    prop_assert_eq!(&back, page);
    prop_assert_eq!(back.to_json().unwrap(), json);
    let mut written = Vec::new();
    page.write_json(&mut written).unwrap();
    prop_assert_eq!(String::from_utf8(written).unwrap(), page.to_json().unwrap());
    Ok(())
}

/// The clamp the knobs cause, if any.
fn clamp_of(limits: &Limits) -> Option<Clamp> {
    limits.applied_limit().clamp()
}

/// Checks the end of a walk over `full` whose pages held `all`: a walk
/// refused only for a budget below the required fields, when one item
/// does not fit with them (`fits_one`, for the request that was refused);
/// a last page truncated without a cursor only when one item does not fit
/// either; otherwise the pages rebuild `full`.
fn check_end<T: PartialEq + std::fmt::Debug>(
    walked: &Walk<T>,
    all: &[T],
    full: &[T],
    max_bytes: Option<usize>,
    fits_one: impl Fn(usize) -> bool,
) -> Result<(), TestCaseError> {
    if let Some(e) = &walked.refused {
        prop_assert!(
            matches!(e.kind(), ErrorKind::BudgetTooSmall { .. }),
            "{}",
            e
        );
        let max = max_bytes.expect("a budget");
        prop_assert!(!fits_one(max), "refused, but one item fits {}", max);
        return Ok(());
    }
    let last = walked.pages.last().expect("a page");
    if last.completeness().is_truncated() {
        prop_assert!(
            max_bytes.is_some_and(|m| !fits_one(m)),
            "truncated without a cursor: {:?}",
            last
        );
        prop_assert_eq!(all, &full[..all.len()]);
    } else {
        prop_assert_eq!(all, full, "pages do not rebuild the answer");
    }
    Ok(())
}

/// Checks that a truncated page under a budget that holds one item with
/// the required fields (`fits_one`) has an item and a cursor.
fn check_advances<T>(
    page: &Bounded<T>,
    max_bytes: Option<usize>,
    fits_one: impl Fn(usize) -> bool,
) -> Result<(), TestCaseError> {
    if let (Some(max), true) = (max_bytes, page.completeness().is_truncated()) {
        if fits_one(max) {
            prop_assert!(!page.is_empty(), "one item fits {} but none was given", max);
            prop_assert!(page.next_cursor().is_some(), "no cursor");
        }
    }
    Ok(())
}

/// Walks `Bounded::page` over `full` and checks every page.
fn walk_pages(full: &[String], knobs: &Knobs) -> Result<(), TestCaseError> {
    let scope = Scope::new(Fingerprint::of("tight pages"));
    let limits = knobs.limits();
    let walked = walk("tight pages", full.len() + 2, |cursor| {
        Bounded::page(full.iter().cloned(), &limits, &scope, cursor)
    });
    // Whether the page after `done` items, resumed from `cursor`, holds
    // one item with the required fields within `max`.
    let fits_one = |done: usize, cursor: Option<&Cursor>, max: usize| {
        // The cursor a page of one item would carry, as `page` writes it.
        let one_cursor = Bounded::page(
            full.iter().cloned(),
            &Limits::new().limit(1),
            &scope,
            cursor,
        )
        .ok()
        .and_then(|p| p.next_cursor().cloned());
        full.get(done).is_some_and(|item| {
            let done = done as u64;
            let next = one_cursor.unwrap_or_else(|| scope.cursor(&(done + 1), done + 1));
            let required = required_with_one(
                item,
                done,
                full.len() as u64,
                next,
                max,
                &Skipped::new(),
                clamp_of(&limits),
            );
            required <= max
        })
    };
    let mut all: Vec<String> = Vec::new();
    let mut cursor: Option<&Cursor> = None;
    for page in &walked.pages {
        let done = all.len();
        check_page(full, done, page, knobs.max_bytes)?;
        if knobs.limit != Some(0) {
            check_advances(page, knobs.max_bytes, |max| fits_one(done, cursor, max))?;
        }
        if let Some(clamp) = clamp_of(&limits) {
            if page.completeness().is_truncated() {
                prop_assert_eq!(page.completeness().clamp(), Some(clamp), "clamp lost");
            }
        }
        all.extend_from_slice(page.items());
        cursor = page.next_cursor();
    }
    // The request after the last page (refused), or the last page itself.
    let (done, cursor) = match walked.refused {
        Some(_) => (all.len(), cursor),
        None => {
            let before = walked.pages.len() - 1;
            let cursor = before
                .checked_sub(1)
                .and_then(|k| walked.pages[k].next_cursor());
            (all.len() - walked.pages[before].len(), cursor)
        }
    };
    check_end(&walked, &all, full, knobs.max_bytes, |max| {
        fits_one(done, cursor, max)
    })
}

/// Walks `Bounded::page` over a `Keyset` of sorted unique strings.
fn walk_key_pages(full: &[String], knobs: &Knobs) -> Result<(), TestCaseError> {
    let scope = Scope::new(Fingerprint::of("tight key pages"));
    let limits = knobs.limits();
    let walked = walk("tight key pages", full.len() + 2, |cursor| {
        let source = |request: candor_search::KeyRequest<String>| {
            let after = request.into_after();
            full.iter()
                .filter(move |s| after.as_ref().is_none_or(|a| *s > a))
                .cloned()
        };
        Bounded::page(Keyset::new(source, String::clone), &limits, &scope, cursor)
    });
    // Whether the page after `done` items holds one item with the
    // required fields within `max`.
    let fits_one = |done: usize, max: usize| {
        full.get(done).is_some_and(|item| {
            let done = done as u64;
            let next = scope.cursor(item, done + 1);
            required_with_one(
                item,
                done,
                full.len() as u64,
                next,
                max,
                &Skipped::new(),
                clamp_of(&limits),
            ) <= max
        })
    };
    let mut all: Vec<String> = Vec::new();
    for page in &walked.pages {
        let done = all.len();
        check_page(full, done, page, knobs.max_bytes)?;
        check_advances(page, knobs.max_bytes, |max| fits_one(done, max))?;
        if let Some(next) = page.next_cursor() {
            let key: String = scope.resume(next).expect("every cursor resumes");
            prop_assert_eq!(Some(&key), page.items().last());
        }
        all.extend_from_slice(page.items());
    }
    let done = match walked.refused {
        Some(_) => all.len(),
        None => all.len() - walked.pages.last().map_or(0, Bounded::len),
    };
    check_end(&walked, &all, full, knobs.max_bytes, |max| {
        fits_one(done, max)
    })
}

/// A corpus: documents of lines, some binary (skipped by policy).
#[derive(Debug, Clone)]
struct Doc {
    lines: Vec<bool>,
    binary: bool,
}

fn docs() -> impl Strategy<Value = Vec<Doc>> {
    prop::collection::vec(
        (
            prop::collection::vec(any::<bool>(), 0..6),
            prop::bool::weighted(0.2),
        )
            .prop_map(|(lines, binary)| Doc { lines, binary }),
        0..14,
    )
}

fn corpus(docs: &[Doc]) -> (Documents<'static>, Vec<(String, u64)>) {
    let mut corpus = Documents::new();
    let mut oracle = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let name = format!("d{i:02}.txt");
        let mut text = String::new();
        for (n, hit) in doc.lines.iter().enumerate() {
            text.push_str(if *hit { "a fish here\n" } else { "nothing\n" });
            if *hit && !doc.binary {
                oracle.push((name.clone(), n as u64 + 1));
            }
        }
        if doc.binary {
            text.push('\0');
        }
        corpus.insert(name, text).unwrap();
    }
    (corpus, oracle)
}

/// Walks a search over `Documents`, against the oracle of matching lines.
fn walk_search(docs: &[Doc], knobs: &Knobs) -> Result<(), TestCaseError> {
    let (corpus, oracle) = corpus(docs);
    let query = Query::literal("fish");
    let limits = knobs.limits();
    let walked = walk("tight search pages", oracle.len() + 2, |cursor| {
        corpus.search(&query, &limits, cursor)
    });
    // The size of the smallest page that holds the match after `done`
    // others, with `skipped`.
    let required = |done: usize, max: usize, skipped: &Skipped| {
        corpus_match(&corpus, &oracle, done).map(|first| {
            let done = done as u64;
            required_with_one(
                &first,
                done,
                oracle.len() as u64,
                scope_cursor(&first, done),
                max,
                skipped,
                clamp_of(&limits),
            )
        })
    };
    let mut all: Vec<(String, u64)> = Vec::new();
    for page in &walked.pages {
        let got: Vec<(String, u64)> = page
            .iter()
            .map(|m| (m.path.clone(), m.line_number))
            .collect();
        prop_assert_eq!(page.start(), all.len() as u64);
        prop_assert!(page.start() + page.len() as u64 <= page.total().value());
        prop_assert!(page.total().value() <= oracle.len() as u64);
        prop_assert_eq!(got.as_slice(), &oracle[all.len()..all.len() + got.len()]);
        let json = page.to_json().unwrap();
        if let Some(max) = knobs.max_bytes {
            prop_assert!(json.len() <= max, "{} > {}", json.len(), max);
        }
        let back: Bounded<candor_search::Match> = serde_json::from_str(&json)
            .map_err(|e| TestCaseError::fail(format!("own output refused: {e}: {json}")))?;
        prop_assert_eq!(&back, page);
        // When one match fits with the required fields, the page has one.
        let done = all.len();
        check_advances(page, knobs.max_bytes, |max| {
            required(done, max, page.skipped()).is_some_and(|r| r <= max)
        })?;
        if page.next_cursor().is_some() {
            prop_assert!(!page.is_empty(), "a cursor that does not advance");
        }
        all.extend(got);
    }
    match &walked.refused {
        Some(e) => {
            prop_assert!(
                matches!(e.kind(), ErrorKind::BudgetTooSmall { .. }),
                "{}",
                e
            );
            // Never a budget that holds the next match with them.
            let max = knobs.max_bytes.expect("a budget");
            if let Some(required) = required(all.len(), max, &Skipped::new()) {
                prop_assert!(required > max, "refused, but one match fits {}", max);
            }
        }
        None => {
            if !walked
                .pages
                .last()
                .expect("a page")
                .completeness()
                .is_truncated()
            {
                prop_assert_eq!(&all, &oracle, "pages do not rebuild the answer");
            }
        }
    }
    Ok(())
}

/// A cursor at least as long as the engine's after `first`, the match
/// after `done` others.
fn scope_cursor(first: &candor_search::Match, done: u64) -> Cursor {
    // As long as a search cursor can be, or longer: its key is the path,
    // the place (offset and line), the file's stamp and the order of the
    // files before it (8 bytes each).
    let key = (first.path.clone(), (u64::MAX, u64::MAX), vec![0xff_u8; 16]);
    Scope::new(Fingerprint::of("q"))
        .generation(u64::MAX)
        .cursor(&key, done + 1)
}

/// The match the oracle has at `index`, as the engine returns it alone.
fn corpus_match(
    corpus: &Documents<'_>,
    oracle: &[(String, u64)],
    index: usize,
) -> Option<candor_search::Match> {
    let (path, line) = oracle.get(index)?;
    let query = Query::literal("fish").paths([path.as_str()]);
    let found = corpus.search(&query, &Limits::new(), None).ok()?;
    found.iter().find(|m| m.line_number == *line).cloned()
}

// ---------------------------------------------------------------------------
// The disclosure's rules, built by hand

/// A disclosure that obeys the rules, for `count` items.
fn valid_disclosure() -> impl Strategy<Value = (Vec<u32>, Disclosure)> {
    (
        prop::collection::vec(any::<u32>(), 0..6),
        0..1000u64,
        0..6usize,
        0..5u64,
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        prop::collection::vec((0..8usize, "[a-z/]{1,8}", any::<bool>()), 0..9),
        any::<bool>(),
    )
        .prop_map(
            |(
                items,
                start,
                kind,
                extra,
                (with_cursor, subset, reached, note),
                skips,
                exact_total,
            )| {
                let count = items.len();
                let end = start + count as u64;
                let limit = count;
                let completeness = match kind {
                    0 => Completeness::Exact,
                    1 => Completeness::TruncatedByLimit {
                        limit,
                        requested: (extra > 2).then_some(limit + extra as usize),
                    },
                    2 => Completeness::TruncatedByBudget {
                        budget: Budget::new(BudgetKind::OutputBytes, 4096, 4000),
                        clamp: (extra > 2).then(|| Clamp::new(limit, limit + 7)),
                    },
                    3 if count == 0 => Completeness::TruncatedByBudget {
                        // A page too small for one item says what one needs.
                        budget: Budget::new(BudgetKind::OutputBytes, 300, 240)
                            .with_needed(301 + extra),
                        clamp: None,
                    },
                    4 => Completeness::TruncatedByBudget {
                        budget: Budget::new(BudgetKind::Cancelled, 0, 0),
                        clamp: None,
                    },
                    _ => Completeness::TruncatedByBudget {
                        budget: Budget::new(BudgetKind::Deadline, 50, 70),
                        clamp: (extra > 3).then(|| Clamp::new(limit, limit + 2)),
                    },
                };
                // A budget stop may have reached the limit as well.
                let reached = reached && completeness.is_truncated_by_budget();
                let proves_more = completeness.proves_more() || reached;
                let total = if completeness.is_exact() {
                    Total::Exact(end)
                } else {
                    let more = u64::from(proves_more) + extra;
                    // An exact total of start + count would leave nothing
                    // missing: a truncated result's exact total is above it.
                    if exact_total && more > 0 {
                        Total::Exact(end + more)
                    } else {
                        Total::AtLeast(end + more)
                    }
                };
                let mut skipped = Skipped::new();
                for (reason, path, named) in skips {
                    let (reason, policy) = match reason {
                        0 => (SkipReason::Binary, false),
                        1 => (SkipReason::TooLarge, false),
                        2 => (SkipReason::Unreadable, false),
                        3 => (SkipReason::Symlink, false),
                        4 => (SkipReason::Changed, false),
                        5 => (SkipReason::other("shard_failed").unwrap(), false),
                        6 => (SkipReason::other("pre_filtered").unwrap(), true),
                        _ => (SkipReason::other("locked").unwrap(), named),
                    };
                    let mut input = SkippedInput::new(path, reason);
                    if policy {
                        input = input.policy();
                    }
                    if named {
                        input = input.named();
                    }
                    skipped.record(input);
                }
                let mut d = Disclosure::new(completeness.clone(), total)
                    .with_start(start)
                    .with_skipped(skipped);
                if reached {
                    d = d.with_limit_reached(limit);
                }
                if note && completeness.is_truncated() {
                    d = d.with_note(format!("The cluster stopped after {count} hits."));
                }
                if subset && completeness.is_truncated() {
                    d = d.with_subset();
                } else if with_cursor && completeness.is_truncated() {
                    let scope = Scope::new(Fingerprint::of("parts"));
                    d = d.with_next_cursor(scope.cursor(&end, end));
                }
                (items, d)
            },
        )
}

/// Ways to break one rule of a valid envelope, on the wire.
#[derive(Debug, Clone, Copy)]
enum Breakage {
    TotalBelowEnd,
    SkippedTotalOff,
    CountOff,
    CursorOnExact,
    StartPastTotal,
    /// An error skip's count left out of `errors`.
    ErrorsDropped,
    /// A subset that offers a cursor.
    CursorOnSubset,
    /// A truncated page whose total says nothing is missing.
    NothingMissing,
}

fn break_wire(value: &mut Value, how: Breakage) -> bool {
    let end = value["start"].as_u64().unwrap_or(0) + value["count"].as_u64().unwrap();
    match how {
        Breakage::TotalBelowEnd if end > 0 => value["total"]["value"] = (end - 1).into(),
        Breakage::SkippedTotalOff if value.get("skipped").is_some() => {
            let t = value["skipped"]["total"].as_u64().unwrap();
            value["skipped"]["total"] = (t + 1).into();
        }
        Breakage::CountOff => {
            let c = value["count"].as_u64().unwrap();
            value["count"] = (c + 1).into();
        }
        Breakage::CursorOnExact if value.get("truncation").is_none() => {
            let token = Scope::new(Fingerprint::of("parts")).cursor(&end, end);
            value["next_cursor"] = token.to_string().into();
        }
        Breakage::StartPastTotal => {
            let total = value["total"]["value"].as_u64().unwrap();
            value["start"] = (total + 1).into();
        }
        Breakage::ErrorsDropped => {
            let Some(errors) = value["skipped"]["errors"].as_object_mut() else {
                return false;
            };
            // A reason candor defines as an error: each of its skips is one.
            let Some(key) = ["unreadable", "changed"]
                .into_iter()
                .find(|k| errors.contains_key(*k))
            else {
                return false;
            };
            errors.remove(key);
        }
        Breakage::CursorOnSubset if value["truncation"]["subset"] == true => {
            let token = Scope::new(Fingerprint::of("parts")).cursor(&end, end);
            value["next_cursor"] = token.to_string().into();
        }
        Breakage::NothingMissing if value.get("truncation").is_some() => {
            value["total"] = serde_json::json!({ "value": end, "relation": "eq" });
        }
        _ => return false,
    }
    true
}

proptest! {
    #![proptest_config(config(128))]

    /// `Bounded::page` under tight budgets and clamped limits: every page
    /// is a slice of the answer that says where it starts, with an honest
    /// total, within its budget; one holds an item whenever one fits; and
    /// the pages rebuild the answer exactly once.
    #[test]
    fn pages_under_tight_budgets_rebuild_the_answer(
        full in prop::collection::vec(item_string(), 0..30),
        knobs in knobs(),
    ) {
        walk_pages(&full, &knobs)?;
    }

    /// The same for a `Keyset`.
    #[test]
    fn key_pages_under_tight_budgets_rebuild_the_answer(
        full in prop::collection::btree_set(item_string(), 0..30),
        knobs in knobs(),
    ) {
        let full: Vec<String> = full.into_iter().collect();
        walk_key_pages(&full, &knobs)?;
    }

    /// The same for a search over `Documents`, with skipped inputs.
    #[test]
    fn searches_under_tight_budgets_rebuild_the_answer(docs in docs(), knobs in knobs()) {
        walk_search(&docs, &knobs)?;
    }

    /// A valid disclosure is accepted by `from_parts`, and its wire form
    /// decodes to the same result and encodes to the same bytes.
    #[test]
    fn valid_parts_round_trip((items, disclosure) in valid_disclosure()) {
        let b = Bounded::from_parts(items, disclosure.clone())
            .map_err(|e| TestCaseError::fail(format!("{e}: {disclosure:?}")))?;
        prop_assert_eq!(b.disclosure(), &disclosure);
        let json = b.to_json().unwrap();
        let back: Bounded<u32> = serde_json::from_str(&json)
            .map_err(|e| TestCaseError::fail(format!("{e}: {json}")))?;
        prop_assert_eq!(&back, &b);
        prop_assert_eq!(back.to_json().unwrap(), json);
    }

    /// Breaking one rule on the wire is refused by the decoder, and the
    /// same parts are refused by `from_parts`.
    #[test]
    fn broken_rules_are_refused(
        (items, disclosure) in valid_disclosure(),
        how in prop_oneof![
            Just(Breakage::TotalBelowEnd),
            Just(Breakage::SkippedTotalOff),
            Just(Breakage::CountOff),
            Just(Breakage::CursorOnExact),
            Just(Breakage::StartPastTotal),
            Just(Breakage::ErrorsDropped),
            Just(Breakage::CursorOnSubset),
            Just(Breakage::NothingMissing),
        ],
    ) {
        let b = Bounded::from_parts(items, disclosure).expect("valid");
        let mut value: Value = serde_json::from_str(&b.to_json().unwrap()).unwrap();
        prop_assume!(break_wire(&mut value, how));
        let json = value.to_string();
        prop_assert!(
            serde_json::from_str::<Bounded<u32>>(&json).is_err(),
            "accepted {:?}: {}", how, json
        );
    }
}

// ---------------------------------------------------------------------------
// Examples

#[test]
fn from_parts_refuses_each_broken_rule_with_its_reason() {
    let scope = Scope::new(Fingerprint::of("parts"));
    let limit = |limit, requested| Completeness::TruncatedByLimit { limit, requested };
    let mut unreadable = Skipped::new();
    unreadable.record(SkippedInput::new("a", SkipReason::Unreadable));
    let cases: Vec<(&str, Vec<u32>, Disclosure, &str)> = vec![
        (
            "exact total other than start + count",
            vec![1, 2],
            Disclosure::new(Completeness::Exact, Total::Exact(3)),
            "exact total",
        ),
        (
            "exact with a lower bound",
            vec![1],
            Disclosure::new(Completeness::Exact, Total::AtLeast(1)),
            "exact total",
        ),
        (
            "exact with a cursor",
            vec![1],
            Disclosure::new(Completeness::Exact, Total::Exact(1))
                .with_next_cursor(scope.cursor(&1u64, 1)),
            "next_cursor",
        ),
        (
            "total below start + count",
            vec![1, 2],
            Disclosure::new(limit(2, None), Total::AtLeast(5)).with_start(4),
            "below count",
        ),
        (
            "limit stop without more",
            vec![1, 2],
            Disclosure::new(limit(2, None), Total::AtLeast(2)),
            "above start + count",
        ),
        (
            "more items than the limit",
            vec![1, 2, 3],
            Disclosure::new(limit(2, None), Total::AtLeast(9)),
            "holds 2 items, not 3",
        ),
        (
            "fewer items than the limit",
            vec![1, 2, 3],
            Disclosure::new(limit(10, None), Total::AtLeast(11)),
            "holds 10 items, not 3",
        ),
        (
            "requested not above the limit",
            vec![1, 2],
            Disclosure::new(limit(2, Some(2)), Total::AtLeast(9)),
            "requested",
        ),
        (
            "a budget stop with nothing missing",
            vec![1, 2],
            Disclosure::new(
                Completeness::TruncatedByBudget {
                    budget: Budget::new(BudgetKind::Deadline, 10, 12),
                    clamp: None,
                },
                Total::Exact(5),
            )
            .with_start(3)
            .with_next_cursor(scope.cursor(&5u64, 5)),
            "nothing would be missing",
        ),
        (
            "a subset with a cursor",
            vec![1],
            Disclosure::new(
                Completeness::TruncatedByBudget {
                    budget: Budget::new(BudgetKind::Deadline, 10, 12),
                    clamp: None,
                },
                Total::AtLeast(1),
            )
            .with_subset()
            .with_next_cursor(scope.cursor(&1u64, 1)),
            "a subset has no next_cursor",
        ),
        (
            "an exact subset",
            vec![1],
            Disclosure::new(Completeness::Exact, Total::Exact(1)).with_subset(),
            "neither a subset",
        ),
        (
            "limit reached beside a limit stop",
            vec![1, 2],
            Disclosure::new(limit(2, None), Total::AtLeast(3)).with_limit_reached(2),
            "limit_reached",
        ),
        (
            "limit reached with fewer items",
            vec![1],
            Disclosure::new(
                Completeness::TruncatedByBudget {
                    budget: Budget::new(BudgetKind::Deadline, 10, 12),
                    clamp: None,
                },
                Total::AtLeast(3),
            )
            .with_limit_reached(2),
            "reached its limit of 2",
        ),
        (
            "needed on a page with an item",
            vec![1],
            Disclosure::new(
                Completeness::TruncatedByBudget {
                    budget: Budget::new(BudgetKind::OutputBytes, 300, 280).with_needed(400),
                    clamp: None,
                },
                Total::AtLeast(2),
            ),
            "needed",
        ),
        (
            "a custom reason named as a built-in one",
            vec![1],
            Disclosure::new(Completeness::Exact, Total::Exact(1)).with_skipped({
                let mut s = Skipped::new();
                s.record(SkippedInput::new("x", SkipReason::Other("binary".into())));
                s
            }),
            "names a reason candor defines",
        ),
        (
            "an error reason counted as policy",
            vec![1],
            Disclosure::new(Completeness::Exact, Total::Exact(1)).with_skipped({
                let mut s = Skipped::new();
                s.record(SkippedInput::new("x", SkipReason::Unreadable).policy());
                s
            }),
            "every skip of it is an error",
        ),
        (
            "clamp not above its limit",
            vec![1],
            Disclosure::new(
                Completeness::TruncatedByBudget {
                    budget: Budget::new(BudgetKind::Files, 3, 3),
                    clamp: Some(Clamp::new(5, 5)),
                },
                Total::AtLeast(1),
            ),
            "requested",
        ),
        (
            "output bytes over the max",
            vec![1],
            Disclosure::new(
                Completeness::TruncatedByBudget {
                    budget: Budget::new(BudgetKind::OutputBytes, 100, 101),
                    clamp: None,
                },
                Total::AtLeast(2),
            ),
            "output-bytes",
        ),
        (
            "cursor at the wrong item",
            vec![1, 2],
            Disclosure::new(limit(2, None), Total::AtLeast(3))
                .with_next_cursor(scope.cursor(&2u64, 0)),
            "resumes after item 0",
        ),
    ];
    let mut names: Vec<&str> = cases.iter().map(|c| c.0).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    for (name, items, disclosure, needle) in cases {
        let err = Bounded::from_parts(items, disclosure).expect_err(name);
        assert!(
            matches!(err.kind(), ErrorKind::InvalidDisclosure { .. }),
            "{name}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(needle),
            "{name}: {message:?} lacks {needle:?}"
        );
    }
    // A valid one is accepted, and says so.
    let ok = Bounded::from_parts(
        vec![1u32],
        Disclosure::new(Completeness::Exact, Total::Exact(1)).with_skipped(unreadable),
    )
    .unwrap();
    assert!(!ok.is_complete(), "an error skip makes it incomplete");
}

#[test]
fn the_summary_names_which_items_of_how_many() {
    let scope = Scope::new(Fingerprint::of("numbers below 25"));
    let limits = Limits::new().limit(10).count_total(true);
    let first = Bounded::page(0..25u32, &limits, &scope, None).unwrap();
    let second = Bounded::page(0..25u32, &limits, &scope, first.next_cursor()).unwrap();
    let third = Bounded::page(0..25u32, &limits, &scope, second.next_cursor()).unwrap();
    assert_eq!(
        first.summary("matches"),
        "Incomplete: matches 1-10 of 25 (limit 10). Resume with next_cursor."
    );
    assert_eq!(
        second.summary("matches"),
        "Incomplete: matches 11-20 of 25 (limit 10). Resume with next_cursor."
    );
    assert_eq!(
        third.summary("matches"),
        "Complete: matches 21-25 of 25 (the last page)."
    );
    let one = Bounded::collect(0..3u32, &Limits::new().limit(1)).unwrap();
    assert_eq!(
        one.summary("matches"),
        "Incomplete: matches 1-1 of at least 2 (limit 1). Raise the limit or narrow the query to see the rest."
    );
    let none = Bounded::collect(0..3u32, &Limits::new().limit(0)).unwrap();
    assert_eq!(
        none.summary("matches"),
        "Matches exist (at least 1); none shown: limit 0. Ask with count_total for the exact total, or raise the limit to see them."
    );
    let clamped = Bounded::collect(
        0..5000u32,
        &Limits::new().ceiling(1000).limit(100_000).max_bytes(2000),
    )
    .unwrap();
    assert!(
        clamped
            .summary("matches")
            .contains("limit 1000, 100000 requested, above the ceiling"),
        "{}",
        clamped.summary("matches")
    );
}

#[test]
fn a_stream_writes_the_wire_shape_of_the_collected_search() {
    let mut docs = Documents::new();
    for i in 0..4 {
        docs.insert(format!("f{i}.txt"), "fish\n\"fish\"\nfish\n")
            .unwrap();
    }
    docs.insert("z.bin", b"fish\0".to_vec()).unwrap();
    let query = Query::literal("fish");
    for limits in [
        Limits::new(),
        Limits::new().limit(5),
        Limits::new().limit(12),
    ] {
        let collected = docs.search(&query, &limits, None).unwrap();
        let mut json = JsonStream::new();
        let end = docs
            .search_each(&query, &limits, None, &mut |m| {
                json.push(m).unwrap();
                ControlFlow::Continue(())
            })
            .unwrap();
        let mut out = Vec::new();
        json.write(&end, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            collected.to_json().unwrap()
        );
        assert_eq!(end.disclosure(), collected.disclosure());
    }
}

#[test]
fn the_applied_limit_is_a_named_value() {
    let applied = Limits::new().ceiling(10).limit(40).applied_limit();
    assert_eq!(applied.limit(), Some(10));
    assert_eq!(applied.requested(), Some(40));
    assert_eq!(applied.clamp(), Some(Clamp::new(10, 40)));
    let plain = Limits::new().limit(4).applied_limit();
    assert_eq!((plain.limit(), plain.requested()), (Some(4), None));
    assert_eq!(Limits::new().max_bytes(9).get_max_bytes(), Some(9));
    let counted = Bounded::collect(
        0..100u32,
        &Limits::new().limit(2).count_total(true).max_counted(5),
    )
    .unwrap();
    assert_eq!(counted.total(), Total::AtLeast(5));
}

#[test]
fn a_cursor_carries_its_start_through_its_token() {
    let scope = Scope::new(Fingerprint::of("q"));
    let c = scope.cursor(&7u64, 7);
    assert_eq!(c.start(), 7);
    let parsed: Cursor = c.to_string().parse().unwrap();
    assert_eq!(parsed, c);
    assert_eq!(scope.cursor(&7u64, 0).start(), 0); // a first page's place
}

// ---------------------------------------------------------------------------
// A budget the answer already fits changes nothing

/// Runs `query` without a byte budget and with `max_bytes`; whenever the
/// answer without the budget fits in it, the budgeted answer must be the
/// same to the byte: a budget only ever cuts what does not fit.
fn budget_that_fits_changes_nothing<T>(
    max_bytes: usize,
    query: impl Fn(&Limits) -> Result<Bounded<T>, candor_search::Error>,
    limits: &Limits,
) -> Result<(), TestCaseError>
where
    T: Serialize + std::fmt::Debug + PartialEq,
{
    let free = query(limits).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let free_json = free
        .to_json()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    if free_json.len() > max_bytes {
        return Ok(());
    }
    let budgeted = query(&limits.clone().max_bytes(max_bytes))
        .map_err(|e| TestCaseError::fail(format!("{e} (the free answer is {free_json})")))?;
    let budgeted_json = budgeted
        .to_json()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        &budgeted_json,
        &free_json,
        "max_bytes {} changed an answer of {} bytes",
        max_bytes,
        free_json.len()
    );
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    /// `collect`, `page` (first and resumed pages, an iterator and a `Keyset`) under a
    /// budget their answer fits: the same answer. A limit stop writes a
    /// shorter envelope than a cut by the budget, so a page that fits with
    /// all its items must not be cut to fewer, or to none.
    #[test]
    fn a_budget_the_answer_fits_changes_nothing(
        n in 0u64..24,
        limit in proptest::option::of(0usize..10),
        max_bytes in 60usize..420,
        resume_after in 0u64..6,
    ) {
        let mut limits = Limits::new();
        if let Some(limit) = limit {
            limits = limits.limit(limit);
        }
        let scope = Scope::new(Fingerprint::of("numbers"));
        budget_that_fits_changes_nothing(max_bytes, |l| Bounded::collect(1..=n, l), &limits)?;
        budget_that_fits_changes_nothing(max_bytes, |l| Bounded::page(1..=n, l, &scope, None), &limits)?;
        // A resumed page: the cursor comes from a page without a budget.
        let first = Bounded::page(1..=n, &Limits::new().limit(resume_after as usize), &scope, None).unwrap();
        if let Some(cursor) = first.next_cursor() {
            budget_that_fits_changes_nothing(
                max_bytes,
                |l| Bounded::page(1..=n, l, &scope, Some(cursor)),
                &limits,
            )?;
        }
        let keyed = |l: &Limits| {
            Bounded::page(Keyset::new(|request: candor_search::KeyRequest<u64>| {
                    let after = request.after().copied().unwrap_or(0);
                    (after + 1..=n).take(request.fetch().unwrap_or(usize::MAX))
                }, |k: &u64| *k), l, &scope, None)
        };
        budget_that_fits_changes_nothing(max_bytes, keyed, &limits)?;
    }

    /// The same for a search over documents.
    #[test]
    fn a_budget_the_search_fits_changes_nothing(
        docs in docs(),
        limit in proptest::option::of(0usize..6),
        max_bytes in 100usize..900,
    ) {
        let (corpus, _) = corpus(&docs);
        let mut limits = Limits::new();
        if let Some(limit) = limit {
            limits = limits.limit(limit);
        }
        let query = Query::literal("fish");
        budget_that_fits_changes_nothing(
            max_bytes,
            |l| corpus.search(&query, l, None),
            &limits,
        )?;
    }
}

/// The case that showed it: four items of ten with a limit of 4 fit in
/// about 170 bytes, yet a budget a few bytes above that gave an empty page
/// with no cursor.
#[test]
fn a_limit_page_that_fits_its_budget_keeps_its_items_and_cursor() {
    let scope = Scope::new(Fingerprint::of("k"));
    let free = Bounded::page(1..=10u64, &Limits::new().limit(4), &scope, None).unwrap();
    let fits = free.to_json().unwrap().len();
    for max_bytes in fits..=fits + 94 {
        let page = Bounded::page(
            1..=10u64,
            &Limits::new().limit(4).max_bytes(max_bytes),
            &scope,
            None,
        )
        .unwrap();
        assert_eq!(page.items(), &[1, 2, 3, 4], "max_bytes {max_bytes}");
        assert!(page.next_cursor().is_some(), "max_bytes {max_bytes}");
        let second = Bounded::page(
            1..=10u64,
            &Limits::new().limit(4).max_bytes(max_bytes.max(fits + 40)),
            &scope,
            page.next_cursor(),
        )
        .unwrap();
        assert_eq!(second.items(), &[5, 6, 7, 8], "max_bytes {max_bytes}");
    }
}

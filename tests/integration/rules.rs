//! Properties of the core (collect, page, merge, wire) against the plain
//! input `Vec` as the oracle: one property per rule that applies to the
//! core. The rules, as the comments below number them:
//!
//! 1. Exact means exact: `Exact` only when no item of the full answer is
//!    missing from this page on, and then the total is exact; the total
//!    always counts the whole answer, and a page says where it starts.
//! 2. No false alarm: an answer of exactly `limit` items is exact.
//! 3. A truncated result is a prefix of the answer, with a total of at
//!    least one more item, or the exact figure when counting was asked for.
//! 4. A limit clamped to the ceiling is disclosed, whatever stopped.
//! 5. A byte budget bounds the whole response, and names itself when it
//!    stops one; whenever the required fields and one item fit, a page
//!    holds an item and a cursor.
//! 6. Following cursors rebuilds the answer exactly once; every cursor
//!    issued resumes, and one from elsewhere is refused.
//! 7. Merging truncated shards keeps only what is certain.
//! 8. The same query on the same input gives the same answer.
//!
//! Inputs are `Vec<u32>` (numbers of every width) and `Vec<String>` (ASCII,
//! any Unicode, and strings full of quotes, backslashes, control characters
//! and line separators, which JSON escapes and so lengthen).

use std::fmt::Debug;
use std::time::Duration;

use candor::{
    Bounded, Budget, BudgetKind, Clamp, Completeness, ErrorKind, Fingerprint, Keyset, Limits,
    ManualClock, Scope, Total,
};
use proptest::prelude::*;

use crate::core_support::{Pick, pick_below};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::core_support::{Knobs, check_key_order, config, validate};
use crate::pages::{Walk, walk};

/// What the properties need of an item type.
trait Item: Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync + 'static {}
impl<T: Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync + 'static> Item
    for T
{
}

// ---------------------------------------------------------------------------
// Strategies

fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => any::<char>(),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('\n'),
        1 => Just('\u{0}'),
        1 => Just('\u{1f}'),
        1 => Just('\u{7f}'),
        1 => Just('é'),
        1 => Just('😀'),
        1 => Just('\u{2028}'),
        1 => Just('/'),
    ]
}

fn item_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,10}",
        "\\PC{0,10}",
        prop::collection::vec(tricky_char(), 0..10).prop_map(String::from_iter),
    ]
}

fn numbers() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(prop_oneof![0..10u32, 0..100_000u32, any::<u32>()], 0..48)
}

fn strings() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(item_string(), 0..40)
}

fn pick() -> impl Strategy<Value = Pick> {
    pick_below(60)
}

/// A byte budget chosen relative to the exact full answer's size.
#[derive(Debug, Clone, Copy)]
enum BytesPick {
    FullMinusOne,
    Full,
    Any(usize),
}

impl BytesPick {
    fn resolve(self, full_json_len: usize) -> usize {
        match self {
            BytesPick::FullMinusOne => full_json_len - 1,
            BytesPick::Full => full_json_len,
            BytesPick::Any(n) => n,
        }
    }
}

fn bytes_pick() -> impl Strategy<Value = BytesPick> {
    prop_oneof![
        1 => Just(BytesPick::FullMinusOne),
        1 => Just(BytesPick::Full),
        2 => (0..2500usize).prop_map(BytesPick::Any),
        1 => (2500..6000usize).prop_map(BytesPick::Any),
    ]
}

/// Every knob of `Limits` the core reads, unresolved.
#[derive(Debug, Clone)]
struct KnobPicks {
    limit: Option<Pick>,
    ceiling: Option<Pick>,
    max_bytes: Option<BytesPick>,
    count_total: bool,
    max_count: Option<Pick>,
    /// (deadline ms, clock step ms per reading)
    deadline: Option<(u64, u64)>,
}

fn knob_picks(with_deadline: bool) -> impl Strategy<Value = KnobPicks> {
    let deadline = if with_deadline {
        prop::option::weighted(0.5, (0..120u64, 1..15u64)).boxed()
    } else {
        Just(None).boxed()
    };
    (
        prop::option::weighted(0.8, pick()),
        prop::option::weighted(0.3, pick()),
        prop::option::weighted(0.5, bytes_pick()),
        any::<bool>(),
        prop::option::weighted(0.4, pick()),
        deadline,
    )
        .prop_map(
            |(limit, ceiling, max_bytes, count_total, max_count, deadline)| KnobPicks {
                limit,
                ceiling,
                max_bytes,
                count_total,
                max_count,
                deadline,
            },
        )
}

impl KnobPicks {
    fn resolve(&self, len: usize, full_json_len: usize) -> Knobs {
        Knobs {
            limit: self.limit.map(|p| p.resolve(len)),
            ceiling: self.ceiling.map(|p| p.resolve(len)),
            max_bytes: self.max_bytes.map(|p| p.resolve(full_json_len)),
            count_total: self.count_total,
            max_count: self.max_count.map(|p| p.resolve(len) as u64),
            deadline: self.deadline,
        }
    }
}

impl Knobs {
    /// The item limit in force, worked out independently of the crate.
    fn effective_limit(&self) -> Option<usize> {
        match (self.limit, self.ceiling) {
            (Some(l), Some(c)) => Some(l.min(c)),
            (Some(l), None) => Some(l),
            (None, c) => c,
        }
    }

    /// How many items are pulled before the deadline stops collecting:
    /// the clock reads `step` later each time, and at least one item is
    /// always taken.
    fn deadline_items(&self) -> Option<usize> {
        self.deadline
            .map(|(deadline, step)| (deadline.div_ceil(step) as usize).max(1))
    }
}

fn full_json<T: Item>(input: &[T]) -> String {
    serde_json::to_string(&Bounded::exact(input.to_vec())).expect("serializes")
}

// ---------------------------------------------------------------------------
// Checks every result obeys, whatever produced it

/// Rules that hold for any `Bounded` that claims to answer `full` (the
/// full answer from the result's starting point on).
fn check_any<T: Item>(
    full: &[T],
    b: &Bounded<T>,
    max_bytes: Option<usize>,
) -> Result<(), TestCaseError> {
    let len = b.len();
    let n = full.len() as u64;
    // A page holds items `start + 1` to `start + len` of the full answer.
    let start = usize::try_from(b.start()).expect("a small start");
    prop_assert!(start <= full.len(), "start {} is past the answer", start);
    let full_from_start = &full[start..];
    // Rule 3: a result is always a prefix of the answer from its start.
    prop_assert!(
        len <= full_from_start.len(),
        "more items than the full answer"
    );
    prop_assert_eq!(
        b.items(),
        &full_from_start[..len],
        "not a prefix of the answer from start"
    );
    prop_assert!(
        b.start() + len as u64 <= b.total().value(),
        "start + count > total"
    );
    if let Some(next) = b.next_cursor() {
        prop_assert_eq!(next.start(), b.start() + len as u64, "the cursor's start");
    }
    // Rule 1: exact means exact.
    if b.completeness().is_exact() {
        prop_assert_eq!(b.items(), full_from_start);
        prop_assert_eq!(b.total(), Total::Exact(n));
        prop_assert!(b.next_cursor().is_none(), "an exact result has a cursor");
    } else {
        // Rule 3: the total is at least the items, plus the probe when the
        // stop proves more; a lower bound is never above the truth.
        let floor = (start + len) as u64 + u64::from(b.completeness().proves_more());
        prop_assert!(
            b.total().value() >= floor,
            "total {} < {}",
            b.total(),
            floor
        );
        if b.completeness().proves_more() {
            prop_assert!(
                len < full_from_start.len(),
                "claims more exist but all were returned"
            );
        }
    }
    prop_assert!(
        b.total().value() <= n,
        "total {} overstates {}",
        b.total(),
        n
    );
    if b.total().is_exact() {
        prop_assert_eq!(b.total(), Total::Exact(n));
    }
    prop_assert_eq!(b.is_complete(), b.completeness().is_exact());
    prop_assert_eq!(
        b.completeness().is_truncated(),
        !b.completeness().is_exact()
    );

    let json = serde_json::to_string(b).expect("serializes");
    prop_assert_eq!(&json, &b.to_json().expect("serializes"));
    // Rule 5: the byte budget bounds the whole response.
    if let Some(max) = max_bytes {
        prop_assert!(
            json.len() <= max,
            "{} bytes > max_bytes {}: {}",
            json.len(),
            max,
            json
        );
    }
    if let Some(budget) = b.completeness().budget() {
        if budget.kind() == BudgetKind::OutputBytes {
            prop_assert_eq!(Some(budget.max() as usize), max_bytes);
            prop_assert_eq!(
                budget.used() as usize,
                json.len(),
                "used is not the real length"
            );
        }
    }
    check_wire(b, &json)
}

/// The wire form is consistent, schema-valid, ordered, and decodes back to
/// the same value (rule: serialize then deserialize is the identity).
fn check_wire<T: Item>(b: &Bounded<T>, json: &str) -> Result<(), TestCaseError> {
    let value: serde_json::Value = serde_json::from_str(json).expect("valid JSON");
    prop_assert_eq!(&value["complete"], &serde_json::json!(b.is_complete()));
    prop_assert_eq!(&value["count"], &serde_json::json!(b.len()));
    prop_assert_eq!(
        value.get("truncation").is_some(),
        b.completeness().is_truncated()
    );
    prop_assert_eq!(
        value.get("next_cursor").is_some(),
        b.next_cursor().is_some()
    );
    prop_assert_eq!(value.get("skipped").is_some(), !b.skipped().is_empty());
    check_key_order(json).map_err(TestCaseError::fail)?;
    let schema = candor::envelope_schema(serde_json::json!({}));
    validate(&schema, &value, "$").map_err(TestCaseError::fail)?;

    let back: Bounded<T> = serde_json::from_str(json)
        .map_err(|e| TestCaseError::fail(format!("own output refused: {e}: {json}")))?;
    prop_assert_eq!(&back, b);
    prop_assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
    Ok(())
}

/// Every rule of `Bounded::collect` for one input and one set of knobs.
fn check_collect<T: Item>(input: &[T], picks: &KnobPicks) -> Result<(), TestCaseError> {
    let full = full_json(input);
    let knobs = picks.resolve(input.len(), full.len());
    let n = input.len();
    let result = Bounded::collect(input.iter().cloned(), &knobs.limits());

    // Rule 8: the same query twice gives the same answer.
    let again = Bounded::collect(input.iter().cloned(), &knobs.limits());
    match (&result, &again) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
        (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
        _ => prop_assert!(false, "one run failed and the other did not"),
    }

    let fits_limit = knobs.effective_limit().is_none_or(|l| n <= l);
    let fits_bytes = knobs.max_bytes.is_none_or(|m| full.len() <= m);
    let deadline_items = knobs.deadline_items();

    let b = match result {
        Ok(b) => b,
        Err(e) => {
            // Rule 5: the only error is a budget too small for any response.
            let ErrorKind::BudgetTooSmall { max_bytes, needed } = *e.kind() else {
                return Err(TestCaseError::fail(format!("unexpected error {e}")));
            };
            prop_assert_eq!(Some(max_bytes), knobs.max_bytes);
            prop_assert!(
                needed > max_bytes,
                "needed {} fits in {}",
                needed,
                max_bytes
            );
            // The exact answer would fit, so a budget this size is enough,
            // unless the answer is cut (by the limit or a deadline) and the
            // cut must be disclosed, which takes more room than the items.
            let deadline_cut = deadline_items.is_some_and(|k| k <= n);
            prop_assert!(
                !(fits_bytes && fits_limit) || deadline_cut,
                "the exact answer ({} bytes) fits in {}",
                full.len(),
                max_bytes
            );
            // And `needed` is honest: a retry with that budget answers, or
            // (having read further) names a larger need, and following
            // the needs ends in an answer.
            let mut budget = needed;
            let mut answered = false;
            for _ in 0..4 {
                let knobs = Knobs {
                    max_bytes: Some(budget),
                    ..knobs.clone()
                };
                match Bounded::collect(input.iter().cloned(), &knobs.limits()) {
                    Ok(_) => {
                        answered = true;
                        break;
                    }
                    Err(e) => {
                        let ErrorKind::BudgetTooSmall { needed: more, .. } = *e.kind() else {
                            return Err(TestCaseError::fail(format!("unexpected error {e}")));
                        };
                        prop_assert!(more > budget, "{} bytes were needed, then {}", budget, more);
                        budget = more;
                    }
                }
            }
            prop_assert!(
                answered,
                "no answer after following the needs to {} bytes",
                budget
            );
            return Ok(());
        }
    };
    check_any(input, &b, knobs.max_bytes)?;
    prop_assert!(b.next_cursor().is_none(), "collect issued a cursor");
    if let Some(limit) = knobs.effective_limit() {
        prop_assert!(b.len() <= limit);
    }

    let deadline_can_stop = deadline_items.is_some_and(|k| k <= n);
    // Rule 1 (and rule 2): exact if and only if the full answer fits.
    if !deadline_can_stop {
        prop_assert_eq!(
            b.completeness().is_exact(),
            fits_limit && fits_bytes,
            "exact must be exactly when the answer fits ({} bytes, limit {:?})",
            full.len(),
            knobs.effective_limit()
        );
    } else if b.completeness().is_exact() {
        prop_assert!(fits_limit && fits_bytes);
    }
    if b.completeness().is_exact() {
        prop_assert_eq!(serde_json::to_string(&b).unwrap(), full);
    }

    match b.completeness() {
        Completeness::Exact => {}
        Completeness::TruncatedByLimit { limit, requested } => {
            // Rule 4: the clamp is disclosed, and only a real clamp.
            let asked = knobs.limit;
            match (asked, knobs.ceiling) {
                (Some(l), Some(c)) if l > c => {
                    prop_assert_eq!((*limit, *requested), (c, Some(l)));
                }
                _ => {
                    prop_assert_eq!(Some(*limit), knobs.effective_limit());
                    prop_assert_eq!(*requested, None);
                }
            }
            prop_assert_eq!(b.len(), *limit);
        }
        Completeness::TruncatedByBudget { budget, .. } => match budget.kind() {
            BudgetKind::OutputBytes => {
                prop_assert!(knobs.max_bytes.is_some());
            }
            BudgetKind::Deadline => {
                let (deadline, _) = knobs.deadline.expect("a deadline was set");
                let k = deadline_items.expect("a deadline was set");
                prop_assert!(
                    !b.is_empty(),
                    "at least one item is taken before a deadline"
                );
                prop_assert!(b.len() <= k, "{} items, deadline after {}", b.len(), k);
                if knobs.max_bytes.is_none() {
                    prop_assert_eq!(b.len(), k);
                }
                prop_assert_eq!(b.total(), Total::AtLeast(b.len() as u64));
                prop_assert_eq!(budget.max(), deadline);
                prop_assert!(budget.used() >= budget.max());
            }
            other => prop_assert!(false, "collect has no {:?} budget", other),
        },
        other => prop_assert!(false, "unknown completeness {:?}", other),
    }

    // Rule 3: the total, with and without counting.
    if b.completeness().is_truncated() {
        let counted = knobs.count_total && b.completeness().proves_more();
        match (counted, knobs.max_count) {
            (false, _) => prop_assert!(b.total().is_lower_bound()),
            // Counting stops at the deadline too; check_any holds the bounds.
            (true, _) if knobs.deadline.is_some() => {}
            (true, None) => prop_assert_eq!(b.total(), Total::Exact(n as u64)),
            (true, Some(m)) if (n as u64) < m => prop_assert_eq!(b.total(), Total::Exact(n as u64)),
            (true, Some(m)) if (n as u64) > m => {
                // The count budget is spent; the total is a lower bound of at
                // least max_count, unless what was already seen (kept items
                // and the probe) turned out to be everything.
                match b.total() {
                    Total::Exact(t) => prop_assert_eq!(t, n as u64),
                    Total::AtLeast(t) => {
                        prop_assert!(t >= m, "counting past max_count {}", m);
                        if knobs.max_bytes.is_none() {
                            let probe = b.len() as u64 + 1;
                            prop_assert_eq!(t, m.max(probe));
                        }
                    }
                }
            }
            // n == max_count: see `count_total_ending_at_max_count_is_exact`.
            (true, Some(_)) => {}
        }
    }

    // A deadline that cannot pass before the input runs out changes
    // nothing (counting reads the clock too, so leave it out).
    if deadline_items.is_some_and(|k| k > n) && !knobs.count_total {
        let without = Knobs {
            deadline: None,
            ..knobs.clone()
        };
        let plain =
            Bounded::collect(input.iter().cloned(), &without.limits()).expect("same budget");
        prop_assert_eq!(&b, &plain);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Paging

/// Checks the pages of a walk over `input` (each page, then its cursor)
/// and returns all their items: each page says where it starts and its
/// total counts the whole answer; a cursor always advances (on a
/// truncated page with items, and never the cursor the page resumed); the
/// last page proves no more items exist.
fn check_walk<T: Item>(
    input: &[T],
    walked: &Walk<T>,
    max_bytes: Option<usize>,
) -> Result<Vec<T>, TestCaseError> {
    if let Some(e) = &walked.refused {
        return Err(TestCaseError::fail(format!(
            "page after {} pages: {e}",
            walked.pages.len()
        )));
    }
    let mut all: Vec<T> = Vec::new();
    let mut cursor = None;
    for page in &walked.pages {
        prop_assert_eq!(page.start(), all.len() as u64, "the page's start");
        check_any(input, page, max_bytes)?;
        all.extend_from_slice(page.items());
        match page.next_cursor() {
            Some(next) => {
                prop_assert!(
                    !page.is_empty(),
                    "a cursor on an empty page does not advance"
                );
                prop_assert!(
                    page.completeness().is_truncated(),
                    "a cursor on a complete page"
                );
                prop_assert_ne!(Some(next), cursor);
            }
            None => prop_assert!(
                !page.completeness().proves_more(),
                "more items exist but no cursor was given: {:?}",
                page
            ),
        }
        cursor = page.next_cursor();
    }
    Ok(all)
}

fn check_paging<T: Item>(
    input: &[T],
    page_size: Option<usize>,
    max_bytes: Option<usize>,
    deadline: Option<(u64, u64)>,
    count_total: bool,
) -> Result<(), TestCaseError> {
    let mut limits = Limits::new().count_total(count_total);
    if let Some(n) = page_size {
        limits = limits.limit(n);
    }
    if let Some(n) = max_bytes {
        limits = limits.max_bytes(n);
    }
    if let Some((deadline, step)) = deadline {
        limits = limits
            .deadline(Duration::from_millis(deadline))
            .clock(ManualClock::new().auto_advance(Duration::from_millis(step)));
    }
    let scope = Scope::new(Fingerprint::of("core paging property")).generation(3);
    let walked = walk("core pages", input.len() + 2, |cursor| {
        Bounded::page(input.iter().cloned(), &limits, &scope, cursor)
    });
    let all = check_walk(input, &walked, max_bytes)?;
    prop_assert_eq!(all.as_slice(), input, "pages do not rebuild the answer");
    Ok(())
}

/// Follows cursors of a `Keyset` over a sorted, unique source.
fn check_paging_by_key<T, K>(
    sorted: &[T],
    key: impl Fn(&T) -> K + Copy,
    limits: &Limits,
    max_bytes: Option<usize>,
) -> Result<(), TestCaseError>
where
    T: Item,
    K: candor::CursorKey + Ord + Clone,
{
    let scope = Scope::new(Fingerprint::of("core key paging property"));
    let walked = walk("core key pages", sorted.len() + 2, |cursor| {
        let source = |request: candor::KeyRequest<K>| {
            let after = request.into_after();
            sorted
                .iter()
                .filter(move |item| after.as_ref().is_none_or(|a| key(item) > *a))
                .cloned()
        };
        Bounded::page(Keyset::new(source, key), limits, &scope, cursor)
    });
    let all = check_walk(sorted, &walked, max_bytes)?;
    // A page's cursor resumes after its last item's key.
    for page in &walked.pages {
        if let Some(next) = page.next_cursor() {
            let resumed: K = scope.resume(next).expect("own cursor");
            prop_assert!(resumed == key(page.items().last().unwrap()));
        }
    }
    prop_assert_eq!(all.as_slice(), sorted);
    Ok(())
}

// ---------------------------------------------------------------------------
// Merging

/// How to cut the sorted input into shards, and which shards to truncate.
#[derive(Debug, Clone)]
struct Sharding {
    /// The shard of each item (modulo the shard count).
    shard_of: Vec<usize>,
    shards: usize,
    /// Per shard: the limit it was collected with, if any.
    shard_limits: Vec<Option<usize>>,
}

fn sharding(max_items: usize) -> impl Strategy<Value = Sharding> {
    (1..5usize).prop_flat_map(move |shards| {
        (
            prop::collection::vec(0..shards, max_items),
            prop::collection::vec(prop::option::weighted(0.5, 0..12usize), shards),
        )
            .prop_map(move |(shard_of, shard_limits)| Sharding {
                shard_of,
                shards,
                shard_limits,
            })
    })
}

impl Sharding {
    fn split<T: Clone>(&self, sorted: &[T]) -> Vec<Vec<T>> {
        let mut shards = vec![Vec::new(); self.shards];
        for (i, item) in sorted.iter().enumerate() {
            shards[self.shard_of[i] % self.shards].push(item.clone());
        }
        shards
    }

    /// Each shard collected under its own limit (at least `min_limit`).
    fn parts<T: Item>(&self, shards: &[Vec<T>], min_limit: usize) -> Vec<Bounded<T>> {
        shards
            .iter()
            .zip(&self.shard_limits)
            .map(|(items, limit)| match limit {
                Some(l) => Bounded::collect(
                    items.iter().cloned(),
                    &Limits::new().limit((*l).max(min_limit)),
                )
                .expect("no budget"),
                None => Bounded::exact(items.clone()),
            })
            .collect()
    }
}

fn sum_totals<T>(parts: &[Bounded<T>]) -> Total {
    parts
        .iter()
        .map(Bounded::total)
        .fold(Total::Exact(0), |a, b| a + b)
}

fn check_merge(
    sorted: &[u32],
    sharding: &Sharding,
    global_limit: Option<usize>,
    max_bytes: Option<usize>,
) -> Result<(), TestCaseError> {
    let shards = sharding.split(sorted);
    let parts = sharding.parts(&shards, 0);
    let all_exact = parts.iter().all(|p| p.completeness().is_exact());
    let expected_total = sum_totals(&parts);

    let mut limits = Limits::new();
    if let Some(l) = global_limit {
        limits = limits.limit(l);
    }
    if let Some(m) = max_bytes {
        limits = limits.max_bytes(m);
    }
    let merged = match Bounded::merge(parts.clone(), &limits, |a: &u32, b: &u32| a.cmp(b)) {
        Ok(b) => b,
        Err(e) => {
            prop_assert!(
                matches!(e.kind(), ErrorKind::BudgetTooSmall { .. }),
                "{}",
                e
            );
            return Ok(());
        }
    };
    // The merge of what the parts hold is a prefix of the sorted union.
    check_any(sorted, &merged, max_bytes)?;
    // Totals add; a lower bound absorbs an exact figure.
    prop_assert_eq!(merged.total(), expected_total);
    // Exact only if every part is exact and the union fits.
    let fits = global_limit.is_none_or(|l| sorted.len() <= l)
        && max_bytes.is_none_or(|m| full_json(sorted).len() <= m);
    prop_assert_eq!(merged.completeness().is_exact(), all_exact && fits);
    if !all_exact {
        prop_assert!(
            merged.completeness().is_truncated(),
            "merging a truncated part gave an exact result"
        );
    }

    // Rule 8: the same merge twice gives the same answer.
    let again = Bounded::merge(parts, &limits, |a: &u32, b: &u32| a.cmp(b)).expect("ran once");
    prop_assert_eq!(&again, &merged);
    Ok(())
}

// ---------------------------------------------------------------------------
// The properties

proptest! {
    #![proptest_config(config(256))]

    /// Rules 1-5 and 8 for numbers, under every knob of `Limits`.
    #[test]
    fn collect_numbers_obeys_the_contract(input in numbers(), picks in knob_picks(true)) {
        check_collect(&input, &picks)?;
    }

    /// Rules 1-5 and 8 for strings that JSON escapes.
    #[test]
    fn collect_strings_obeys_the_contract(input in strings(), picks in knob_picks(true)) {
        check_collect(&input, &picks)?;
    }

    /// Rule 2: an answer of exactly `limit` items is exact, whatever the
    /// ceiling above it, and one more item makes it truncated.
    #[test]
    fn exactly_limit_items_is_no_false_alarm(input in strings(), extra_ceiling in prop::option::of(0..5usize)) {
        let n = input.len();
        let mut limits = Limits::new().limit(n);
        if let Some(extra) = extra_ceiling {
            limits = limits.ceiling(n + extra);
        }
        let b = Bounded::collect(input.iter().cloned(), &limits).unwrap();
        prop_assert_eq!(b.completeness(), &Completeness::Exact);
        prop_assert_eq!(b.total(), Total::Exact(n as u64));
        prop_assert_eq!(b.items(), input.as_slice());

        let mut longer = input.clone();
        longer.push("one more".to_owned());
        let b = Bounded::collect(longer.iter().cloned(), &limits).unwrap();
        prop_assert_eq!(b.completeness(), &Completeness::TruncatedByLimit { limit: n, requested: None });
        prop_assert_eq!(b.total(), Total::AtLeast(n as u64 + 1));
    }

    /// Rule 4: a limit above the ceiling is clamped, and the clamp is
    /// disclosed whenever it cuts the answer.
    #[test]
    fn clamp_is_disclosed(input in numbers(), ceiling in 0..20usize, over in 1..100usize) {
        let requested = ceiling + over;
        let b = Bounded::collect(input.iter().copied(), &Limits::new().ceiling(ceiling).limit(requested)).unwrap();
        if input.len() > ceiling {
            prop_assert_eq!(
                b.completeness(),
                &Completeness::TruncatedByLimit { limit: ceiling, requested: Some(requested) }
            );
            prop_assert_eq!(b.items(), &input[..ceiling]);
        } else {
            prop_assert_eq!(b.items(), input.as_slice());
            prop_assert!(b.completeness().is_exact());
        }
    }

    /// Rule 5 at the edge: a budget of exactly the full answer's size gives
    /// the full answer; one byte less cuts it, and what comes back fits.
    #[test]
    fn byte_budget_edge(input in strings()) {
        let full = full_json(&input);
        let b = Bounded::collect(input.iter().cloned(), &Limits::new().max_bytes(full.len())).unwrap();
        prop_assert!(b.is_complete());
        prop_assert_eq!(serde_json::to_string(&b).unwrap(), full.clone());
        match Bounded::collect(input.iter().cloned(), &Limits::new().max_bytes(full.len() - 1)) {
            Ok(b) => {
                prop_assert!(b.completeness().is_truncated());
                check_any(&input, &b, Some(full.len() - 1))?;
            }
            Err(e) => {
                let too_small = matches!(e.kind(), ErrorKind::BudgetTooSmall { .. });
                prop_assert!(too_small, "unexpected error {}", e);
            }
        }
    }

    /// Rule 6 with offsets: pages rebuild the answer, numbers.
    #[test]
    fn paging_numbers_loses_nothing(
        input in numbers(),
        page_size in prop::option::weighted(0.8, 1..12usize),
        max_bytes in prop::option::weighted(0.5, 700..3000usize),
        deadline in prop::option::weighted(0.3, (0..60u64, 1..15u64)),
        count_total in any::<bool>(),
    ) {
        check_paging(&input, page_size, max_bytes, deadline, count_total)?;
    }

    /// Rule 6 with offsets: pages rebuild the answer, escaped strings.
    #[test]
    fn paging_strings_loses_nothing(
        input in strings(),
        page_size in prop::option::weighted(0.8, 1..12usize),
        max_bytes in prop::option::weighted(0.5, 800..3000usize),
        count_total in any::<bool>(),
    ) {
        check_paging(&input, page_size, max_bytes, None, count_total)?;
    }

    /// Rule 6 with keys: pages rebuild a sorted, unique source.
    #[test]
    fn paging_by_key_loses_nothing(
        numbers in numbers(),
        words in strings(),
        page_size in 1..10usize,
        max_bytes in prop::option::weighted(0.4, 800..3000usize),
    ) {
        let mut limits = Limits::new().limit(page_size);
        if let Some(m) = max_bytes {
            limits = limits.max_bytes(m);
        }
        let mut numbers = numbers;
        numbers.sort_unstable();
        numbers.dedup();
        check_paging_by_key(&numbers, |n: &u32| *n, &limits, max_bytes)?;
        let mut words = words;
        words.sort();
        words.dedup();
        check_paging_by_key(&words, |w: &String| w.clone(), &limits, max_bytes)?;
    }

    /// Rule 7: merging truncated shards gives a certain prefix of the
    /// sorted union, totals add, and exact needs every part exact.
    #[test]
    fn merge_laws(
        input in numbers(),
        sharding in sharding(48),
        global_limit in prop::option::weighted(0.6, 0..50usize),
        max_bytes in prop::option::weighted(0.3, 0..1500usize),
    ) {
        let mut sorted = input;
        sorted.sort_unstable();
        check_merge(&sorted, &sharding, global_limit, max_bytes)?;
    }

    /// Rule 7: merging exact parts without limits is sorting the union.
    #[test]
    fn merging_exact_parts_sorts_the_union(parts in prop::collection::vec(numbers(), 0..5)) {
        let bounded: Vec<Bounded<u32>> = parts
            .iter()
            .map(|p| {
                let mut p = p.clone();
                p.sort_unstable();
                Bounded::exact(p)
            })
            .collect();
        let merged = Bounded::merge(bounded, &Limits::new(), |a: &u32, b: &u32| a.cmp(b)).unwrap();
        let mut union: Vec<u32> = parts.concat();
        union.sort_unstable();
        prop_assert!(merged.is_complete());
        prop_assert_eq!(merged.total(), Total::Exact(union.len() as u64));
        prop_assert_eq!(merged.items(), union.as_slice());
    }

    /// Totals add, and a lower bound absorbs an exact figure.
    #[test]
    fn totals_add(a in 0..1u64 << 40, b in 0..1u64 << 40, ea in any::<bool>(), eb in any::<bool>()) {
        let t = |v, exact| if exact { Total::Exact(v) } else { Total::AtLeast(v) };
        let sum = t(a, ea) + t(b, eb);
        prop_assert_eq!(sum.value(), a + b);
        prop_assert_eq!(sum.is_exact(), ea && eb);
        prop_assert_eq!(t(a, ea) + t(b, eb), t(b, eb) + t(a, ea));
    }

    /// Round trip through JSON for results carrying every part of the
    /// disclosure, skipped inputs included (attached by decoding parts and
    /// merging them).
    #[test]
    fn round_trip_with_skipped(
        input in numbers(),
        sharding in sharding(48),
        reasons in prop::collection::vec(
            prop_oneof![
                Just("binary"), Just("too_large"), Just("symlink_loop"),
                Just("outside_root"), Just("unreadable"), Just("vanished"), Just("locked"),
            ],
            0..9,
        ),
        global_limit in prop::option::of(0..30usize),
    ) {
        let mut sorted = input;
        sorted.sort_unstable();
        let shards = sharding.split(&sorted);
        let mut parts = sharding.parts(&shards, 0);
        // Give the first part the skipped inputs, through the wire shape.
        let skipped = skipped_json(&reasons);
        let first = serde_json::to_value(&parts[0]).unwrap();
        let mut first = first.as_object().unwrap().clone();
        let has_errors = reasons.iter().any(|r| matches!(*r, "unreadable" | "vanished" | "locked"));
        if !reasons.is_empty() {
            first.insert("skipped".into(), skipped);
            let complete = parts[0].completeness().is_exact() && !has_errors;
            first.insert("complete".into(), serde_json::json!(complete));
        }
        parts[0] = serde_json::from_value(serde_json::Value::Object(first)).unwrap();
        prop_assert_eq!(parts[0].skipped().total(), reasons.len() as u64);

        let mut limits = Limits::new();
        if let Some(l) = global_limit {
            limits = limits.limit(l);
        }
        let merged = Bounded::merge(parts, &limits, |a: &u32, b: &u32| a.cmp(b)).unwrap();
        prop_assert_eq!(merged.skipped().total(), reasons.len() as u64);
        prop_assert_eq!(merged.skipped().has_errors(), has_errors);
        prop_assert_eq!(merged.is_complete(), merged.completeness().is_exact() && !has_errors);
        let json = serde_json::to_string(&merged).unwrap();
        check_wire(&merged, &json)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Rule 4 after a merge: whatever stopped it (the global limit, a
    /// part's limit or budget), a truncated merge names the limit applied
    /// to it, never holds more items than that limit, and discloses the
    /// caller's clamp.
    #[test]
    fn merged_truncation_names_the_applied_limit_and_the_clamp(
        input in numbers(),
        sharding in sharding(48),
        global_limit in prop::option::weighted(0.6, 0..50usize),
        ceiling in prop::option::weighted(0.4, 0..20usize),
    ) {
        let mut sorted = input;
        sorted.sort_unstable();
        let parts = sharding.parts(&sharding.split(&sorted), 0);
        let mut limits = Limits::new();
        if let Some(l) = global_limit {
            limits = limits.limit(l);
        }
        if let Some(c) = ceiling {
            limits = limits.ceiling(c);
        }
        let applied = limits.applied_limit();
        let merged = Bounded::merge(parts, &limits, |a: &u32, b: &u32| a.cmp(b)).unwrap();
        if let Completeness::TruncatedByLimit { limit, .. } = merged.completeness() {
            prop_assert!(merged.len() <= *limit, "{} items, limit {}: {:?}", merged.len(), limit, merged);
            if let Some(applied_limit) = applied.limit() {
                prop_assert_eq!(*limit, applied_limit);
            }
        }
        if merged.completeness().is_truncated() {
            prop_assert_eq!(merged.completeness().clamp(), applied.clamp());
        }
    }
}

/// Merges that a part's own limit stopped before the merge's: the page
/// says a shard stopped (more items exist), with the caller's clamp, and
/// never states a limit its items do not reach (rule 4 and check).
#[test]
fn a_merge_cut_by_a_part_tells_the_callers_limit() {
    let a = || Bounded::exact(vec![1u32, 4, 9]);
    let b = || Bounded::collect(vec![2u32, 3, 5, 7], &Limits::new().limit(2)).unwrap();
    let by_value = |x: &u32, y: &u32| x.cmp(y);
    let shard = |returned: u64, clamp| Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::Shard, returned, returned),
        clamp,
    };
    // b's missing items come after 3: 1, 2, 3 are certain.
    let merged = Bounded::merge(vec![a(), b()], &Limits::new().limit(10), by_value).unwrap();
    assert_eq!(merged.items(), &[1, 2, 3]);
    assert_eq!(merged.completeness(), &shard(2, None));
    assert_eq!(merged.total(), Total::AtLeast(6));
    // The case of the report: the caller asked for 100, the ceiling is 5.
    let merged = Bounded::merge(
        vec![a(), b()],
        &Limits::new().ceiling(5).limit(100),
        by_value,
    )
    .unwrap();
    assert_eq!(merged.items(), &[1, 2, 3]);
    assert_eq!(merged.completeness(), &shard(2, Some(Clamp::new(5, 100))));
    let summary = merged.summary("items");
    assert!(!summary.contains("Raise the limit"), "{summary}");
    assert!(summary.contains("100 requested"), "{summary}");
    // It decodes: candor's own decoder accepts what a merge writes.
    let back: Bounded<u32> = serde_json::from_str(&merged.to_json().unwrap()).unwrap();
    assert_eq!(back, merged);
    // A merge cut by its own limit states it.
    let merged = Bounded::merge(vec![a(), b()], &Limits::new().limit(2), by_value).unwrap();
    assert_eq!(merged.items(), &[1, 2]);
    assert_eq!(
        merged.completeness(),
        &Completeness::TruncatedByLimit {
            limit: 2,
            requested: None
        }
    );
    // A part cut by a budget keeps its budget, with the caller's clamp.
    let c = Bounded::collect(
        (10..60u32).collect::<Vec<_>>(),
        &Limits::new().max_bytes(200),
    )
    .unwrap();
    assert!(c.completeness().is_truncated_by_budget());
    let merged =
        Bounded::merge(vec![a(), c], &Limits::new().ceiling(50).limit(70), by_value).unwrap();
    assert!(merged.completeness().is_truncated_by_budget());
    assert_eq!(merged.completeness().clamp(), Some(Clamp::new(50, 70)));
}

/// The wire form of a `skipped` block with one sample per reason (up to
/// five). `locked`, a reason of another tool, is written as an error.
fn skipped_json(reasons: &[&str]) -> serde_json::Value {
    let is_error = |r: &str| matches!(r, "unreadable" | "vanished" | "locked");
    let mut by_reason = serde_json::Map::new();
    let mut errors = serde_json::Map::new();
    for r in reasons {
        for (map, counted) in [(&mut by_reason, true), (&mut errors, is_error(r))] {
            if counted {
                let n = map.get(*r).and_then(serde_json::Value::as_u64).unwrap_or(0);
                map.insert((*r).to_owned(), serde_json::json!(n + 1));
            }
        }
    }
    let sample: Vec<_> = reasons
        .iter()
        .enumerate()
        .take(candor::SKIPPED_SAMPLE_LEN)
        .map(|(i, r)| {
            let mut entry = serde_json::json!({ "path": format!("dir/file {i}.bin"), "reason": r });
            if is_error(r) {
                entry["error"] = serde_json::json!(true);
            }
            entry
        })
        .collect();
    let mut skipped =
        serde_json::json!({ "total": reasons.len(), "by_reason": by_reason, "sample": sample });
    if !errors.is_empty() {
        skipped["errors"] = serde_json::Value::Object(errors);
    }
    skipped
}

/// Rule 3, counting: when counting ends exactly at `max_count` because the
/// source ran out, counting finished within its budget and the total is
/// exact. (Found by `collect_*_obeys_the_contract`; excluded there.)
#[test]
fn count_total_ending_at_max_count_is_exact() {
    let b = Bounded::collect(
        0..5u32,
        &Limits::new().limit(2).count_total(true).max_counted(5),
    )
    .unwrap();
    assert_eq!(b.total(), Total::Exact(5));
}

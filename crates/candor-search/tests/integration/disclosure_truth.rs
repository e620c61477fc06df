//! Disclosures that stay true: an input the caller named is never
//! skipped silently, a walk's pages report each skip once and what the
//! walk skipped so far, a page too small for one item says what one
//! needs, mapping items never leaves a size the response does not have,
//! and a total whose count was cut says what cut it (docs/CONTRACT.md,
//! rules 5, 7, 12 and 14).

use std::time::Duration;

use candor_search::{
    Bounded, Budget, BudgetKind, CancelToken, Completeness, Corpus, Disclosure, Documents,
    ErrorKind, Excerpt, Fingerprint, JsonStream, Limits, ManualClock, Query, Scope, SkipReason,
    SkipTally, Skipped, Total,
};
use proptest::prelude::*;

use crate::fixture::Fixture;
use crate::pages::pages;

/// Counts by reason's name.
type Counts = Vec<(String, u64)>;

/// The counts of a `Skipped`, by reason, of all skips and of error skips.
fn tally(skipped: &Skipped) -> (Counts, Counts) {
    let all = skipped
        .by_reason()
        .map(|(r, n)| (r.to_string(), n))
        .collect();
    let errors = skipped
        .errors_by_reason()
        .map(|(r, n)| (r.to_string(), n))
        .collect();
    (all, errors)
}

/// The sum of the skips of every page.
fn summed<T>(pages: &[Bounded<T>]) -> Skipped {
    let mut sum = Skipped::new();
    for page in pages {
        sum.absorb(page.skipped().clone());
    }
    sum
}

// ---------------------------------------------------------------------------
// An input the caller named

#[test]
fn a_named_file_left_out_by_policy_leaves_the_answer_incomplete() {
    let f = Fixture::new(&[
        ("a.txt", b"needle\n"),
        ("big.log", b"needle\nneedle needle needle needle\n"),
        ("z.txt", b"needle\n"),
    ]);
    let query = Query::literal("needle");
    for (name, tree) in &f.trees {
        let tree = tree.clone().max_file_size(16);
        // Met in a walk, a file over the size limit is policy: the answer
        // is whole.
        let walked = tree.search(&query, &Limits::new(), None).unwrap();
        assert!(walked.is_complete(), "{name}");
        assert_eq!(walked.skipped().count(&SkipReason::TooLarge), 1, "{name}");
        // Named, it is what the caller asked for, and it was not searched.
        let found = tree
            .find_in_file("big.log", &query, &Limits::new(), None)
            .unwrap();
        assert!(found.is_empty(), "{name}");
        assert!(!found.is_complete(), "{name}: find_in_file");
        assert_eq!(found.skipped().error_total(), 1, "{name}");
        let lines = tree
            .excerpt(&Excerpt::new("big.log", 1..=10), &Limits::new(), None)
            .unwrap();
        assert!(lines.is_empty(), "{name}");
        assert!(!lines.is_complete(), "{name}: excerpt");
        let json = lines.to_json().unwrap();
        assert!(json.starts_with(r#"{"complete":false"#), "{name}: {json}");
        assert!(
            json.contains(r#""errors":{"too_large":1}"#),
            "{name}: {json}"
        );
        // A path filter that names the file names it too; one that names
        // its folder does not.
        let filtered = tree
            .search(
                &query.clone().paths(["big.log", "z.txt"]),
                &Limits::new(),
                None,
            )
            .unwrap();
        assert_eq!(filtered.len(), 1, "{name}");
        assert!(!filtered.is_complete(), "{name}: a named path");
        let summary = filtered.summary("matches");
        assert!(
            summary.contains("could not be searched") && summary.contains("too_large: 1"),
            "{name}: {summary}"
        );
    }
}

#[cfg(unix)]
#[test]
fn an_excerpt_of_a_fifo_is_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let tree = candor_search::Tree::new(dir.path()).unwrap();
    let lines = tree
        .excerpt(&Excerpt::new("pipe", 1..=5), &Limits::new(), None)
        .unwrap();
    assert!(lines.is_empty());
    assert!(!lines.is_complete(), "{:?}", lines.disclosure());
    assert_eq!(lines.skipped().count(&SkipReason::Special), 1);
}

// ---------------------------------------------------------------------------
// The skips of a walk, each reported once

/// A document: matching lines, and whether it holds a NUL (binary).
#[derive(Debug, Clone)]
struct Doc {
    needles: usize,
    binary: bool,
}

fn docs() -> impl Strategy<Value = Vec<Doc>> {
    prop::collection::vec(
        (0..4usize, prop::bool::weighted(0.35))
            .prop_map(|(needles, binary)| Doc { needles, binary }),
        1..9,
    )
}

fn files(docs: &[Doc]) -> Vec<(String, Vec<u8>)> {
    docs.iter()
        .enumerate()
        .map(|(i, d)| {
            let mut text = Vec::new();
            for k in 0..d.needles {
                text.extend_from_slice(format!("needle {k}\nhay\n").as_bytes());
            }
            if d.binary {
                text.extend_from_slice(b"\x00bin\n");
            }
            (format!("d{i}.txt"), text)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Rule 7: the pages of a walk add up to the whole answer's skips,
    /// each reported once, whatever stops the pages (the limit, its probe,
    /// a count past it, the output-bytes budget); and a total counted over
    /// a range holding an error skip is a lower bound.
    #[test]
    fn the_pages_of_a_walk_report_each_skip_once(
        docs in docs(),
        limit in 1..4usize,
        count_total in any::<bool>(),
        // From 420 bytes, a page holds one item beside its skips (an
        // error skip named by the caller, a cursor, the required fields).
        max_bytes in prop::option::of(420..900usize),
        named in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
    ) {
        let files = files(&docs);
        let f = Fixture::owned(&files);
        let mut paths: Vec<String> = named.iter().map(|i| i.get(&files).0.clone()).collect();
        paths.sort();
        paths.dedup();
        let query = Query::literal("needle").paths(paths);
        for (name, corpus) in f.all() {
            let whole = corpus.search(&query, &Limits::new(), None).unwrap();
            let mut limits = Limits::new().limit(limit).count_total(count_total);
            if let Some(m) = max_bytes {
                limits = limits.max_bytes(m);
            }
            let walked = pages(name, 200, |c| corpus.search(&query, &limits, c));
            prop_assert_eq!(tally(&summed(&walked)), tally(whole.skipped()), "{}", name);
            // Each page states the walk's skips so far: its own and those
            // of the pages before it (under a tight budget it may leave
            // the running total out, and state only its own).
            let mut running = candor_search::SkipTally::default();
            for (i, page) in walked.iter().enumerate() {
                let own = page.skipped().tally();
                let before = running;
                running = running + own;
                let so_far = page.skipped_so_far();
                prop_assert!(
                    so_far == running || (max_bytes.is_some() && so_far == own),
                    "{}: page {} says {:?} skipped so far, of {:?}", name, i, so_far, running
                );
                let line = page.summary("matches");
                if !before.is_empty() && so_far == running && own.policy() > 0 {
                    let said = format!("; {} in all so far", running.policy());
                    prop_assert!(line.contains(&said), "{}: {}", name, line);
                }
            }
            prop_assert_eq!(running, whole.skipped().tally(), "{}", name);
            let seen: usize = walked.iter().map(Bounded::len).sum();
            prop_assert_eq!(seen, whole.len(), "{}", name);
            for (i, page) in walked.iter().enumerate() {
                let errors_from_here = walked[i..].iter().any(|p| p.skipped().has_errors());
                match page.total() {
                    Total::Exact(n) => {
                        prop_assert_eq!(n, whole.len() as u64, "{}: page {}", name, i);
                        prop_assert!(
                            page.completeness().is_exact() || !errors_from_here,
                            "{}: page {} counted past an error skip yet says eq", name, i
                        );
                    }
                    Total::AtLeast(n) => prop_assert!(n <= whole.len() as u64, "{}", name),
                }
            }
        }
    }

    /// Rule 5: a page too small for one item says how many bytes one needs,
    /// and a page given that many holds it.
    #[test]
    fn a_page_too_small_for_one_item_says_what_one_needs(
        sizes in prop::collection::vec(1..400usize, 1..6),
        max_bytes in 60..700usize,
    ) {
        let items: Vec<String> = sizes.iter().map(|n| "x".repeat(*n)).collect();
        let page = match Bounded::collect(items.clone(), &Limits::new().max_bytes(max_bytes)) {
            Ok(page) => page,
            Err(e) => {
                // Too small even for a page that says what one item needs:
                // the error says it, and a page given that many holds one.
                let ErrorKind::BudgetTooSmall { needed, .. } = e.kind() else {
                    return Err(TestCaseError::fail(format!("{e}")));
                };
                let retry = Bounded::collect(items, &Limits::new().max_bytes(*needed)).unwrap();
                prop_assert!(!retry.is_empty(), "max_bytes {} holds no item", needed);
                return Ok(());
            }
        };
        prop_assert!(page.to_json().unwrap().len() <= max_bytes);
        let budget = page.completeness().budget().copied();
        if page.is_empty() {
            let budget = budget.expect("a page without items was cut by the budget");
            prop_assert_eq!(budget.kind(), BudgetKind::OutputBytes);
            let needed = budget.needed().expect("it says what one item needs");
            prop_assert!(needed > max_bytes as u64);
            let field = format!("\"needed\":{}", needed);
            prop_assert!(page.to_json().unwrap().contains(&field));
            let retry = Bounded::collect(items, &Limits::new().max_bytes(needed as usize)).unwrap();
            prop_assert!(!retry.is_empty(), "max_bytes {} holds no item", needed);
        } else {
            prop_assert!(budget.and_then(|b| b.needed()).is_none());
        }
    }

    /// Rule 12: mapping the items of a page cut by the byte budget either
    /// keeps a true `used` within the budget, or is refused.
    #[test]
    fn mapped_pages_state_their_true_size(
        n in 1..40u32,
        max_bytes in 120..600usize,
        pad in 0..30usize,
    ) {
        let Ok(page) = Bounded::collect(0..n, &Limits::new().max_bytes(max_bytes)) else {
            return Ok(());
        };
        match page.map(|k| format!("{k:>pad$}")) {
            Ok(mapped) => {
                let json = mapped.to_json().unwrap();
                prop_assert!(json.len() <= max_bytes, "{}", json);
                if let Some(b) = mapped.completeness().budget() {
                    prop_assert_eq!(b.used(), json.len() as u64, "{}", json);
                }
                let back: Bounded<String> = serde_json::from_str(&json).unwrap();
                prop_assert_eq!(back.to_json().unwrap(), json);
            }
            Err(e) => {
                let ErrorKind::OverBudget { max_bytes: max, size } = e.kind() else {
                    return Err(TestCaseError::fail(format!("{e}")));
                };
                prop_assert_eq!(*max, max_bytes);
                prop_assert!(*size > max_bytes);
            }
        }
    }
}

#[test]
fn a_mapped_page_that_grows_past_its_budget_is_refused() {
    let page = Bounded::collect(0..100u32, &Limits::new().max_bytes(200)).unwrap();
    assert!(page.completeness().is_truncated_by_budget());
    let err = page
        .map(|n| format!("{n:>40}"))
        .expect_err("the page would state a budget it breaks");
    assert!(matches!(
        err.kind(),
        ErrorKind::OverBudget { max_bytes: 200, .. }
    ));
    // A smaller shape fits, and states its own size.
    let page = Bounded::collect(0..100u32, &Limits::new().max_bytes(200)).unwrap();
    let mapped = page.map(|n| n / 10).unwrap();
    let json = mapped.to_json().unwrap();
    assert_eq!(
        mapped.completeness().budget().map(|b| b.used()),
        Some(json.len() as u64)
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// An excerpt asked for an exact total counts the lines of its range
    /// past the limit: every page of a walk states the whole excerpt's
    /// size, as a search does.
    #[test]
    fn an_excerpt_counts_its_lines_when_asked(
        lines in 0..40usize,
        final_newline in any::<bool>(),
        first in 1..20u64,
        span in 0..30u64,
        limit in 1..6usize,
    ) {
        let mut text = (1..=lines).map(|n| format!("line {n}")).collect::<Vec<_>>().join("\n");
        if final_newline {
            text.push('\n');
        }
        let f = Fixture::new(&[("f.txt", text.as_bytes())]);
        let excerpt = Excerpt::new("f.txt", first..=first + span);
        for (name, corpus) in f.all() {
            let whole = corpus.excerpt(&excerpt, &Limits::new(), None).unwrap();
            let limits = Limits::new().limit(limit).count_total(true);
            let walked = pages(name, 100, |c| corpus.excerpt(&excerpt, &limits, c));
            for page in &walked {
                prop_assert_eq!(page.total(), Total::Exact(whole.len() as u64), "{}", name);
            }
            // Without counting, a cut page's total is a lower bound.
            let first_page = corpus.excerpt(&excerpt, &Limits::new().limit(limit), None).unwrap();
            if first_page.completeness().is_truncated() {
                prop_assert!(first_page.total().is_lower_bound(), "{}", name);
            }
        }
    }
}

/// The wire fields of subsets, two stops, error skips, a source's note, a
/// cut count and a walk's skips so far decode, and encode back byte for
/// byte (the wire corpus holds these).
#[test]
fn the_new_wire_fields_round_trip_byte_for_byte() {
    for seed in [
        "seed-errors-custom.json",
        "seed-subset-two-stops.json",
        "seed-needed.json",
        "seed-clamp-reached.json",
        "seed-total-cut-by.json",
        "seed-skipped-so-far.json",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/corpus/wire")
            .join(seed);
        let text = std::fs::read_to_string(&path).unwrap();
        let decoded: Bounded<serde_json::Value> =
            serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{seed}: {e}"));
        assert_eq!(decoded.to_json().unwrap(), text.trim(), "{seed}");
    }
    // A custom policy skip keeps the result complete; its error twin does not.
    let policy: Bounded<u8> = serde_json::from_str(
        r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq"},"skipped":{"total":1,"by_reason":{"pre_filtered":1},"sample":[]},"items":[]}"#,
    )
    .unwrap();
    assert!(policy.is_complete());
    let error: Bounded<u8> = serde_json::from_str(
        r#"{"complete":false,"count":0,"total":{"value":0,"relation":"eq"},"skipped":{"total":1,"by_reason":{"pre_filtered":1},"errors":{"pre_filtered":1},"sample":[]},"items":[]}"#,
    )
    .unwrap();
    assert!(!error.is_complete());
}

/// docs/CONTRACT.md, rules M2 and M5: a part whose items are a subset makes the
/// merged page a subset, with no cursor; a part cut by its own byte
/// budget is a shard's stop, not a byte budget the merged page would break.
#[test]
fn merges_keep_a_subset_and_never_state_a_part_s_byte_budget() {
    use candor_search::{Budget, Completeness, Disclosure};
    let deadline = Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::Deadline, 5, 6),
        clamp: None,
    };
    let subset = || {
        Bounded::from_parts(
            vec![2u64, 8],
            Disclosure::new(deadline.clone(), Total::AtLeast(2)).with_subset(),
        )
        .unwrap()
    };
    let by_value = |a: &u64, b: &u64| a.cmp(b);
    for limits in [
        Limits::new().limit(10),
        Limits::new().limit(2),
        Limits::new(),
    ] {
        let merged = Bounded::merge(
            vec![subset(), Bounded::exact(vec![1u64, 3, 5])],
            &limits,
            by_value,
        )
        .unwrap();
        assert!(merged.is_subset(), "{limits:?}: {merged:?}");
        assert!(merged.next_cursor().is_none());
        assert!(!merged.is_complete());
        let back: Bounded<u64> = serde_json::from_str(&merged.to_json().unwrap()).unwrap();
        assert_eq!(back, merged);
    }
    let cut = Bounded::collect(0..100u32, &Limits::new().max_bytes(300)).unwrap();
    let merged = Bounded::merge(
        vec![cut, Bounded::exact(vec![0u32, 1000])],
        &Limits::new(),
        |a: &u32, b: &u32| a.cmp(b),
    )
    .unwrap();
    let stop = merged.completeness().budget().copied().expect("a stop");
    assert_eq!(stop.kind(), BudgetKind::Shard);
    assert!(
        merged.to_json().unwrap().len() > 300,
        "the merged page is larger"
    );
}

/// A resumed page that holds no item and has no cursor of its own says to
/// ask again from the cursor that led to it, with what one item needs.
#[test]
fn a_resumed_dead_end_says_how_to_go_on() {
    use candor_search::{Budget, Completeness, Disclosure};
    let cut = Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::OutputBytes, 200, 190).with_needed(352),
        clamp: None,
    };
    let page: Bounded<u8> = Bounded::from_parts(
        vec![],
        Disclosure::new(cut, Total::AtLeast(5)).with_start(4),
    )
    .unwrap();
    let summary = page.summary("items");
    assert!(summary.contains("needs max_bytes of 352"), "{summary}");
    assert!(
        summary.contains("the cursor that led to this page"),
        "{summary}"
    );
    assert!(
        page.to_json()
            .unwrap()
            .contains("the cursor that led to this page")
    );
}

// ---------------------------------------------------------------------------
// A total whose count was cut says what cut it (rule 14)

/// The iterator of `n` items that moves `clock` past the deadline when
/// item `late` is pulled, and cancels `token` when item `cancel` is.
fn slow(
    n: u32,
    clock: &ManualClock,
    late: Option<u32>,
    token: &CancelToken,
    cancel: Option<u32>,
) -> impl Iterator<Item = u32> + use<> {
    let (clock, token) = (clock.clone(), token.clone());
    (0..n).inspect(move |&i| {
        if Some(i) == late {
            clock.advance(Duration::from_millis(700));
        }
        if Some(i) == cancel {
            token.cancel();
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Counting past the limit for an exact total stops at the count
    /// budget, the deadline or a cancellation, whichever comes first; the
    /// page then names it beside a lower-bound total, with its figures,
    /// and the line and the note say what gives the exact total. The
    /// oracle counts the items pulled, one by one.
    #[test]
    fn a_count_cut_names_what_cut_it(
        n in 0u32..400,
        limit in 0usize..30,
        max_counted in prop::option::of(0u64..400),
        late in prop::option::of(0u32..400),
        cancel in prop::option::of(0u32..400),
    ) {
        let clock = ManualClock::new();
        let token = CancelToken::new();
        let mut limits = Limits::new()
            .limit(limit)
            .count_total(true)
            .deadline(Duration::from_millis(500))
            .clock(clock.clone())
            .cancel_token(token.clone());
        if let Some(max) = max_counted {
            limits = limits.max_counted(max);
        }
        let b = Bounded::collect(slow(n, &clock, late, &token, cancel), &limits).unwrap();
        // The oracle: the items pulled one by one, each moving the clock
        // or cancelling as it is pulled; the cancellation and the deadline
        // are asked after each item kept, and before each item counted,
        // and the count budget before each item counted (then one more
        // pull says whether the count happens to be whole).
        let (mut next, mut late_gone, mut cancelled) = (0u32, false, false);
        let mut pull = || {
            (next < n).then(|| {
                let i = next;
                next += 1;
                late_gone |= Some(i) == late;
                cancelled |= Some(i) == cancel;
                (late_gone, cancelled)
            })
        };
        let mut kept = 0u64;
        let mut counting = false;
        let mut state = (false, false);
        while let Some((late_now, cancelled_now)) = pull() {
            state = (late_now, cancelled_now);
            if kept == limit as u64 {
                counting = true;
                break;
            }
            kept += 1;
            if late_now || cancelled_now {
                break;
            }
        }
        let mut expected: Option<(BudgetKind, u64)> = None;
        if counting {
            let mut counted = kept + 1;
            let (mut late_now, mut cancelled_now) = state;
            loop {
                if max_counted.is_some_and(|m| counted >= m) {
                    if pull().is_some() {
                        expected = Some((BudgetKind::Counted, counted));
                    }
                    break;
                }
                if cancelled_now {
                    expected = Some((BudgetKind::Cancelled, counted));
                    break;
                }
                if late_now {
                    expected = Some((BudgetKind::Deadline, counted));
                    break;
                }
                match pull() {
                    Some((l, c)) => {
                        counted += 1;
                        (late_now, cancelled_now) = (l, c);
                    }
                    None => break,
                }
            }
        }
        if !counting {
            // No count ran past the limit: nothing cut one.
            prop_assert_eq!(b.total_cut_by(), None);
            return Ok(());
        }
        prop_assert!(b.completeness().is_truncated_by_limit());
        match expected {
            None => {
                prop_assert_eq!(b.total(), Total::Exact(u64::from(n)));
                prop_assert_eq!(b.total_cut_by(), None);
            }
            Some((kind, at)) => {
                let cut = b.total_cut_by().expect("a cut count says what cut it");
                prop_assert_eq!(cut.kind(), kind);
                prop_assert_eq!(b.total(), Total::AtLeast(at));
                match kind {
                    BudgetKind::Counted => prop_assert_eq!((cut.max(), cut.used()), (max_counted.unwrap(), at)),
                    BudgetKind::Deadline => prop_assert_eq!((cut.max(), cut.used()), (500, 700)),
                    _ => prop_assert_eq!((cut.max(), cut.used()), (0, 0)),
                }
                let line = b.summary("matches");
                let remedy = match kind {
                    BudgetKind::Counted => "raise the count budget for the exact total",
                    BudgetKind::Deadline => "allow more time for the exact total",
                    _ => "ask again for the exact total",
                };
                prop_assert!(line.contains(remedy), "{}", line);
                let json = b.to_json().unwrap();
                let wire: serde_json::Value = serde_json::from_str(&json).unwrap();
                prop_assert_eq!(&wire["total"]["cut_by"]["budget"], kind.as_str());
                if limit > 0 {
                    let note = wire["truncation"]["note"].as_str().unwrap_or_default();
                    prop_assert!(note.contains("for the exact total"), "{}", note);
                }
                let back: Bounded<u32> = serde_json::from_str(&json).unwrap();
                prop_assert_eq!(back, b);
            }
        }
    }
}

/// The search engine names what cut its count too: the count budget, or
/// the deadline once it passes while counting.
#[test]
fn a_search_s_cut_count_says_what_cut_it() {
    let mut docs = Documents::new();
    for i in 0..40 {
        docs.insert(format!("f{i:02}.txt"), "fish\nfish\n").unwrap();
    }
    let fish = Query::literal("fish");
    let budget = Limits::new().limit(3).count_total(true).max_counted(20);
    let b = docs.search(&fish, &budget, None).unwrap();
    assert!(b.completeness().is_truncated_by_limit());
    assert!(b.total().is_lower_bound(), "{:?}", b.total());
    let cut = b.total_cut_by().expect("the count budget cut the count");
    assert_eq!((cut.kind(), cut.max()), (BudgetKind::Counted, 20));
    assert_eq!(cut.used(), b.total().value());

    // The clock moves a millisecond each time it is read: the deadline
    // passes while the count goes on.
    let clock = ManualClock::new().auto_advance(Duration::from_millis(1));
    let timed = Limits::new()
        .limit(3)
        .count_total(true)
        .deadline(Duration::from_millis(30))
        .clock(clock);
    let b = docs.search(&fish, &timed, None).unwrap();
    if b.completeness().is_truncated_by_limit() && b.total().is_lower_bound() {
        let cut = b.total_cut_by().expect("the deadline cut the count");
        assert_eq!((cut.kind(), cut.max()), (BudgetKind::Deadline, 30));
        let line = b.summary("matches");
        assert!(
            line.contains("the count of the total stopped at the 30 ms deadline"),
            "{line}"
        );
        assert!(
            line.contains("allow more time for the exact total"),
            "{line}"
        );
    } else {
        // The deadline cut the items themselves: that stop names it.
        assert_eq!(b.total_cut_by(), None);
    }
    let back: Bounded<candor_search::Match> = serde_json::from_str(&b.to_json().unwrap()).unwrap();
    assert_eq!(back, b);
}

/// The decoder refuses a cut count where none can be: beside an exact
/// total, on an exact page, by the output budget; and the count budget
/// never cuts the items.
#[test]
fn a_cut_count_is_refused_where_none_can_be() {
    let cases = [
        r#"{"complete":false,"truncation":{"by":"limit","limit":1},"start":0,"count":1,"total":{"value":9,"relation":"eq","cut_by":{"budget":"deadline","max":5,"used":6}},"items":[1]}"#,
        r#"{"complete":true,"start":0,"count":1,"total":{"value":1,"relation":"gte","cut_by":{"budget":"deadline","max":5,"used":6}},"items":[1]}"#,
        r#"{"complete":false,"truncation":{"by":"limit","limit":1},"start":0,"count":1,"total":{"value":9,"relation":"gte","cut_by":{"budget":"output_bytes","max":5,"used":6}},"items":[1]}"#,
        r#"{"complete":false,"truncation":{"by":"limit","limit":1},"start":0,"count":1,"total":{"value":9,"relation":"gte","cut_by":{"budget":"cancelled","max":5,"used":6}},"items":[1]}"#,
        r#"{"complete":false,"truncation":{"by":"limit","limit":1},"start":0,"count":1,"total":{"value":9,"relation":"gte","cut_by":{"budget":"memory","max":5,"used":6}},"items":[1]}"#,
        r#"{"complete":false,"truncation":{"by":"budget","budget":"counted","max":5,"used":5},"start":0,"count":1,"total":{"value":9,"relation":"gte"},"items":[1]}"#,
        r#"{"complete":false,"truncation":{"by":"limit","limit":1},"start":1,"count":1,"total":{"value":9,"relation":"gte"},"skipped":{"total":2,"by_reason":{"binary":2},"sample":[],"so_far":{"total":1}},"items":[1]}"#,
        r#"{"complete":false,"truncation":{"by":"limit","limit":1},"start":1,"count":1,"total":{"value":9,"relation":"gte"},"skipped":{"total":0,"by_reason":{},"sample":[],"so_far":{"total":1,"errors":2}},"items":[1]}"#,
    ];
    for json in cases {
        assert!(
            serde_json::from_str::<Bounded<u32>>(json).is_err(),
            "accepted {json}"
        );
    }
    // And from Rust: the same rules, in `Disclosure::check`.
    let cut = Completeness::TruncatedByLimit {
        limit: 1,
        requested: None,
    };
    let exact_total = Disclosure::new(cut.clone(), Total::Exact(9)).with_total_cut_by(Budget::new(
        BudgetKind::Deadline,
        5,
        6,
    ));
    assert!(Bounded::from_parts(vec![1u32], exact_total).is_err());
    let counted_items = Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::Counted, 5, 5),
        clamp: None,
    };
    assert!(
        Bounded::from_parts(
            vec![1u32],
            Disclosure::new(counted_items, Total::AtLeast(1))
        )
        .is_err()
    );
}

/// A resumed page states what the walk skipped so far, from its cursor;
/// on the wire as `skipped.so_far`, in a stream's envelope too, and in
/// the line; a cursor written before such counts were known still reads,
/// as skipping nothing.
#[test]
fn a_walk_s_pages_say_what_it_skipped_so_far() {
    let mut docs = Documents::new();
    for i in 0..3 {
        docs.insert(format!("a{i}.bin"), b"fish\0".to_vec())
            .unwrap();
    }
    docs.insert("b.txt", "fish\n").unwrap();
    docs.insert("c.txt", "fish\n").unwrap();
    docs.insert("d.bin", b"fish\0".to_vec()).unwrap();
    docs.insert("e.txt", "fish\n").unwrap();
    let fish = Query::literal("fish");
    let limits = Limits::new().limit(1);
    let walked = pages("skips", 10, |c| docs.search(&fish, &limits, c));
    let mut running = SkipTally::default();
    for page in &walked {
        let before = page.skipped_so_far();
        running = running + page.skipped().tally();
        assert_eq!(before, running);
        let wire: serde_json::Value = serde_json::from_str(&page.to_json().unwrap()).unwrap();
        let earlier = running.total() - page.skipped().total();
        if earlier > 0 {
            assert_eq!(
                wire["skipped"]["so_far"]["total"],
                running.total(),
                "{wire}"
            );
        } else {
            assert!(wire["skipped"].get("so_far").is_none(), "{wire}");
        }
        let back: Bounded<candor_search::Match> =
            serde_json::from_str(&page.to_json().unwrap()).unwrap();
        assert_eq!(&back, page);
    }
    // A stream's envelope says the same as each page.
    for (i, page) in walked.iter().enumerate() {
        let cursor = i.checked_sub(1).and_then(|j| walked[j].next_cursor());
        let mut json = JsonStream::new();
        let end = docs
            .try_search_each(&fish, &limits, cursor, |m| json.push(m))
            .unwrap();
        let mut out = Vec::new();
        json.write(&end, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), page.to_json().unwrap());
    }
    assert_eq!(running, SkipTally::new(4, 0));
    let last = walked.last().unwrap();
    assert!(last.is_complete());
    let line = last.summary("matches");
    assert!(line.contains("in all so far"), "{line}");
    // A cursor without skip counts (as every cursor before them was)
    // resumes, and the page counts from it.
    let scope = Scope::new(Fingerprint::of("q"));
    let old = candor_search::Cursor::parse("AQLZVnK1B8nRCAMDgAADKJkEMRkmGQc").unwrap();
    assert!(old.skipped_before().is_empty());
    let page = Bounded::page(0..9u32, &Limits::new().limit(3), &scope, Some(&old)).unwrap();
    assert_eq!(page.items(), &[3, 4, 5]);
    assert!(page.skipped_so_far().is_empty());
}

/// A page fitted to an enclosing budget and mapped states its new size in
/// that budget's units, as it was fitted: `used` is the least enclosing
/// budget whose share holds the new JSON.
#[test]
fn a_mapped_page_keeps_the_units_of_its_budget() {
    let enclosing = candor_search::Enclosing::new(3000, 3, 672).unwrap();
    let page = Bounded::collect(
        (0..500u32).map(|n| format!("item {n}")),
        &Limits::new().enclosing(enclosing),
    )
    .unwrap();
    let mapped = page.clone().map(|s| s.replace("item", "it")).unwrap();
    let json = mapped.to_json().unwrap();
    assert!(json.len() <= enclosing.json_budget());
    let budget = mapped
        .completeness()
        .budget()
        .copied()
        .expect("cut by the budget");
    assert_eq!(budget.max(), 3000);
    assert_eq!(budget.used(), enclosing.bytes_for(json.len()));
    // Grown past the share, it is refused, in the same units.
    let err = page.map(|s| format!("{s:>60}")).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::OverBudget { max_bytes: 3000, size } if *size > 3000),
        "{err:?}"
    );
}

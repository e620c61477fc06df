//! Disclosures that stay true: an input the caller named is never
//! skipped silently, a walk's pages report each skip once, a page too
//! small for one item says what one needs, and mapping items never leaves
//! a size the response does not have (docs/CONTRACT.md, rules 5, 7 and
//! 12).

use candor_search::{
    Bounded, BudgetKind, Corpus, ErrorKind, Excerpt, Limits, Query, SkipReason, Skipped, Total,
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
        ("logo.png", b"needle\x00\xff\xfe"),
        ("z.txt", b"needle\n"),
    ]);
    let query = Query::literal("needle");
    for (name, corpus) in f.all() {
        // Met in a walk, a binary file is policy: the answer is whole.
        let walked = corpus.search(&query, &Limits::new(), None).unwrap();
        assert!(walked.is_complete(), "{name}");
        assert_eq!(walked.skipped().count(&SkipReason::Binary), 1, "{name}");
        // Named, it is what the caller asked for, and it was not searched.
        let found = corpus
            .find_in_file("logo.png", &query, &Limits::new(), None)
            .unwrap();
        assert!(found.is_empty(), "{name}");
        assert!(!found.is_complete(), "{name}: find_in_file");
        assert_eq!(found.skipped().error_total(), 1, "{name}");
        let lines = corpus
            .excerpt(&Excerpt::new("logo.png", 1..=10), &Limits::new(), None)
            .unwrap();
        assert!(lines.is_empty(), "{name}");
        assert!(!lines.is_complete(), "{name}: excerpt");
        let json = lines.to_json().unwrap();
        assert!(json.starts_with(r#"{"complete":false"#), "{name}: {json}");
        assert!(json.contains(r#""errors":{"binary":1}"#), "{name}: {json}");
        // A path filter that names the file names it too; one that names
        // its folder does not.
        let filtered = corpus
            .search(
                &query.clone().paths(["logo.png", "z.txt"]),
                &Limits::new(),
                None,
            )
            .unwrap();
        assert_eq!(filtered.len(), 1, "{name}");
        assert!(!filtered.is_complete(), "{name}: a named path");
        let summary = filtered.summary("matches");
        assert!(
            summary.contains("could not be searched") && summary.contains("binary: 1"),
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
        max_bytes in prop::option::of(400..900usize),
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

/// The wire fields of subsets, two stops, error skips and a source's note
/// decode, and encode back byte for byte (the wire corpus holds these).
#[test]
fn the_new_wire_fields_round_trip_byte_for_byte() {
    for seed in [
        "seed-errors-custom.json",
        "seed-subset-two-stops.json",
        "seed-needed.json",
        "seed-clamp-reached.json",
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

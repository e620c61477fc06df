//! Sources that are not text search: keyset paging told how much to fetch,
//! sources that abuse the request, and fallible sources (`Fallible` rows),
//! each checked against a naive oracle over generated inputs; and a
//! stream whose callback stops it.

use candor_search::{
    Bounded, ErrorKind, Fallible, Fingerprint, KeyRequest, Keyset, Limits, Scope, Total, TryError,
};
use proptest::prelude::*;

fn scope() -> Scope {
    Scope::new(Fingerprint::of("adopters"))
}

/// What the source does with a request.
#[derive(Debug, Clone, Copy)]
enum Behaviour {
    /// `WHERE key > after ORDER BY key LIMIT fetch`.
    Honest,
    /// `LIMIT limit`: hides the row that proves truncation.
    HidesProbe,
    /// `LIMIT limit + 1` whatever it was asked (wrong when counting).
    FixedProbe,
}

/// The limits of a case: item limit, whether to count, count budget.
fn limits_of(limit: usize, count_total: bool, max_count: Option<u64>) -> Limits {
    let mut limits = Limits::new().limit(limit).count_total(count_total);
    if let Some(max) = max_count {
        limits = limits.max_counted(max);
    }
    limits
}

/// The fetch the request must carry, worked out from the contract.
fn expected_fetch(limit: usize, count_total: bool, max_count: Option<u64>) -> Option<usize> {
    if !count_total {
        return Some(limit + 1);
    }
    max_count.map(|m| (limit + 1).max(m as usize) + 1)
}

/// How many rows a source of `behaviour` yields for a request of `fetch`.
fn rows_taken(behaviour: Behaviour, fetch: Option<usize>, limit: usize) -> usize {
    match behaviour {
        Behaviour::Honest => fetch.unwrap_or(usize::MAX),
        Behaviour::HidesProbe => fetch.map_or(usize::MAX, |f| f.min(limit)),
        Behaviour::FixedProbe => fetch.map_or(limit + 1, |f| f.min(limit + 1)),
    }
}

/// Pages through `rows` (sorted, unique) with a source of `behaviour`.
/// Returns the pages' items, or the refusal's message, and checks every
/// request and every page against the oracle on the way.
fn follow(
    rows: &[u32],
    limits: &Limits,
    fetch: Option<usize>,
    behaviour: Behaviour,
    limit: usize,
) -> Result<Result<Vec<u32>, String>, TestCaseError> {
    let mut all = Vec::new();
    let mut cursor = None;
    for _ in 0..=rows.len() + 1 {
        let mut requests = Vec::new();
        let source = |request: KeyRequest<u32>| {
            requests.push(request.clone());
            let after = request.after().copied();
            let take = rows_taken(behaviour, request.fetch(), limit);
            rows.iter()
                .copied()
                .filter(move |r| after.is_none_or(|a| *r > a))
                .take(take)
                .collect::<Vec<_>>()
        };
        let result = Bounded::page(
            Keyset::new(source, |r: &u32| *r),
            limits,
            &scope(),
            cursor.as_ref(),
        );
        // The first request carries the resume key and the fetch; a second
        // one, if any, checks a source that ended early for one more row.
        prop_assert!(!requests.is_empty() && requests.len() <= 2);
        prop_assert_eq!(requests[0].fetch(), fetch);
        if let Some(check) = requests.get(1) {
            prop_assert_eq!(check.fetch(), Some(1));
        }
        let page = match result {
            Ok(page) => page,
            Err(e) => {
                prop_assert!(
                    matches!(e.kind(), ErrorKind::InvalidArgument { name: "source", .. }),
                    "{e}"
                );
                return Ok(Err(e.to_string()));
            }
        };
        let rest = &rows[all.len()..];
        // A page says where it starts, and its total counts the whole
        // answer, not only what remains after the cursor.
        prop_assert_eq!(page.start(), all.len() as u64);
        prop_assert!(page.len() <= rest.len());
        prop_assert_eq!(
            page.items(),
            &rest[..page.len()],
            "not a prefix of the answer"
        );
        if page.completeness().is_exact() {
            prop_assert_eq!(page.items(), rest, "exact, but rows are missing");
        } else {
            prop_assert!(page.total().value() > (all.len() + page.len()) as u64);
        }
        if let Total::Exact(n) = page.total() {
            prop_assert_eq!(n, rows.len() as u64, "an exact total that is wrong");
        }
        all.extend_from_slice(page.items());
        match page.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => return Ok(Ok(all)),
        }
    }
    Err(TestCaseError::fail("paging did not end"))
}

fn sorted_rows() -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::btree_set(0..500u32, 0..60).prop_map(|s| s.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// An honest source is told how much to fetch, and paging rebuilds
    /// the answer with every total right.
    #[test]
    fn a_keyset_tells_an_honest_source_how_much_to_fetch(
        rows in sorted_rows(),
        limit in 0..12usize,
        count_total in any::<bool>(),
        max_count in proptest::option::of(0..80u64),
    ) {
        let limits = limits_of(limit, count_total, max_count);
        let fetch = expected_fetch(limit, count_total, max_count);
        match follow(&rows, &limits, fetch, Behaviour::Honest, limit)? {
            // A limit of 0 gives one empty page, truncated when rows exist.
            Ok(all) if limit == 0 => prop_assert!(all.is_empty()),
            Ok(all) => prop_assert_eq!(all, rows),
            Err(e) => return Err(TestCaseError::fail(format!("an honest source was refused: {e}"))),
        }
    }

    /// A source that caps its own answer (hiding the probe row, or the rows
    /// a count needs) is refused whenever that would change the answer;
    /// whatever it returns before that is right.
    #[test]
    fn a_keyset_that_caps_its_answer_is_refused(
        rows in sorted_rows(),
        // Under a limit of 0, `LIMIT limit` yields nothing, which no check
        // can tell from an empty answer (documented on `Keyset`).
        limit in 1..12usize,
        count_total in any::<bool>(),
        max_count in proptest::option::of(0..80u64),
        hides_probe in any::<bool>(),
    ) {
        let limits = limits_of(limit, count_total, max_count);
        let fetch = expected_fetch(limit, count_total, max_count);
        let behaviour = if hides_probe { Behaviour::HidesProbe } else { Behaviour::FixedProbe };
        // The source differs from an honest one exactly when it gives less
        // than asked while holding more: then the answer must be refused.
        let taken = rows_taken(behaviour, fetch, limit);
        let abused = taken < fetch.unwrap_or(usize::MAX) && rows.len() > taken;
        match follow(&rows, &limits, fetch, behaviour, limit)? {
            Ok(all) => {
                prop_assert!(!abused, "a capped source was taken at its word");
                prop_assert_eq!(all, rows);
            }
            Err(e) => prop_assert!(abused, "refused without cause: {e}"),
        }
    }

    /// A source whose keys are out of order (or repeat) within what the
    /// query reads is refused, never paged with a gap.
    #[test]
    fn a_keyset_with_keys_out_of_order_is_refused(
        rows in proptest::collection::btree_set(0..500u32, 2..40).prop_map(|s| s.into_iter().collect::<Vec<_>>()),
        at in any::<prop::sample::Index>(),
        repeat in any::<bool>(),
        extra in 0..5usize,
    ) {
        let mut rows = rows;
        let i = at.index(rows.len() - 1);
        if repeat { rows[i + 1] = rows[i]; } else { rows.swap(i, i + 1); }
        // The query reads rows up to i + 1 at least.
        let limits = Limits::new().limit(i + 1 + extra);
        let source = |request: KeyRequest<u32>| {
            let fetch = request.fetch().unwrap_or(usize::MAX);
            rows.iter().copied().take(fetch).collect::<Vec<_>>()
        };
        let err = Bounded::page(Keyset::new(source, |r: &u32| *r), &limits, &scope(), None).unwrap_err();
        prop_assert!(matches!(err.kind(), ErrorKind::InvalidArgument { name: "source", .. }), "{err}");
    }

    /// The first error of a fallible source ends the query with the rows
    /// read; a source whose error is never reached answers as the
    /// infallible one does.
    #[test]
    fn fallible_rows_end_at_the_first_error(
        rows in proptest::collection::vec(0..1000u32, 0..40),
        error_at in proptest::option::of(0..45usize),
        limit in 0..15usize,
        count_total in any::<bool>(),
        skip in 0..3usize,
    ) {
        let error_at = error_at.map(|e| e.min(rows.len()));
        let stream = || {
            let mut v: Vec<Result<u32, String>> = rows.iter().copied().map(Ok).collect();
            if let Some(e) = error_at {
                v.insert(e, Err(format!("row {e} failed")));
            }
            v
        };
        let limits = Limits::new().limit(limit).count_total(count_total);
        // How far each query reads: up to the probe, or to the end when counting.
        let reaches = |start: usize, e: usize| {
            e >= start && (e - start <= limit || (count_total && rows.len() - start > limit))
        };

        let collected = Bounded::collect(Fallible(stream()), &limits);
        match error_at.filter(|&e| reaches(0, e)) {
            Some(e) => {
                let Err(TryError::Source(failed)) = collected else {
                    return Err(TestCaseError::fail(format!("no source error: {collected:?}")));
                };
                prop_assert_eq!(failed.items(), &rows[..e.min(limit)]);
                prop_assert_eq!(failed.error(), &format!("row {e} failed"));
                prop_assert!(failed.next_cursor().is_none());
            }
            None => {
                let reached: Vec<u32> = match error_at { Some(e) => rows[..e].to_vec(), None => rows.clone() };
                // The error lies past what was read: the answer is the
                // infallible one over the rows before it.
                let oracle = Bounded::collect(reached.clone(), &limits).unwrap();
                let got = collected.map_err(|e| TestCaseError::fail(format!("{e}")))?;
                prop_assert_eq!(got.items(), oracle.items());
                prop_assert_eq!(got.completeness(), oracle.completeness());
                prop_assert!(!got.is_complete() || error_at.is_none(), "exact before an error");
            }
        }

        // Paging: resume after `skip` rows with a cursor from a first page.
        let skip = skip.min(rows.len());
        let first = Bounded::page(rows.clone(), &Limits::new().limit(skip), &scope(), None).unwrap();
        let cursor = first.next_cursor().cloned();
        let start = if cursor.is_some() { skip } else { 0 };
        let paged = Bounded::page(Fallible(stream()), &limits, &scope(), cursor.as_ref());
        match error_at {
            Some(e) if e < start => {
                let Err(TryError::Source(failed)) = paged else {
                    return Err(TestCaseError::fail("an error while skipping was missed".to_string()));
                };
                prop_assert!(failed.items().is_empty());
            }
            Some(e) if reaches(start, e) => {
                let Err(TryError::Source(failed)) = paged else {
                    return Err(TestCaseError::fail(format!("no source error: {paged:?}")));
                };
                let read = &rows[start..e.min(start + limit)];
                prop_assert_eq!(failed.items(), read);
                // The cursor resumes right after the rows read.
                if let Some(next) = failed.next_cursor() {
                    let resumed = Bounded::page(rows.clone(), &Limits::new().limit(1), &scope(), Some(next)).unwrap();
                    prop_assert_eq!(resumed.items(), &rows[start + read.len()..(start + read.len() + 1).min(rows.len())]);
                } else {
                    prop_assert!(read.is_empty());
                }
            }
            _ => {
                let got = paged.map_err(|e| TestCaseError::fail(format!("{e}")))?;
                prop_assert_eq!(got.items(), &rows[start..(start + limit).min(rows.len())]);
                if got.completeness().is_exact() {
                    prop_assert!(error_at.is_none_or(|e| e < start));
                }
            }
        }
    }

    /// A `Keyset` of `Fallible` rows ends at the source's error, keeps the rows read
    /// and a cursor after them; resuming from it continues the answer.
    #[test]
    fn a_fallible_keyset_keeps_what_was_read(
        rows in sorted_rows(),
        failing in any::<prop::sample::Index>(),
        limit in 1..12usize,
    ) {
        prop_assume!(!rows.is_empty());
        let bad = rows[failing.index(rows.len())];
        let source = |request: KeyRequest<u32>| {
            let after = request.after().copied();
            let fetch = request.fetch().unwrap_or(usize::MAX);
            let rows = rows.iter()
                .copied()
                .filter(move |r| after.is_none_or(|a| *r > a))
                .take(fetch)
                .map(move |r| if r == bad { Err(std::io::Error::other(format!("row {r}"))) } else { Ok(r) })
                .collect::<Vec<_>>();
            Fallible(rows)
        };
        let limits = Limits::new().limit(limit);
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            match Bounded::page(Keyset::new(source, |r: &u32| *r), &limits, &scope(), cursor.as_ref()) {
                Ok(page) => {
                    all.extend_from_slice(page.items());
                    prop_assert!(page.items().iter().all(|r| *r < bad), "read past the failing row");
                    match page.next_cursor() { Some(c) => cursor = Some(c.clone()), None => {
                        return Err(TestCaseError::fail("the failing row was never reached"));
                    } }
                }
                Err(TryError::Source(failed)) => {
                    all.extend_from_slice(failed.items());
                    let before: Vec<u32> = rows.iter().copied().filter(|r| *r < bad).collect();
                    prop_assert_eq!(&all, &before);
                    prop_assert_eq!(failed.error().to_string(), format!("row {bad}"));
                    let err = TryError::Source(failed);
                    let source_of = std::error::Error::source(&err).map(|s| s.to_string());
                    prop_assert_eq!(source_of, Some(format!("row {bad}")));
                    break;
                }
                Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
            }
        }
    }
}

/// One way to an exact total: `count_total`. A keyset that can count is
/// asked for its count only then (and for `limit + 1` rows), and not
/// read on; without `count_total` the count is never run.
#[test]
fn a_keyset_counts_only_when_an_exact_total_is_asked_for() {
    use std::cell::{Cell, RefCell};
    let table: Vec<u32> = (1..=40).collect();
    let fetched = RefCell::new(Vec::new());
    let counted = Cell::new(0);
    let source = || {
        let rows = |request: KeyRequest<u32>| {
            fetched.borrow_mut().push(request.fetch());
            let after = request.after().copied().unwrap_or(0);
            let fetch = request.fetch().unwrap_or(usize::MAX);
            table
                .iter()
                .copied()
                .filter(move |n| *n > after)
                .take(fetch)
        };
        let count = |after: Option<&u32>| {
            counted.set(counted.get() + 1);
            let after = after.copied().unwrap_or(0);
            Ok::<u64, std::convert::Infallible>(table.iter().filter(|n| **n > after).count() as u64)
        };
        Keyset::new(rows, |n: &u32| *n).count(count)
    };
    let page = Bounded::page(source(), &Limits::new().limit(10), &scope(), None).unwrap();
    assert_eq!((page.total(), counted.get()), (Total::AtLeast(11), 0));
    let exact = Limits::new().limit(10).count_total(true);
    let page = Bounded::page(source(), &exact, &scope(), None).unwrap();
    assert_eq!((page.total(), counted.get()), (Total::Exact(40), 1));
    let second = Bounded::page(source(), &exact, &scope(), page.next_cursor()).unwrap();
    assert_eq!(
        (second.start(), second.total(), counted.get()),
        (10, Total::Exact(40), 2)
    );
    // Asked for the probe only, never for the rest.
    assert!(
        fetched.borrow().iter().all(|f| *f == Some(11)),
        "{:?}",
        fetched.borrow()
    );
}

/// The motivating numbers of the design: 8,963 rows, a limit of 1,000, a source with
/// `LIMIT n` and one with `LIMIT n + 1` while counting.
#[test]
fn the_two_sql_mistakes_are_refused() {
    let rows: Vec<u32> = (1..=8963).collect();
    let with_limit = |n: usize| {
        let rows = &rows;
        move |request: KeyRequest<u32>| {
            let after = request.after().copied().unwrap_or(0);
            rows.iter()
                .copied()
                .filter(move |r| *r > after)
                .take(n)
                .collect::<Vec<_>>()
        }
    };
    let key = |r: &u32| *r;
    let err = Bounded::page(
        Keyset::new(with_limit(1000), key),
        &Limits::new().limit(1000),
        &scope(),
        None,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("ended after 1000 items of the 1001 asked for"),
        "{err}"
    );
    let err = Bounded::page(
        Keyset::new(with_limit(1001), key),
        &Limits::new().limit(1000).count_total(true),
        &scope(),
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("ended after 1001 items"), "{err}");
    // The obvious query with the request's fetch is right.
    let honest = |request: KeyRequest<u32>| {
        let after = request.after().copied().unwrap_or(0);
        let n = usize::try_from(request.sql_limit()).unwrap_or(usize::MAX);
        rows.iter()
            .copied()
            .filter(move |r| *r > after)
            .take(n)
            .collect::<Vec<_>>()
    };
    let page = Bounded::page(
        Keyset::new(honest, key),
        &Limits::new().limit(1000).count_total(true),
        &scope(),
        None,
    )
    .unwrap();
    assert_eq!(page.len(), 1000);
    assert_eq!(page.total(), Total::Exact(8963));
    assert!(page.completeness().is_truncated());
}

proptest! {
    /// The skipped sample lists error skips before policy skips, each in
    /// the order recorded, however the record was assembled from parts.
    #[test]
    fn skipped_sample_lists_errors_first(
        skips in proptest::collection::vec(any::<bool>(), 0..20),
        cut in any::<prop::sample::Index>(),
    ) {
        use candor_search::{SKIPPED_SAMPLE_LEN, SkipReason, Skipped, SkippedInput};
        let input = |(n, is_error): (usize, &bool)| {
            let reason = if *is_error { SkipReason::Vanished } else { SkipReason::Hidden };
            SkippedInput::new(format!("f{n}"), reason)
        };
        let inputs: Vec<SkippedInput> = skips.iter().enumerate().map(input).collect();
        let oracle: Vec<SkippedInput> = inputs
            .iter()
            .filter(|i| i.reason().is_error())
            .chain(inputs.iter().filter(|i| !i.reason().is_error()))
            .take(SKIPPED_SAMPLE_LEN)
            .cloned()
            .collect();
        let mut whole = Skipped::new();
        for i in &inputs {
            whole.record(i.clone());
        }
        prop_assert_eq!(whole.sample(), oracle.as_slice());
        let at = if inputs.is_empty() { 0 } else { cut.index(inputs.len() + 1) };
        let (mut left, mut right) = (Skipped::new(), Skipped::new());
        for i in &inputs[..at] {
            left.record(i.clone());
        }
        for i in &inputs[at..] {
            right.record(i.clone());
        }
        left.absorb(right);
        prop_assert_eq!(left.sample(), oracle.as_slice());
        prop_assert_eq!(left.total(), inputs.len() as u64);
    }
}

proptest! {
    /// A query cancelled after `k` items were pulled stops there with a
    /// `cancelled` budget, a prefix of the answer and a cursor; following
    /// cursors (each page cancelled the same way) rebuilds the answer.
    #[test]
    fn a_cancelled_query_stops_with_a_cursor_and_loses_nothing(
        len in 0..40u32,
        cancel_after in 1..6usize,
        limit in proptest::option::of(1..10usize),
    ) {
        use candor_search::{BudgetKind, CancelToken, Completeness};
        let scope = scope();
        let answer: Vec<u32> = (0..len).collect();
        let mut all = Vec::new();
        let mut cursor = None;
        for _ in 0..=answer.len() + 1 {
            let token = CancelToken::new();
            let mut limits = Limits::new().cancel_token(token.clone());
            if let Some(limit) = limit {
                limits = limits.limit(limit);
            }
            let mut pulled = 0;
            let source = answer.iter().copied().inspect(|_| {
                pulled += 1;
                if pulled == cancel_after {
                    token.cancel();
                }
            });
            let page = Bounded::page(source, &limits, &scope, cursor.as_ref()).unwrap();
            let rest = &answer[all.len()..];
            prop_assert_eq!(page.items(), &rest[..page.len()]);
            match page.completeness() {
                Completeness::TruncatedByBudget { budget, .. } => {
                    prop_assert_eq!(budget.kind(), BudgetKind::Cancelled);
                    prop_assert!(!page.is_empty(), "a cancelled page still advances");
                    prop_assert!(page.next_cursor().is_some());
                    let json = page.to_json().unwrap();
                    prop_assert!(json.contains(r#""budget":"cancelled""#), "{}", json);
                }
                Completeness::TruncatedByLimit { .. } => prop_assert!(page.next_cursor().is_some()),
                _ => prop_assert_eq!(page.items(), rest),
            }
            all.extend_from_slice(page.items());
            match page.next_cursor() {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        prop_assert_eq!(all, answer);
    }
}

/// A search is cancelled the same way, between files.
#[test]
fn a_cancelled_search_answers_with_what_it_has() {
    use candor_search::{BudgetKind, CancelToken, Corpus, Documents, Query};
    let mut docs = Documents::new();
    for n in 0..20 {
        docs = docs.with(format!("f{n:02}.txt"), "needle\n");
    }
    let token = CancelToken::new();
    token.cancel();
    let limits = Limits::new().cancel_token(token);
    let b = docs
        .search(&Query::literal("needle"), &limits, None)
        .unwrap();
    assert!(!b.is_empty(), "at least one unit of work is done");
    assert!(b.len() < 20);
    assert_eq!(
        b.completeness().budget().map(|b| b.kind()),
        Some(BudgetKind::Cancelled)
    );
    let rest = docs
        .search(&Query::literal("needle"), &Limits::new(), b.next_cursor())
        .unwrap();
    assert_eq!(b.len() + rest.len(), 20);
}

/// The indexer's case: an insert fails on the third match of a tree of
/// 100 files, each with one. The search stops there, on every thread
/// count: the callback is not called again, the end says where it
/// stopped, and its cursor resumes at the match that failed.
#[cfg(feature = "tree")]
#[test]
fn a_stream_stops_when_its_callback_fails_or_says_so() {
    use std::ops::ControlFlow;

    use candor_search::{BudgetKind, Corpus, Query, StreamError};
    let files: Vec<(String, Vec<u8>)> = (0..100)
        .map(|n| (format!("f{n:03}.rs"), b"fn needle() {}\n".to_vec()))
        .collect();
    let f = crate::fixture::Fixture::owned(&files);
    let query = Query::literal("needle");
    for (name, tree) in &f.trees {
        let mut indexed = Vec::new();
        let mut calls = 0;
        let outcome = tree.try_search_each(&query, &Limits::new(), None, |m| {
            calls += 1;
            if calls == 3 {
                return Err(std::io::Error::other("the index is full"));
            }
            indexed.push(m.path.clone());
            Ok(())
        });
        let Err(StreamError::Callback { end, error }) = outcome else {
            panic!("{name}: the third insert fails");
        };
        assert_eq!(error.to_string(), "the index is full", "{name}");
        assert_eq!((calls, indexed.len(), end.count()), (3, 2, 2), "{name}");
        assert!(
            end.total().value() < 100,
            "{name}: the search went on: {:?}",
            end.total()
        );
        assert_eq!(
            end.completeness().budget().map(|b| b.kind()),
            Some(BudgetKind::Cancelled),
            "{name}"
        );
        let rest = tree
            .search(&query, &Limits::new(), end.next_cursor())
            .unwrap();
        assert_eq!(rest.start(), 2, "{name}");
        assert_eq!(
            rest.items()[0].path,
            "f002.rs",
            "{name}: resumes at the failed match"
        );
        assert_eq!(rest.len(), 98, "{name}");

        // Stopping on purpose: after the match the callback was handed.
        let mut calls = 0;
        let end = tree
            .search_each(&query, &Limits::new(), None, &mut |_| {
                calls += 1;
                if calls == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .unwrap();
        assert_eq!((calls, end.count()), (3, 3), "{name}");
        let rest = tree
            .search(&query, &Limits::new(), end.next_cursor())
            .unwrap();
        assert_eq!(
            (rest.start(), rest.items()[0].path.as_str()),
            (3, "f003.rs"),
            "{name}"
        );
    }
}

/// Borrowed items that are neither `'static` nor `Send`: every source
/// takes them, `Fallible` rows and `into_exact` included.
#[test]
fn borrowed_and_thread_bound_items_are_collected_and_paged() {
    use std::convert::Infallible;
    use std::rc::Rc;

    #[derive(Debug, serde::Serialize)]
    struct Line<'a> {
        text: &'a str,
        // Not Send, not Sync.
        owner: Rc<str>,
    }
    let text = String::from("alpha\nbeta\ndelta\ngamma\n");
    let owner: Rc<str> = Rc::from("doc");
    let lines = || {
        text.lines().map(|line| {
            Ok::<_, Infallible>(Line {
                text: line,
                owner: Rc::clone(&owner),
            })
        })
    };
    let b = Bounded::collect(Fallible(lines()), &Limits::new().limit(2)).unwrap();
    assert_eq!(
        b.items().iter().map(|l| l.text).collect::<Vec<_>>(),
        ["alpha", "beta"]
    );
    assert!(b.completeness().is_truncated());

    let source = |request: KeyRequest<String>| {
        let after = request.into_after();
        Fallible(lines().filter(move |l| match (l, &after) {
            (Ok(line), Some(a)) => line.text > a.as_str(),
            _ => true,
        }))
    };
    let key = |l: &Line<'_>| l.text.to_owned();
    let first = Bounded::page(
        Keyset::new(source, key),
        &Limits::new().limit(3),
        &scope(),
        None,
    )
    .unwrap();
    assert_eq!(first.len(), 3);
    let second = Bounded::page(
        Keyset::new(source, key),
        &Limits::new().limit(3),
        &scope(),
        first.next_cursor(),
    )
    .unwrap();
    assert!(second.is_complete());
    let keys: Vec<&str> = first.iter().chain(second.iter()).map(|l| l.text).collect();
    assert_eq!(keys, text.lines().collect::<Vec<_>>());

    // Requiring the whole answer keeps the partial result, with no bound
    // on the items.
    let incomplete = Bounded::collect(Fallible(lines()), &Limits::new().limit(1))
        .unwrap()
        .into_exact()
        .unwrap_err();
    assert_eq!(incomplete.bounded().items()[0].text, "alpha");
    assert_eq!(incomplete.bounded().total(), Total::AtLeast(2));

    // The infallible form: the items themselves.
    let plain = || lines().map(|line| line.unwrap_or_else(|never| match never {}));
    let b = Bounded::collect(plain(), &Limits::new().limit(2)).unwrap();
    assert_eq!(
        b.items().iter().map(|l| l.text).collect::<Vec<_>>(),
        ["alpha", "beta"]
    );
}

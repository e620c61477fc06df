//! Where a resumed page starts, and what its total counts, whatever path
//! issued the cursor it resumed from: a page, a page that its source's
//! error interrupted, a merge of shards.
//!
//! The properties follow cursors from the first page to the end and check,
//! on every page and every error that holds items:
//!
//! - docs/CONTRACT.md, rules 1 and M6: `start` is the number of items
//!   of the answer before the page, and a cursor's `start` the number
//!   before where it resumes;
//! - rules 1 and M4: the total counts the whole
//!   answer, never the remainder after a cursor: exact only at the
//!   answer's length, otherwise a lower bound no greater than it and no
//!   less than `start + len`;
//! - rule 6: the pages and interrupted reads rebuild the answer
//!   exactly once.
//!
//! The oracle is the answer itself, a sorted `Vec<u32>`.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use candor::{
    Bounded, Cursor, Fallible, Fingerprint, KeyRequest, Keyset, Limits, Scope, Shards, Total,
    TryError,
};
use proptest::prelude::*;

use crate::core_support::config;

/// What a request for one page gave: a page, or the items an error left
/// and the cursor after them.
enum Got<'a> {
    Page(&'a Bounded<u32>),
    Interrupted(&'a [u32], Option<&'a Cursor>),
}

/// One step of a walk: checks what a request gave against the oracle
/// `answer`, given the items read before it (`before`, which it extends).
/// Returns whether there is a cursor to go on from.
fn check_step(answer: &[u32], before: &mut Vec<u32>, got: Got<'_>) -> Result<bool, TestCaseError> {
    let n = answer.len() as u64;
    let at = before.len();
    let (items, cursor) = match got {
        Got::Page(page) => {
            prop_assert_eq!(page.start(), at as u64, "a page's start");
            let end = (at + page.len()) as u64;
            match page.total() {
                Total::Exact(t) => prop_assert_eq!(t, n, "an exact total"),
                Total::AtLeast(t) => {
                    prop_assert!(t <= n, "at least {} of an answer of {}", t, n);
                    prop_assert!(t >= end, "at least {} after item {}", t, end);
                }
            }
            (page.items(), page.next_cursor())
        }
        Got::Interrupted(items, cursor) => (items, cursor),
    };
    prop_assert!(
        at + items.len() <= answer.len(),
        "more items than the answer"
    );
    prop_assert_eq!(items, &answer[at..at + items.len()], "a prefix of the rest");
    before.extend_from_slice(items);
    if let Some(cursor) = cursor {
        prop_assert_eq!(
            cursor.start(),
            before.len() as u64,
            "a cursor's start is the items before it"
        );
    }
    Ok(cursor.is_some())
}

/// How the source of a walk resumes.
#[derive(Debug, Clone, Copy)]
enum Resume {
    /// `Fallible` rows: read again from the start, the earlier items
    /// skipped.
    Offset,
    /// A `Keyset` of `Fallible` rows: after the last key returned.
    Key,
    /// The same, counting for itself: the total from a count that fails
    /// once.
    KeyCounted,
}

/// Pages through `answer` with a source whose rows at `flaky` indexes fail
/// the first time they are read (and the count, for `KeyCounted`, the
/// first time it is asked), resuming from the cursor of every page and of
/// every interrupted read that has one.
fn walk_flaky(
    answer: &[u32],
    flaky: &HashSet<usize>,
    resume: Resume,
    limit: usize,
    count_total: bool,
) -> Result<(), TestCaseError> {
    let scope = Scope::new(Fingerprint::of("interrupted pages"));
    let failed: RefCell<HashSet<usize>> = RefCell::new(HashSet::new());
    let row = |index: usize| {
        if flaky.contains(&index) && failed.borrow_mut().insert(index) {
            Err(format!("row {index} failed"))
        } else {
            Ok(answer[index])
        }
    };
    let count_failed = Cell::new(false);
    let limits = Limits::new().limit(limit).count_total(count_total);
    let mut before = Vec::new();
    let mut cursor: Option<Cursor> = None;
    // Every flaky row fails once, and each page or error moves on or
    // spends a failure.
    for _ in 0..(answer.len() + 2) * 2 + flaky.len() + 4 {
        let rows_after = |request: KeyRequest<u32>| {
            let after = request.after().copied();
            let fetch = request.fetch().unwrap_or(usize::MAX);
            let rows = (0..answer.len())
                .filter(move |&i| after.is_none_or(|a| answer[i] > a))
                .take(fetch)
                .map(row);
            Fallible(rows)
        };
        let result = match resume {
            Resume::Offset => Bounded::page(
                Fallible((0..answer.len()).map(row)),
                &limits,
                &scope,
                cursor.as_ref(),
            ),
            Resume::Key => Bounded::page(
                Keyset::new(rows_after, |n: &u32| *n),
                &limits,
                &scope,
                cursor.as_ref(),
            ),
            Resume::KeyCounted => {
                let count = |after: Option<&u32>| {
                    if !count_failed.replace(true) {
                        return Err("the count failed".to_owned());
                    }
                    Ok(answer
                        .iter()
                        .filter(|n| after.is_none_or(|a| *n > a))
                        .count() as u64)
                };
                Bounded::page(
                    Keyset::new(rows_after, |n: &u32| *n).count(count),
                    &limits.clone().count_total(true),
                    &scope,
                    cursor.as_ref(),
                )
            }
        };
        let goes_on = match &result {
            Ok(page) => check_step(answer, &mut before, Got::Page(page))?,
            Err(TryError::Source(i)) => {
                if i.next_cursor().is_none() {
                    // Nothing was read: the same request again.
                    prop_assert!(i.items().is_empty(), "items read and no cursor after them");
                    continue;
                }
                check_step(
                    answer,
                    &mut before,
                    Got::Interrupted(i.items(), i.next_cursor()),
                )?
            }
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        let next = match result {
            Ok(page) => page.next_cursor().cloned(),
            Err(TryError::Source(i)) => i.next_cursor().cloned(),
            Err(_) => None,
        };
        if !goes_on {
            prop_assert_eq!(before.as_slice(), answer, "the walk rebuilds the answer");
            return Ok(());
        }
        cursor = next;
    }
    Err(TestCaseError::fail("the walk did not end"))
}

/// Pages through `answer` split across shards (item `i` in shard
/// `shard_of[i] % shards`), each round asking every shard for its items
/// after the cursor's key, collected under the shard's own limit if it has
/// one (at least 1: a shard cut to nothing leaves nothing certain), and
/// merging them under the global `limit`.
fn walk_merged(
    answer: &[u32],
    shard_of: &[usize],
    shard_limits: &[Option<usize>],
    limit: usize,
) -> Result<(), TestCaseError> {
    let scope = Scope::new(Fingerprint::of("merged pages"));
    let mut shards = vec![Vec::new(); shard_limits.len()];
    for (i, n) in answer.iter().enumerate() {
        shards[shard_of[i] % shard_limits.len()].push(*n);
    }
    let parts_for = |request: KeyRequest<u32>| {
        let after = request.after().copied();
        let parts = shards.iter().zip(shard_limits).map(|(shard, shard_limit)| {
            let rest: Vec<u32> = shard
                .iter()
                .copied()
                .filter(|n| after.is_none_or(|a| *n > a))
                .collect();
            match shard_limit {
                Some(l) => Bounded::collect(rest, &Limits::new().limit((*l).max(1))),
                None => Ok(Bounded::exact(rest)),
            }
        });
        parts.collect::<Result<Vec<_>, _>>()
    };
    let limits = Limits::new().limit(limit);
    let mut before = Vec::new();
    let mut cursor: Option<Cursor> = None;
    for _ in 0..=answer.len() + 1 {
        let page = Bounded::page(
            Shards::new(parts_for, |n: &u32| *n),
            &limits,
            &scope,
            cursor.as_ref(),
        )
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        if !check_step(answer, &mut before, Got::Page(&page))? {
            prop_assert!(page.completeness().is_exact(), "truncated without a cursor");
            prop_assert_eq!(before.as_slice(), answer, "the walk rebuilds the answer");
            return Ok(());
        }
        cursor = page.next_cursor().cloned();
    }
    Err(TestCaseError::fail("the walk did not end"))
}

fn answer() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::btree_set(0..500u32, 0..40).prop_map(|s| s.into_iter().collect())
}

fn resume() -> impl Strategy<Value = Resume> {
    prop_oneof![
        Just(Resume::Offset),
        Just(Resume::Key),
        Just(Resume::KeyCounted)
    ]
}

proptest! {
    #![proptest_config(config(256))]

    /// Rules 1 and 6 through a source's errors: the cursor an interrupted
    /// page hands back says how many items came before it, and the pages
    /// resumed from it say where they start and count the whole answer.
    #[test]
    fn interrupted_pages_resume_at_their_place(
        answer in answer(),
        flaky in prop::collection::hash_set(0..40usize, 0..6),
        resume in resume(),
        limit in 1..8usize,
        count_total in any::<bool>(),
    ) {
        let flaky: HashSet<usize> = flaky.into_iter().filter(|i| *i < answer.len()).collect();
        walk_flaky(&answer, &flaky, resume, limit, count_total)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// docs/CONTRACT.md, rules M4 and M6: merged pages (`Shards`), resumed from their
    /// cursors, start where the earlier pages ended and count the whole
    /// answer.
    #[test]
    fn merged_pages_resume_at_their_place(
        answer in answer(),
        shard_of in prop::collection::vec(0..4usize, 40),
        shard_limits in prop::collection::vec(prop::option::weighted(0.5, 0..12usize), 1..5),
        limit in 1..10usize,
    ) {
        walk_merged(&answer, &shard_of, &shard_limits, limit)?;
    }
}

/// The case of the report: 30 callers in two shards, pages of 4; page 2
/// holds items 5 to 8 of 30, not "1-4 of at least 15".
#[test]
fn a_merged_page_resumed_from_its_cursor_says_where_it_starts() {
    let scope = Scope::new(Fingerprint::of("callers"));
    let shards = [
        (1..=30).filter(|n| n % 2 == 0).collect::<Vec<u32>>(),
        (1..=30).filter(|n| n % 2 == 1).collect::<Vec<u32>>(),
    ];
    let limits = Limits::new().limit(4).count_total(true);
    let parts_for = |request: KeyRequest<u32>| {
        let after = request.after().copied();
        shards
            .iter()
            .map(|shard| {
                Bounded::collect(
                    shard
                        .iter()
                        .copied()
                        .filter(|n| after.is_none_or(|a| *n > a)),
                    &limits,
                )
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let first = Bounded::page(Shards::new(parts_for, |n: &u32| *n), &limits, &scope, None).unwrap();
    assert_eq!(first.items(), &[1, 2, 3, 4]);
    assert_eq!(first.total(), Total::Exact(30));
    let second = Bounded::page(
        Shards::new(parts_for, |n: &u32| *n),
        &limits,
        &scope,
        first.next_cursor(),
    )
    .unwrap();
    assert_eq!(second.items(), &[5, 6, 7, 8]);
    assert_eq!(second.start(), 4);
    assert_eq!(second.total(), Total::Exact(30));
    assert!(
        second
            .summary("callers")
            .starts_with("Incomplete: callers 5-8 of 30"),
        "{}",
        second.summary("callers")
    );
}

/// The case of the report: rows 11 to 14 read, row 15 fails; the cursor
/// after them says 14 rows came before it, and so does the page resumed
/// from it.
#[test]
fn a_cursor_after_an_interrupted_page_carries_its_start() {
    let scope = Scope::new(Fingerprint::of("rows"));
    let limits = Limits::new().limit(10);
    let rows = |fail_at: Option<u32>| {
        move |request: KeyRequest<u32>| {
            let after = request.after().copied().unwrap_or(0);
            let fetch = request.fetch().unwrap_or(usize::MAX);
            let rows = (after + 1..=30).take(fetch);
            Fallible(rows.map(move |n| {
                if Some(n) == fail_at {
                    Err("disk")
                } else {
                    Ok(n)
                }
            }))
        }
    };
    let first = Bounded::page(Keyset::new(rows(None), |n: &u32| *n), &limits, &scope, None)
        .expect("no error");
    assert_eq!(first.next_cursor().map(Cursor::start), Some(10));
    let Err(TryError::Source(failed)) = Bounded::page(
        Keyset::new(rows(Some(15)), |n: &u32| *n),
        &limits,
        &scope,
        first.next_cursor(),
    ) else {
        panic!("row 15 fails");
    };
    assert_eq!(failed.items(), &[11, 12, 13, 14]);
    let cursor = failed.next_cursor().expect("rows were read");
    assert_eq!(cursor.start(), 14);
    let resumed = Bounded::page(
        Keyset::new(rows(None), |n: &u32| *n),
        &limits,
        &scope,
        Some(cursor),
    )
    .expect("no error");
    assert_eq!(resumed.start(), 14);
    assert_eq!(resumed.items().first(), Some(&15));
    assert_eq!(resumed.total(), Total::AtLeast(25));
    assert_eq!(resumed.next_cursor().map(Cursor::start), Some(24));
}

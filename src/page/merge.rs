//! Merging sorted partial results (shards) into one `Bounded`: only the
//! prefix that is certain is kept, then the limits apply.

use std::cmp::Ordering;

use serde::Serialize;

use crate::collector::Collector;
use crate::error::Error;
use crate::{
    AsOf, Bounded, Budget, BudgetKind, Completeness, Cursor, Disclosure, Limits, Skipped, Total,
};

/// The merged, certain prefix of several sorted parts.
pub(super) struct Merged<T> {
    pub(super) items: Vec<T>,
    /// Set when a truncated part bounds what is certain: its stop, and how
    /// many items it returned.
    upstream: Option<(Completeness, usize)>,
    /// The stop of the first part whose items are a subset, not a prefix:
    /// then so is the merged page (docs/CONTRACT.md, rule M2).
    subset: Option<Completeness>,
    total: Total,
    /// What cut the count of a part's total, the first part's that says.
    total_cut_by: Option<Budget>,
    /// Items of the merged answer before these parts: the sum of the
    /// parts' starts.
    start: u64,
    skipped: Skipped,
    /// The earliest time a part's answer is as of (see `AsOf`), if any
    /// trusts an index: the merged answer is no fresher.
    as_of: Option<AsOf>,
}

/// Merges `parts` in the order of `compare` (ties: earlier part first),
/// keeping only the prefix that is certain: a truncated part's missing
/// items all come after its last item, so nothing after the smallest such
/// last item can be placed yet.
pub(super) fn merge_certain<T>(
    parts: Vec<Bounded<T>>,
    mut compare: impl FnMut(&T, &T) -> Ordering,
) -> Result<Merged<T>, Error> {
    let mut total = Total::Exact(0);
    let mut total_cut_by = None;
    let mut start = 0u64;
    let mut skipped = Skipped::new();
    let mut as_of: Option<AsOf> = None;
    let mut tagged: Vec<(usize, usize, T)> = Vec::new();
    let mut subset = None;
    // (part, index of its last item or None when it has none, completeness)
    let mut truncated: Vec<(usize, Option<usize>, Completeness)> = Vec::new();
    for (part_index, part) in parts.into_iter().enumerate() {
        let (items, disclosure) = part.into_parts();
        for pair in items.windows(2) {
            if compare(&pair[0], &pair[1]) == Ordering::Greater {
                return Err(Error::invalid_argument(
                    "parts",
                    format!("part {part_index} is not sorted in the merge order"),
                ));
            }
        }
        total = total + disclosure.total();
        total_cut_by = total_cut_by.or(disclosure.total_cut_by());
        start = start.saturating_add(disclosure.start());
        skipped.absorb(disclosure.skipped().clone());
        as_of = match (as_of, disclosure.as_of()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if disclosure.is_subset() && subset.is_none() {
            subset = Some(disclosure.completeness().clone());
        }
        if disclosure.completeness().is_truncated() {
            truncated.push((
                part_index,
                items.len().checked_sub(1),
                disclosure.completeness().clone(),
            ));
        }
        tagged.extend(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| (part_index, i, item)),
        );
    }
    // A stable sort keeps (part, position) order among equal items; the
    // parts are already sorted, so this is a merge of runs.
    tagged.sort_by(|a, b| compare(&a.2, &b.2).then(a.0.cmp(&b.0)));

    let mut upstream = None;
    let mut cut = tagged.len();
    if !truncated.is_empty() {
        if let Some((_, _, c)) = truncated.iter().find(|(_, last, _)| last.is_none()) {
            // A truncated part that returned nothing: nothing is certain.
            cut = 0;
            upstream = Some((c.clone(), 0));
        } else {
            // The earliest, in merge order, of the truncated parts' last items.
            let position = |part: usize, last: usize| {
                tagged
                    .iter()
                    .position(|(p, i, _)| *p == part && *i == last)
                    .expect("every item is in the merge")
            };
            let (pos, completeness, returned) = truncated
                .iter()
                .map(|(part, last, c)| {
                    let last = last.expect("checked above");
                    (position(*part, last), c, last + 1)
                })
                .min_by_key(|(pos, _, _)| *pos)
                .expect("at least one truncated part");
            cut = pos + 1;
            upstream = Some((completeness.clone(), returned));
        }
    }
    tagged.truncate(cut);
    Ok(Merged {
        items: tagged.into_iter().map(|(_, _, item)| item).collect(),
        upstream,
        subset,
        total,
        total_cut_by,
        start,
        skipped,
        as_of,
    })
}

impl<T> Bounded<T> {
    /// Merges sorted partial results (from shards) into one result under
    /// `limits`, in the order of `compare`, with no cursor.
    ///
    /// Each part must be sorted by `compare`; equal items keep the order of
    /// the parts. The parts answer the same query from the same place of
    /// the merged order: each a first page (`start` 0), or each resumed
    /// after the same item of the merged order, as [`Shards`](crate::Shards)
    /// resumes them; the merged page's `start` is the sum of the parts'.
    /// Parts paged on their own, each from its own cursor, are not such
    /// parts: the items before each were not merged, so no page of the
    /// merged order is made of them (its `start`, total and completeness
    /// would be about another answer). The laws of combination hold: merging an exact part with
    /// a truncated one is truncated; totals add, and a lower bound absorbs
    /// an exact total; skipped inputs add up. Only the prefix that is
    /// certain is kept: a truncated part's missing items come after its
    /// last item, so the merge stops there. The global limit and byte
    /// budget then apply as in [`collect`](Self::collect).
    ///
    /// Whatever part stopped first, the caller's clamp is told (the clamp
    /// rule of the contract). A part cut by its own limit or response
    /// budget before the merge's limit cuts the page with a
    /// [`BudgetKind::Shard`](crate::BudgetKind::Shard) stop (more items
    /// exist, after the page's last); a part cut by a work budget keeps
    /// it. A part whose items are a subset makes the page a subset, with
    /// no cursor.
    /// To page through shards with cursors, see
    /// [`Shards`](crate::Shards).
    ///
    /// # Errors
    ///
    /// Those of [`collect`](Self::collect), and
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// when a part is not sorted.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Completeness, Limits, Total};
    /// // Each shard answers the query with the global limit of 3.
    /// let limits = Limits::new().limit(3);
    /// let a = Bounded::collect(vec![1, 4, 9], &limits)?; // all of it
    /// let b = Bounded::collect(vec![2, 3, 5, 7], &limits)?; // 2, 3, 5: cut before 7
    /// let merged = Bounded::merge(vec![a, b], &limits, |x: &i32, y: &i32| x.cmp(y))?;
    /// assert_eq!(merged.items(), &[1, 2, 3]);
    /// assert!(merged.completeness().is_truncated_by_limit());
    /// assert_eq!(merged.total(), Total::AtLeast(7)); // 3 + at least 4
    ///
    /// // Without a global limit, the page ends where shard b stopped (5):
    /// // b's missing items come after it.
    /// let (a, b) = (Bounded::collect(vec![1, 4, 9], &limits)?, Bounded::collect(vec![2, 3, 5, 7], &limits)?);
    /// let merged = Bounded::merge(vec![a, b], &Limits::new(), |x: &i32, y: &i32| x.cmp(y))?;
    /// assert_eq!(merged.items(), &[1, 2, 3, 4, 5]);
    /// assert_eq!(merged.completeness().budget().map(|b| b.kind()), Some(candor::BudgetKind::Shard));
    ///
    /// // A shard cut by its own limit first: the page says so, with the
    /// // caller's clamp, and never names a limit its items do not reach.
    /// let clamped = Limits::new().ceiling(5).limit(100);
    /// let (a, b) = (Bounded::exact(vec![1, 4, 9]), Bounded::collect(vec![2, 3, 5], &Limits::new().limit(2))?);
    /// let merged = Bounded::merge(vec![a, b], &clamped, |x: &i32, y: &i32| x.cmp(y))?;
    /// assert_eq!(merged.items(), &[1, 2, 3]); // b's missing items come after 3
    /// let stop = merged.completeness();
    /// assert_eq!(stop.budget().map(|b| b.kind()), Some(candor::BudgetKind::Shard));
    /// assert_eq!(stop.clamp(), Some(candor::Clamp::new(5, 100)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge<F>(
        parts: Vec<Bounded<T>>,
        limits: &Limits,
        compare: F,
    ) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
        F: FnMut(&T, &T) -> Ordering,
    {
        let merged = merge_certain(parts, compare)?;
        collect_merged(limits, merged, None, |_| None)
    }
}

/// Merges parts in the order of `key` and pages the certain prefix under
/// `limits`, with a cursor at the last item's key: for sources that ask
/// their shards themselves (a fan-out across clusters) and whose parts'
/// starts add up to the page's start.
#[cfg_attr(not(feature = "opensearch"), allow(dead_code))]
pub(crate) fn merge_by_key<T, K>(
    limits: &Limits,
    scope: &crate::Scope,
    parts: Vec<Bounded<T>>,
    key: impl Fn(&T) -> K,
) -> Result<Bounded<T>, Error>
where
    T: Serialize,
    K: crate::CursorKey + Ord,
{
    let merged = merge_certain(parts, |a, b| key(a).cmp(&key(b)))?;
    collect_merged(limits, merged, None, |kept| {
        kept.last().map(|last| scope.unplaced(&key(last)))
    })
}

/// The merged page under `limits`. It starts at `start` in the whole
/// answer, or, when `None`, after the items before the parts (the sum
/// of their starts).
pub(super) fn collect_merged<T>(
    limits: &Limits,
    merged: Merged<T>,
    start: Option<u64>,
    cursor_for: impl Fn(&[T]) -> Option<Cursor>,
) -> Result<Bounded<T>, Error>
where
    T: Serialize,
{
    let Merged {
        items,
        upstream,
        subset,
        total,
        total_cut_by,
        start: parts_start,
        skipped,
        as_of,
    } = merged;
    let start = start.unwrap_or(parts_start);
    // A part's stop is told as the caller's query (docs/CONTRACT.md,
    // rule M5): the limit and clamp the caller asked for and was allowed,
    // whatever part stopped first. A part cut by its own limit or response
    // budget before the merge's limit is a shard's stop: the page holds
    // fewer items than any limit it could name, and more exist.
    let applied = limits.applied_limit();
    let mut collector = Collector::new(limits);
    collector.set_start(start);
    collector.absorb_skipped(skipped);
    if let Some(cut) = total_cut_by {
        // A part's total is a lower bound because its count was cut: so
        // is the sum, for the same reason.
        collector.cut_count(cut);
    }
    collector.set_as_of(as_of);
    let mut broke = false;
    let mut offered = 0usize;
    for item in items {
        if collector.offer(item).is_break() {
            broke = true;
            break;
        }
        offered += 1;
    }
    if !broke {
        let upstream = upstream.map(|(stop, returned)| match stop {
            // The page reached the caller's limit, and the part proved
            // more: a limit stop, as the caller's.
            Completeness::TruncatedByLimit { .. } if Some(offered) == applied.limit() => {
                Completeness::TruncatedByLimit {
                    limit: offered,
                    requested: applied.requested(),
                }
            }
            Completeness::TruncatedByLimit { .. } => shard_stop(returned, applied.clamp()),
            Completeness::TruncatedByBudget { budget, .. }
                if budget.kind() == BudgetKind::OutputBytes =>
            {
                shard_stop(returned, applied.clamp())
            }
            Completeness::TruncatedByBudget { budget, clamp } => Completeness::TruncatedByBudget {
                budget,
                clamp: applied.clamp().or(clamp),
            },
            Completeness::Exact => Completeness::Exact,
        });
        if let Some(upstream) = upstream {
            collector.stop_with(upstream);
        }
    }
    // The parts' totals count their whole answers, from before their
    // starts; the collector counts from the page's start on.
    let rest = match total {
        Total::Exact(n) => Total::Exact(n.saturating_sub(parts_start)),
        Total::AtLeast(n) => Total::AtLeast(n.saturating_sub(parts_start)),
    };
    let page = collector.finish(cursor_for, Some(rest))?;
    match subset {
        None => Ok(page),
        Some(stop) => Ok(as_subset(page, stop, applied.clamp())),
    }
}

/// The stop of a merge cut where a part stopped by itself, after it
/// returned `returned` items.
fn shard_stop(returned: usize, clamp: Option<crate::Clamp>) -> Completeness {
    let returned = returned as u64;
    Completeness::TruncatedByBudget {
        budget: Budget::new(BudgetKind::Shard, returned, returned),
        clamp,
    }
}

/// A merged page one of whose parts is a subset: it is a subset too, with
/// no cursor (resuming after its last item could skip items for good), and
/// stopped by that part's stop unless it was cut by its own.
fn as_subset<T>(page: Bounded<T>, stop: Completeness, clamp: Option<crate::Clamp>) -> Bounded<T> {
    let (items, d) = page.into_parts();
    let end = d.start() + items.len() as u64;
    let part_stop = match stop {
        Completeness::TruncatedByBudget { budget, clamp: own } => Completeness::TruncatedByBudget {
            budget,
            clamp: clamp.or(own),
        },
        other => other,
    };
    let (completeness, limit_reached) = match (d.completeness(), &part_stop) {
        (Completeness::Exact, _) => (part_stop.clone(), None),
        // Cut by the merge's limit too: both stops are stated.
        (Completeness::TruncatedByLimit { limit, .. }, Completeness::TruncatedByBudget { .. }) => {
            (part_stop.clone(), Some(*limit))
        }
        (own, _) => (own.clone(), None),
    };
    let total = match d.total() {
        Total::Exact(n) if n > end => Total::Exact(n),
        other => Total::AtLeast(other.value().max(end)),
    };
    let mut disclosure = Disclosure::new(completeness, total)
        .with_start(d.start())
        .with_skipped(d.skipped().clone())
        .with_subset();
    if let Some(limit) = limit_reached {
        disclosure = disclosure.with_limit_reached(limit);
    }
    Bounded::assemble(items, disclosure)
}

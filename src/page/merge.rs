//! Merging sorted partial results (shards) into one `Bounded`, and paging
//! through shards by key.

use std::cmp::Ordering;

use serde::Serialize;

use crate::collect::Collector;
use crate::error::Error;
use crate::{Bounded, Completeness, Cursor, CursorKey, KeyRequest, Limits, Scope, Skipped, Total};

/// The merged, certain prefix of several sorted parts.
struct Merged<T> {
    items: Vec<T>,
    /// Set when a truncated part bounds what is certain.
    upstream: Option<Completeness>,
    total: Total,
    /// Items of the merged answer before these parts: the sum of the
    /// parts' starts.
    start: u64,
    skipped: Skipped,
}

/// Merges `parts` in the order of `compare` (ties: earlier part first),
/// keeping only the prefix that is certain: a truncated part's missing
/// items all come after its last item, so nothing after the smallest such
/// last item can be placed yet.
fn merge_certain<T>(
    parts: Vec<Bounded<T>>,
    mut compare: impl FnMut(&T, &T) -> Ordering,
) -> Result<Merged<T>, Error> {
    let mut total = Total::Exact(0);
    let mut start = 0u64;
    let mut skipped = Skipped::new();
    let mut tagged: Vec<(usize, usize, T)> = Vec::new();
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
        start = start.saturating_add(disclosure.start());
        skipped.absorb(disclosure.skipped().clone());
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
            upstream = Some(c.clone());
        } else {
            // The earliest, in merge order, of the truncated parts' last items.
            let position = |part: usize, last: usize| {
                tagged
                    .iter()
                    .position(|(p, i, _)| *p == part && *i == last)
                    .expect("every item is in the merge")
            };
            let (pos, completeness) = truncated
                .iter()
                .map(|(part, last, c)| (position(*part, last.expect("checked above")), c))
                .min_by_key(|(pos, _)| *pos)
                .expect("at least one truncated part");
            cut = pos + 1;
            upstream = Some(completeness.clone());
        }
    }
    tagged.truncate(cut);
    Ok(Merged {
        items: tagged.into_iter().map(|(_, _, item)| item).collect(),
        upstream,
        total,
        start,
        skipped,
    })
}

impl Limits {
    /// Merges sorted partial results (from shards) into one [`Bounded`]
    /// under these limits, in the order of `compare`.
    ///
    /// Each part must be sorted by `compare`; equal items keep the order of
    /// the parts. The laws of combination hold: merging an exact part with
    /// a truncated one is truncated; totals add, and a lower bound absorbs
    /// an exact total; skipped inputs add up. Only the prefix that is
    /// certain is kept: a truncated part's missing items come after its
    /// last item, so the merge stops there. The global limit and byte
    /// budget then apply as in [`collect`](Self::collect).
    ///
    /// Whatever part stopped first, the stop is told as the caller's query
    /// (SCALE.md rule 5): a part cut at its own limit gives
    /// `TruncatedByLimit` with the limit these limits apply and, when the
    /// ceiling clamped it, what was requested; a part cut by a budget keeps
    /// its budget, with this clamp. Without a limit here, a part's limit is
    /// the one in force and applies to the merge too, so that the result
    /// never holds more items than the limit it reports. The merged result
    /// has no cursor (see [`merge_by_key`](Self::merge_by_key)).
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
    /// let a = limits.collect(vec![1, 4, 9])?; // all of it
    /// let b = limits.collect(vec![2, 3, 5, 7])?; // 2, 3, 5: cut before 7
    /// let merged = limits.merge(vec![a, b], |x: &i32, y: &i32| x.cmp(y))?;
    /// assert_eq!(merged.items(), &[1, 2, 3]);
    /// assert!(merged.completeness().is_truncated_by_limit());
    /// assert_eq!(merged.total(), Total::AtLeast(7)); // 3 + at least 4
    ///
    /// // Without a global limit, the shards' own limit of 3 is in force.
    /// let (a, b) = (limits.collect(vec![1, 4, 9])?, limits.collect(vec![2, 3, 5, 7])?);
    /// let merged = Limits::new().merge(vec![a, b], |x: &i32, y: &i32| x.cmp(y))?;
    /// assert_eq!(merged.items(), &[1, 2, 3]);
    ///
    /// // A shard cut first still tells the caller's clamp.
    /// let clamped = Limits::new().ceiling(5).limit(100);
    /// let (a, b) = (Bounded::exact(vec![1, 4, 9]), Limits::new().limit(2).collect(vec![2, 3, 5])?);
    /// let merged = clamped.merge(vec![a, b], |x: &i32, y: &i32| x.cmp(y))?;
    /// assert_eq!(merged.items(), &[1, 2, 3]); // b's missing items come after 3
    /// assert_eq!(
    ///     merged.completeness(),
    ///     &Completeness::TruncatedByLimit { limit: 5, requested: Some(100) }
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge<T, F>(&self, parts: Vec<Bounded<T>>, compare: F) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
        F: FnMut(&T, &T) -> Ordering,
    {
        let merged = merge_certain(parts, compare)?;
        self.collect_merged(merged, None, |_| None)
    }

    /// One page of an answer split across shards, merged by a unique key
    /// under these limits, with a cursor holding the key of the last item
    /// returned.
    ///
    /// `parts_for` is called once with a [`KeyRequest`]: the key to
    /// resume after (decoded from `cursor`, which must be this scope's;
    /// `None` on a first page) and how many items to ask each shard for
    /// (`limit + 1`, the one past the limit proving truncation). It asks
    /// every shard for its items after that key, in key order, each shard
    /// saying itself whether it returned all it holds (a [`Bounded`]).
    /// The parts are merged as by [`merge`](Self::merge); the page says
    /// where it starts in the whole answer (the cursor's
    /// [`start`](Cursor::start)), and its total counts the whole answer:
    /// the items before the cursor plus what the shards hold after it.
    /// Keys must be unique across the parts, or paging could lose an item.
    ///
    /// # Errors
    ///
    /// Those of [`merge`](Self::merge) and of `parts_for`; the cursor
    /// errors of [`Scope::resume`]; and
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// when two items share a key or an item is not after the cursor's key.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fingerprint, KeyRequest, Limits, Scope, Total};
    /// let scope = Scope::new(Fingerprint::of("callers of flush"));
    /// let shards = [vec![3u64, 8, 13], vec![1u64, 5]];
    /// let limits = Limits::new().limit(2);
    /// let parts_for = |request: KeyRequest<u64>| {
    ///     let after = request.after().copied();
    ///     shards
    ///         .iter()
    ///         .map(|shard| limits.collect(shard.iter().copied().filter(|n| after.is_none_or(|a| *n > a))))
    ///         .collect::<Result<Vec<_>, _>>()
    /// };
    /// let first = limits.merge_by_key(&scope, None, parts_for, |n| *n)?;
    /// assert_eq!(first.items(), &[1, 3]);
    /// let second = limits.merge_by_key(&scope, first.next_cursor(), parts_for, |n| *n)?;
    /// assert_eq!(second.items(), &[5, 8]);
    /// assert_eq!(second.start(), 2); // items 3 and 4 of the answer
    /// assert_eq!(second.total(), Total::Exact(5)); // every shard said it was whole
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge_by_key<T, K, P, F>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        parts_for: P,
        key: F,
    ) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
        K: CursorKey + Ord + Clone,
        P: FnOnce(KeyRequest<K>) -> Result<Vec<Bounded<T>>, Error>,
        F: Fn(&T) -> K,
    {
        let after = cursor.map(|c| scope.resume::<K>(c)).transpose()?;
        let fetch = self.applied_limit().limit().and_then(|l| l.checked_add(1));
        let parts = parts_for(KeyRequest {
            after: after.clone(),
            fetch,
        })?;
        if let Some(after) = &after {
            if parts
                .iter()
                .flat_map(Bounded::iter)
                .any(|item| key(item) <= *after)
            {
                return Err(Error::invalid_argument(
                    "parts",
                    "an item is not after the cursor's key; ask every shard for its items after it",
                ));
            }
        }
        let merged = merge_certain(parts, |a, b| key(a).cmp(&key(b)))?;
        if merged.items.windows(2).any(|w| key(&w[0]) == key(&w[1])) {
            return Err(Error::invalid_argument(
                "parts",
                "two items share a key; a cursor needs a unique key per item",
            ));
        }
        // The page's place in the whole answer is the cursor's, not the
        // shards': each was asked afresh after the key.
        let start = cursor.map_or(0, Cursor::start);
        self.collect_merged(merged, Some(start), |kept: &[T]| {
            kept.last().map(|item| scope.unplaced(&key(item)))
        })
    }

    /// The merged page under these limits. It starts at `start` in the
    /// whole answer, or, when `None`, after the items before the parts
    /// (the sum of their starts).
    fn collect_merged<T>(
        &self,
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
            total,
            start: parts_start,
            skipped,
        } = merged;
        let start = start.unwrap_or(parts_start);
        // A part's stop is told as the caller's query (SCALE.md rule 5):
        // the limit and clamp the caller asked for and was allowed,
        // whatever part stopped first.
        let applied = self.applied_limit();
        let narrowed;
        let (limits, upstream) = match (upstream, applied.limit()) {
            (Some(Completeness::TruncatedByLimit { .. }), Some(limit)) => (
                self,
                Some(Completeness::TruncatedByLimit {
                    limit,
                    requested: applied.requested(),
                }),
            ),
            // No limit of the caller's to tell: the part's limit is the one
            // in force, applied here too, so that the result never holds
            // more items than the limit it reports.
            (Some(Completeness::TruncatedByLimit { limit, requested }), None) => {
                narrowed = self.clone().limit(limit);
                (
                    &narrowed,
                    Some(Completeness::TruncatedByLimit { limit, requested }),
                )
            }
            (Some(Completeness::TruncatedByBudget { budget, clamp }), _) => (
                self,
                Some(Completeness::TruncatedByBudget {
                    budget,
                    clamp: applied.clamp().or(clamp),
                }),
            ),
            (other, _) => (self, other),
        };
        let mut collector = Collector::new(limits);
        collector.set_start(start);
        collector.absorb_skipped(skipped);
        let mut broke = false;
        for item in items {
            if collector.offer(item).is_break() {
                broke = true;
                break;
            }
        }
        if !broke {
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
        collector.finish(cursor_for, Some(rest))
    }
}

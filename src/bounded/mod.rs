//! `Bounded<T>`: items that never travel without their disclosure.

mod incomplete;

pub use incomplete::Incomplete;

use serde::{Serialize, Serializer};

use crate::disclosure::disclosure_getters;
use crate::envelope::Envelope;
use crate::error::{Error, ErrorKind};
use crate::{Completeness, Cursor, Disclosure, Skipped, Total};

/// The answer to a query: the items, and whether they are all of it.
///
/// Beside the items it holds their [`Disclosure`]: the [`Completeness`]
/// (exact, or why it stopped), the [`Total`] (exact or a lower bound, of
/// the whole answer), where this page [`start`](Self::start)s, the cursor
/// to resume from, and what was [`Skipped`]. Items leave it only with that
/// disclosure: by borrowing ([`items`](Self::items), [`iter`](Self::iter)),
/// by [`into_parts`](Self::into_parts), or by
/// [`into_exact`](Self::into_exact), which succeeds only for a complete
/// result. There is deliberately no `Deref` to a slice, no by-value
/// `IntoIterator` and no conversion into `Vec<T>`.
///
/// Rules that hold for every `Bounded`, whatever produced it (checked by
/// [`from_parts`](Self::from_parts) and by the JSON decoder):
///
/// - `start + len <= total`: the total counts the whole answer, also on a
///   page resumed from a cursor, which holds items `start + 1` to
///   `start + len`.
/// - `Exact` only when no item of the full answer is missing from this
///   page on; then `total == Exact(start + len)` and there is no cursor.
/// - A truncated result is a prefix of the answer from `start`, in its
///   order; when its stop proves more (the limit, the output budget), its
///   total is above `start + len`.
/// - A cursor resumes after item `start + len`.
/// - `is_complete()` is true only when the result is exact and no input was
///   skipped because of an error.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Completeness, Limits, Total};
///
/// let b: Bounded<u32> = Bounded::collect(0..25u32, &Limits::new().limit(10))?;
/// assert!(!b.is_complete());
/// assert!(matches!(b.completeness(), Completeness::TruncatedByLimit { .. }));
/// assert_eq!(b.total(), Total::AtLeast(11));
/// assert_eq!(b.iter().sum::<u32>(), (0..10u32).sum::<u32>());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a result may be truncated; check `is_complete()`"]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded<T> {
    items: Vec<T>,
    disclosure: Disclosure,
}
impl<T> Bounded<T> {
    /// Builds a result from items and their disclosure, for a backend that
    /// already knows its total, its skips and whether it stopped early.
    ///
    /// The disclosure is checked against the rules every result obeys (the
    /// same check the JSON decoder applies): `start + count <= total`; an
    /// exact result has `total == Exact(start + count)` and no cursor; a
    /// result cut by its limit or the output budget has a total above
    /// `start + count` and no more items than its limit; a clamp's
    /// `requested` is above its `limit`; a cursor resumes after item
    /// `start + count`; `skipped.total` is the sum of its counts by reason
    /// and its sample is bounded by [`SKIPPED_SAMPLE_LEN`](crate::SKIPPED_SAMPLE_LEN).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidDisclosure`] naming the rule broken.
    ///
    /// # Example
    ///
    /// Wrapping an Elasticsearch-style response, which reports its total
    /// as `hits.total.value` with a `relation`, `timed_out`, and failed
    /// shards:
    ///
    /// ```
    /// use candor::{
    ///     Bounded, Budget, BudgetKind, Completeness, Disclosure, SkipReason, Skipped,
    ///     SkippedInput, Total,
    /// };
    /// use serde_json::json;
    ///
    /// let response = json!({
    ///     "took": 1200, "timed_out": true,
    ///     "_shards": { "total": 5, "successful": 4, "failed": 1 },
    ///     "hits": { "total": { "value": 10000, "relation": "gte" },
    ///               "hits": [ { "_id": "a" }, { "_id": "b" } ] }
    /// });
    /// let hits: Vec<String> = response["hits"]["hits"]
    ///     .as_array().into_iter().flatten()
    ///     .filter_map(|h| h["_id"].as_str().map(String::from))
    ///     .collect();
    /// let value = response["hits"]["total"]["value"].as_u64().unwrap_or(0);
    /// let total = match response["hits"]["total"]["relation"].as_str() {
    ///     Some("eq") => Total::Exact(value),
    ///     _ => Total::AtLeast(value),
    /// };
    /// let completeness = if response["timed_out"] == true {
    ///     let took = response["took"].as_u64().unwrap_or(0);
    ///     Completeness::TruncatedByBudget {
    ///         budget: Budget::new(BudgetKind::Deadline, 1000, took),
    ///         clamp: None,
    ///     }
    /// } else if (hits.len() as u64) < total.value() {
    ///     Completeness::TruncatedByLimit { limit: hits.len(), requested: None }
    /// } else {
    ///     Completeness::Exact
    /// };
    /// let mut skipped = Skipped::new();
    /// for shard in 0..response["_shards"]["failed"].as_u64().unwrap_or(0) {
    ///     skipped.record(SkippedInput::new(format!("shard {shard}"), SkipReason::Unreadable));
    /// }
    /// let disclosure = Disclosure::new(completeness, total).with_skipped(skipped);
    /// let b = candor::Bounded::from_parts(hits, disclosure)?;
    /// assert!(!b.is_complete());
    /// assert_eq!(b.total(), Total::AtLeast(10000));
    /// assert!(b.to_json()?.contains(r#""by_reason":{"unreadable":1}"#));
    ///
    /// // A disclosure that contradicts its items is refused.
    /// let wrong = Disclosure::new(Completeness::Exact, Total::Exact(3));
    /// assert!(candor::Bounded::from_parts(vec!["a"], wrong).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_parts(items: Vec<T>, disclosure: Disclosure) -> Result<Bounded<T>, Error> {
        disclosure
            .check(items.len())
            .map_err(|reason| ErrorKind::InvalidDisclosure { reason })?;
        Ok(Bounded { items, disclosure })
    }

    /// Builds a result on an internal path, where the rules hold by
    /// construction: checked in debug builds only.
    pub(crate) fn assemble(items: Vec<T>, disclosure: Disclosure) -> Bounded<T> {
        debug_assert_eq!(
            disclosure.check(items.len()),
            Ok(()),
            "a result breaks a rule"
        );
        Bounded { items, disclosure }
    }

    /// A complete answer: all of `items`, nothing skipped.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::exact(vec!["a", "b"]);
    /// assert!(b.is_complete());
    /// assert_eq!(b.total(), candor::Total::Exact(2));
    /// ```
    pub fn exact(items: Vec<T>) -> Bounded<T> {
        let total = Total::Exact(items.len() as u64);
        Bounded::assemble(items, Disclosure::new(Completeness::Exact, total))
    }

    /// The items, in the answer's order.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(5..9u8, &candor::Limits::new().limit(2))?;
    /// assert_eq!(b.items(), &[5, 6]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Iterates over the items by reference.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::exact(vec![1, 2, 3]);
    /// assert_eq!(b.iter().copied().max(), Some(3));
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// How many items this result holds: never the total.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..9u8, &candor::Limits::new().limit(2))?;
    /// assert_eq!(b.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Returns true when this result holds no items (there may still be
    /// some in the full answer: see [`total`](Self::total)).
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..9u8, &candor::Limits::new().limit(0))?;
    /// assert!(b.is_empty());
    /// assert_eq!(b.total(), candor::Total::AtLeast(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    disclosure_getters! {
        /// Whether the items are the whole answer, and if not, what stopped it.
        ///
        /// # Example
        ///
        /// ```
        /// let b = candor::Bounded::collect(0..9u8, &candor::Limits::new())?;
        /// assert!(b.completeness().is_exact());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        completeness -> &Completeness;

        /// How many items the full answer holds: exact, or a lower bound.
        ///
        /// An exact result's total is `Exact(len)`. A result truncated by the
        /// limit or the output budget has at least `len + 1`; the exact figure
        /// when [`Limits::count_total`](crate::Limits::count_total) was asked
        /// for and counting finished within its budget. A result stopped by a
        /// work budget or the deadline has at least `len`.
        ///
        /// The total always counts the whole answer, also on a page resumed
        /// from a cursor: that page says where it starts with
        /// [`start`](Self::start).
        ///
        /// The answer is that of the inputs searched. When an input could
        /// not be searched, or not to its end, because of an error
        /// ([`Skipped::has_errors`](crate::Skipped::has_errors): unreadable,
        /// changed while read, a line too long), the result is not
        /// complete ([`is_complete`](Self::is_complete) is false) and the
        /// total counts only what was searched: the items that input holds
        /// are unknown.
        ///
        /// # Example
        ///
        /// ```
        /// let b = candor::Bounded::collect(0..9u8, &candor::Limits::new().limit(4))?;
        /// assert_eq!(b.total(), candor::Total::AtLeast(5));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        total -> Total;

        /// How many items of the full answer come before this page: 0 on a
        /// first page, and on a page resumed from a cursor the number of items
        /// the earlier pages returned. This page holds items `start + 1` to
        /// `start + len` of [`total`](Self::total).
        ///
        /// # Example
        ///
        /// ```
        /// use candor::{Bounded, Fingerprint, Limits, Scope, Total};
        /// let scope = Scope::new(Fingerprint::of("numbers below 25"));
        /// let limits = Limits::new().limit(10);
        /// let first = Bounded::page(0..25u32, &limits, &scope, None)?;
        /// let second = Bounded::page(0..25u32, &limits, &scope, first.next_cursor())?;
        /// assert_eq!(second.start(), 10);
        /// assert_eq!(second.total(), Total::AtLeast(21)); // the whole answer, not the rest
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        start -> u64;

        /// True when the result is exact and no input was skipped because of an
        /// error. Inputs left out by policy (binary, too large) do not count.
        ///
        /// This is the wire shape's `complete` ([`Disclosure::is_complete`]),
        /// the one predicate of a result about the whole answer. Whether
        /// items were cut is the [`completeness`](Self::completeness)'s:
        /// [`is_exact`](Completeness::is_exact) and
        /// [`is_truncated`](Completeness::is_truncated) are opposites, and
        /// an exact result whose input was skipped for an error is exact
        /// and not complete.
        ///
        /// # Example
        ///
        /// ```
        /// assert!(candor::Bounded::collect(0..9u8, &candor::Limits::new())?.is_complete());
        /// assert!(!candor::Bounded::collect(0..9u8, &candor::Limits::new().limit(1))?.is_complete());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        is_complete -> bool;

        /// Where to resume: present exactly when more items may exist and the
        /// source can resume; it always points past the items of this result.
        ///
        /// # Example
        ///
        /// ```
        /// use candor::{Bounded, Fingerprint, Limits, Scope};
        /// let scope = Scope::new(Fingerprint::of("digits"));
        /// let page = Bounded::page(0..9u8, &Limits::new().limit(4), &scope, None)?;
        /// assert!(page.next_cursor().is_some());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        next_cursor -> Option<&Cursor>;

        /// What was not searched, counted by reason.
        ///
        /// # Example
        ///
        /// ```
        /// assert!(candor::Bounded::exact(vec![1u8]).skipped().is_empty());
        /// ```
        skipped -> &Skipped;

        /// What the walk skipped so far: this page's skips and those of the
        /// pages before it, as the cursor carried them
        /// ([`Cursor::skipped_before`]). On the last page of a walk, every
        /// input it skipped, each counted once; [`skipped`](Self::skipped)
        /// is this page's alone.
        ///
        /// # Example
        ///
        /// ```
        /// assert!(candor::Bounded::exact(vec![1u8]).skipped_so_far().is_empty());
        /// ```
        skipped_so_far -> crate::SkipTally;

        /// The budget that stopped counting the total, when an exact total
        /// was asked for ([`Limits::count_total`](crate::Limits::count_total))
        /// and the count did not finish: the total is then a lower bound,
        /// and more time or more of that budget gives the exact one. The
        /// [`completeness`](Self::completeness) still names what cut the
        /// items (the limit).
        ///
        /// # Example
        ///
        /// ```
        /// use candor::{Bounded, BudgetKind, Limits};
        /// let limits = Limits::new().limit(10).count_total(true).max_counted(100);
        /// let b = Bounded::collect(0..1000u32, &limits)?;
        /// assert_eq!(b.total(), candor::Total::AtLeast(100));
        /// assert_eq!(b.total_cut_by().map(|c| c.kind()), Some(BudgetKind::Counted));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        total_cut_by -> Option<crate::Budget>;

        /// True when the items are some of the answer's items after
        /// [`start`](Self::start), not the first ones: a source that could
        /// not give a prefix (a cluster that timed out) said so. Such a
        /// result is truncated and offers no cursor. See
        /// [`Disclosure::with_subset`].
        ///
        /// # Example
        ///
        /// ```
        /// assert!(!candor::Bounded::exact(vec![1u8]).is_subset());
        /// ```
        is_subset -> bool;
    }

    /// Everything this result says besides its items.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..9u8, &candor::Limits::new().limit(2))?;
    /// assert!(!b.disclosure().is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disclosure(&self) -> &Disclosure {
        &self.disclosure
    }

    /// Hands over the items together with the disclosure.
    ///
    /// # Example
    ///
    /// ```
    /// let (items, disclosure) = candor::Bounded::exact(vec![1u8, 2]).into_parts();
    /// assert_eq!(items, vec![1, 2]);
    /// assert!(disclosure.is_complete());
    /// ```
    pub fn into_parts(self) -> (Vec<T>, Disclosure) {
        (self.items, self.disclosure)
    }

    /// Transforms every item, keeping the disclosure true of the new items.
    ///
    /// A page fitted to an output-bytes budget
    /// ([`Limits::max_bytes`](crate::Limits::max_bytes)) is measured
    /// again with the new items, and one cut by that budget states its new
    /// size (`used`). If the new items no longer fit the budget, the
    /// response would break the budget it was fitted to (and a cut page
    /// would state one it breaks), so `map` refuses it: transform the
    /// items before they are collected (collect an iterator of the new
    /// items), or give the query a budget that leaves room for the new
    /// shape. The `needed` figure of a page that held no item speaks of
    /// the old items and is dropped.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OverBudget`] when the new items overflow the
    /// output-bytes budget the page was fitted to, and
    /// [`ErrorKind::Serialize`] when a new item fails to serialize (both
    /// only for a page fitted to such a budget).
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..9u32, &candor::Limits::new().limit(2))?.map(|n| n * 10)?;
    /// assert_eq!(b.items(), &[0, 10]);
    /// assert!(b.completeness().is_truncated());
    ///
    /// // A page fitted to 200 bytes cannot grow past them.
    /// let cut = candor::Bounded::collect(0..100u32, &candor::Limits::new().max_bytes(200))?;
    /// let err = cut.map(|n| format!("item number {n:>40}")).unwrap_err();
    /// assert!(matches!(err.kind(), candor::ErrorKind::OverBudget { max_bytes: 200, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn map<U: Serialize>(self, f: impl FnMut(T) -> U) -> Result<Bounded<U>, Error> {
        let Bounded {
            items,
            mut disclosure,
        } = self;
        let items: Vec<U> = items.into_iter().map(f).collect();
        let cut = match disclosure.completeness() {
            Completeness::TruncatedByBudget { budget, clamp }
                if budget.kind() == crate::BudgetKind::OutputBytes =>
            {
                Some((budget.max(), *clamp))
            }
            _ => None,
        };
        // The budget in bytes of JSON, and the units of its figures: as
        // the page was fitted, or, for a page read from the wire, as it
        // states them.
        let (max, enclosing) = match (cut, disclosure.fitted_to()) {
            (_, Some(fitted)) => fitted,
            (Some((max, _)), None) => (usize::try_from(max).unwrap_or(usize::MAX), None),
            (None, None) => return Ok(Bounded { items, disclosure }),
        };
        let mut stated = crate::envelope::Stated::new(max, enclosing);
        if let Some((stated_max, clamp)) = cut {
            // `used` is measured anew, and `needed` no longer applies.
            stated.max = stated_max;
            disclosure.set_completeness(Completeness::TruncatedByBudget {
                budget: crate::Budget::new(crate::BudgetKind::OutputBytes, stated_max, 0),
                clamp,
            });
        }
        let item_bytes = crate::envelope::json_len(&items)?.saturating_sub(2);
        let (size, budget) =
            crate::envelope::fitted_len(&disclosure, items.len(), item_bytes, stated)?;
        if size > max {
            return Err(ErrorKind::OverBudget {
                max_bytes: usize::try_from(stated.max).unwrap_or(usize::MAX),
                size: usize::try_from(stated.of(size)).unwrap_or(usize::MAX),
            }
            .into());
        }
        if let (Some(budget), Some((_, clamp))) = (budget, cut) {
            disclosure.set_completeness(Completeness::TruncatedByBudget { budget, clamp });
        }
        Ok(Bounded { items, disclosure })
    }

    /// The one-line disclosure for channels that carry text beside the
    /// JSON (an MCP tool result): some clients read only the text. `noun`
    /// names the items in the plural, such as `"matches"`.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..5000u32, &candor::Limits::new().limit(1000))?;
    /// assert_eq!(
    ///     b.summary("matches"),
    ///     "Incomplete: matches 1-1000 of at least 1001 (limit 1000). Raise the limit or narrow the query to see the rest."
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn summary(&self, noun: &str) -> String {
        crate::summary::summary_line(&self.disclosure, self.items.len(), noun)
    }

    /// The wire shape as compact JSON; with a byte budget, its length is at
    /// most [`Limits::max_bytes`](crate::Limits::max_bytes).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when an item
    /// fails to serialize.
    ///
    /// # Example
    ///
    /// ```
    /// let json = candor::Bounded::exact(vec![7u8]).to_json()?;
    /// assert_eq!(json, r#"{"complete":true,"start":0,"count":1,"total":{"value":1,"relation":"eq"},"items":[7]}"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json(&self) -> Result<String, Error>
    where
        T: serde::Serialize,
    {
        serde_json::to_string(self).map_err(|source| crate::ErrorKind::Serialize { source }.into())
    }

    /// Writes the wire shape as compact JSON to `writer`, without building
    /// the whole text in memory: disclosure first, items last. The bytes
    /// are those of [`to_json`](Self::to_json).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when an item
    /// fails to serialize or the writer fails.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..9u8, &candor::Limits::new().limit(2))?;
    /// let mut out = Vec::new();
    /// b.write_json(&mut out)?;
    /// assert_eq!(String::from_utf8(out)?, b.to_json()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_json(&self, writer: impl std::io::Write) -> Result<(), Error>
    where
        T: serde::Serialize,
    {
        serde_json::to_writer(writer, self).map_err(|source| ErrorKind::Serialize { source }.into())
    }
}

impl<'a, T> IntoIterator for &'a Bounded<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// The wire shape: the disclosure first, the items last.
impl<T: Serialize> Serialize for Bounded<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Envelope {
            disclosure: self.disclosure(),
            count: self.len(),
            items: self.items(),
        }
        .serialize(serializer)
    }
}

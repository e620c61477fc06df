//! `Bounded<T>`: items that never travel without their disclosure.

use crate::error::{Error, Incomplete};
use crate::{Completeness, Cursor, Skipped, Total};

/// The answer to a query: the items, and whether they are all of it.
///
/// Beside the items it holds the [`Completeness`] (exact, or why it
/// stopped), the [`Total`] (exact or a lower bound), the cursor to resume
/// from, and what was [`Skipped`]. Items leave it only with that
/// disclosure: by borrowing ([`items`](Self::items), [`iter`](Self::iter)),
/// by [`into_parts`](Self::into_parts), or by
/// [`into_exact`](Self::into_exact), which succeeds only for a complete
/// result. There is deliberately no `Deref` to a slice, no by-value
/// `IntoIterator` and no conversion into `Vec<T>`.
///
/// Rules that hold for every `Bounded`, whatever produced it:
///
/// - `Exact` only when no item of the full answer is missing; then
///   `total == Exact(len)`.
/// - A truncated result is a prefix of the full answer, in its order.
/// - `is_complete()` is true only when the result is exact and no input was
///   skipped because of an error.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Completeness, Limits, Total};
///
/// let b: Bounded<u32> = Limits::new().limit(10).collect(0..25u32)?;
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
    completeness: Completeness,
    total: Total,
    next_cursor: Option<Cursor>,
    skipped: Skipped,
}

/// Everything a [`Bounded`] says besides its items: what
/// [`Bounded::into_parts`] hands over with them.
///
/// # Example
///
/// ```
/// let (items, disclosure) = candor::Limits::new().limit(2).collect(0..5u8)?.into_parts();
/// assert_eq!(items, vec![0, 1]);
/// assert!(!disclosure.is_complete());
/// assert_eq!(disclosure.total(), candor::Total::AtLeast(3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "the disclosure says whether the items are all of the answer"]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disclosure {
    completeness: Completeness,
    total: Total,
    next_cursor: Option<Cursor>,
    skipped: Skipped,
}

impl Disclosure {
    /// See [`Bounded::completeness`].
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.completeness().is_exact());
    /// ```
    #[must_use]
    pub fn completeness(&self) -> &Completeness {
        &self.completeness
    }

    /// See [`Bounded::total`].
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert_eq!(d.total(), candor::Total::Exact(1));
    /// ```
    #[must_use]
    pub fn total(&self) -> Total {
        self.total
    }

    /// See [`Bounded::next_cursor`].
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.next_cursor().is_none());
    /// ```
    #[must_use]
    pub fn next_cursor(&self) -> Option<&Cursor> {
        self.next_cursor.as_ref()
    }

    /// See [`Bounded::skipped`].
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.skipped().is_empty());
    /// ```
    #[must_use]
    pub fn skipped(&self) -> &Skipped {
        &self.skipped
    }

    /// See [`Bounded::is_complete`].
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.is_complete());
    /// ```
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.completeness.is_exact() && !self.skipped.has_errors()
    }
}

impl<T> Bounded<T> {
    pub(crate) fn from_parts(
        items: Vec<T>,
        completeness: Completeness,
        total: Total,
        next_cursor: Option<Cursor>,
        skipped: Skipped,
    ) -> Bounded<T> {
        debug_assert!(
            !completeness.is_exact() || total == Total::Exact(items.len() as u64),
            "an exact result's total is its length"
        );
        Bounded {
            items,
            completeness,
            total,
            next_cursor,
            skipped,
        }
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
        Bounded::from_parts(items, Completeness::Exact, total, None, Skipped::new())
    }

    /// The items, in the answer's order.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Limits::new().limit(2).collect(5..9u8)?;
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
    /// let b = candor::Limits::new().limit(2).collect(0..9u8)?;
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
    /// let b = candor::Limits::new().limit(0).collect(0..9u8)?;
    /// assert!(b.is_empty());
    /// assert_eq!(b.total(), candor::Total::AtLeast(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether the items are the whole answer, and if not, what stopped it.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Limits::new().collect(0..9u8)?;
    /// assert!(b.completeness().is_exact());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn completeness(&self) -> &Completeness {
        &self.completeness
    }

    /// How many items the full answer holds: exact, or a lower bound.
    ///
    /// An exact result's total is `Exact(len)`. A result truncated by the
    /// limit or the output budget has at least `len + 1`; the exact figure
    /// when [`Limits::count_total`](crate::Limits::count_total) was asked
    /// for and counting finished within its budget. A result stopped by a
    /// work budget or the deadline has at least `len`.
    ///
    /// On a page resumed from a cursor, the total counts the answer from
    /// the cursor on.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Limits::new().limit(4).collect(0..9u8)?;
    /// assert_eq!(b.total(), candor::Total::AtLeast(5));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn total(&self) -> Total {
        self.total
    }

    /// True when the result is exact and no input was skipped because of an
    /// error. Inputs left out by policy (binary, too large) do not count.
    ///
    /// This is the wire shape's `complete`.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Limits::new().collect(0..9u8)?.is_complete());
    /// assert!(!candor::Limits::new().limit(1).collect(0..9u8)?.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.completeness.is_exact() && !self.skipped.has_errors()
    }

    /// True when items of the full answer are missing.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Limits::new().limit(1).collect(0..9u8)?.is_truncated());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_truncated(&self) -> bool {
        self.completeness.is_truncated()
    }

    /// Where to resume: present exactly when more items may exist and the
    /// source can resume; it always points past the items of this result.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("digits"));
    /// let page = Limits::new().limit(4).page(&scope, None, 0..9u8)?;
    /// assert!(page.next_cursor().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn next_cursor(&self) -> Option<&Cursor> {
        self.next_cursor.as_ref()
    }

    /// What was not searched, counted by reason.
    ///
    /// # Example
    ///
    /// ```
    /// assert!(candor::Bounded::exact(vec![1u8]).skipped().is_empty());
    /// ```
    #[must_use]
    pub fn skipped(&self) -> &Skipped {
        &self.skipped
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
        (
            self.items,
            Disclosure {
                completeness: self.completeness,
                total: self.total,
                next_cursor: self.next_cursor,
                skipped: self.skipped,
            },
        )
    }

    /// The items, only if they are the complete answer.
    ///
    /// # Errors
    ///
    /// An [`Incomplete`] that still holds the whole result when
    /// [`is_complete`](Self::is_complete) is false. It converts into
    /// [`Error`] with `?`.
    ///
    /// # Example
    ///
    /// ```
    /// let all = candor::Limits::new().collect(0..3u8)?.into_exact()?;
    /// assert_eq!(all, vec![0, 1, 2]);
    ///
    /// let cut = candor::Limits::new().limit(1).collect(0..3u8)?;
    /// assert!(cut.into_exact().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_exact(self) -> Result<Vec<T>, Incomplete<T>> {
        if self.is_complete() {
            Ok(self.items)
        } else {
            Err(Incomplete::new(self))
        }
    }

    /// Transforms every item, keeping the disclosure.
    ///
    /// The byte budget was checked against the items before the change;
    /// check it again if the new items serialize larger.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Limits::new().limit(2).collect(0..9u32)?.map(|n| n * 10);
    /// assert_eq!(b.items(), &[0, 10]);
    /// assert!(b.is_truncated());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Bounded<U> {
        Bounded {
            items: self.items.into_iter().map(f).collect(),
            completeness: self.completeness,
            total: self.total,
            next_cursor: self.next_cursor,
            skipped: self.skipped,
        }
    }

    /// The one-line disclosure for channels that carry text beside the
    /// JSON (an MCP tool result): some clients read only the text. `noun`
    /// names the items in the plural, such as `"matches"`.
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Limits::new().limit(1000).collect(0..5000u32)?;
    /// assert_eq!(
    ///     b.disclosure("matches"),
    ///     "Incomplete: 1000 of at least 1001 matches (limit 1000). Raise the limit or narrow the query to see the rest."
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn disclosure(&self, noun: &str) -> String {
        crate::wire::disclosure_line(self, noun)
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
    /// assert_eq!(json, r#"{"complete":true,"count":1,"total":{"value":1,"relation":"eq"},"items":[7]}"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json(&self) -> Result<String, Error>
    where
        T: serde::Serialize,
    {
        serde_json::to_string(self).map_err(|source| crate::ErrorKind::Serialize { source }.into())
    }

    pub(crate) fn parts_ref(&self) -> (&Completeness, Total, Option<&Cursor>, &Skipped) {
        (
            &self.completeness,
            self.total,
            self.next_cursor.as_ref(),
            &self.skipped,
        )
    }
}

impl<'a, T> IntoIterator for &'a Bounded<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// The end of a streamed search: how many items were handed on, and the
/// same disclosure the collected form would carry.
///
/// # Example
///
/// ```
/// use candor::{Corpus, Documents, Limits, Query};
/// let docs = Documents::new().with("a.txt", "fish\nfish\nfish\n");
/// let mut lines = Vec::new();
/// let end = docs.search_each(&Query::literal("fish"), &Limits::new().limit(2), None, &mut |m| {
///     lines.push(m.line_number)
/// })?;
/// assert_eq!(lines, vec![1, 2]);
/// assert_eq!(end.count(), 2);
/// assert!(!end.is_complete());
/// assert!(end.next_cursor().is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a stream may have been cut short; check `is_complete()`"]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    count: usize,
    completeness: Completeness,
    total: Total,
    next_cursor: Option<Cursor>,
    skipped: Skipped,
}

impl Streamed {
    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    pub(crate) fn new(
        count: usize,
        completeness: Completeness,
        total: Total,
        next_cursor: Option<Cursor>,
        skipped: Skipped,
    ) -> Streamed {
        Streamed {
            count,
            completeness,
            total,
            next_cursor,
            skipped,
        }
    }

    /// How many items were handed on.
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{Corpus, Documents, Limits, Query};
    /// let end = Documents::new().search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// assert_eq!(end.count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// See [`Bounded::completeness`].
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{Corpus, Documents, Limits, Query};
    /// let end = Documents::new().search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// assert!(end.completeness().is_exact());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn completeness(&self) -> &Completeness {
        &self.completeness
    }

    /// See [`Bounded::total`].
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{Corpus, Documents, Limits, Query};
    /// let end = Documents::new().search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// assert_eq!(end.total(), candor::Total::Exact(0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn total(&self) -> Total {
        self.total
    }

    /// See [`Bounded::next_cursor`].
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{Corpus, Documents, Limits, Query};
    /// let end = Documents::new().search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// assert!(end.next_cursor().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn next_cursor(&self) -> Option<&Cursor> {
        self.next_cursor.as_ref()
    }

    /// See [`Bounded::skipped`].
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{Corpus, Documents, Limits, Query};
    /// let end = Documents::new().search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// assert!(end.skipped().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn skipped(&self) -> &Skipped {
        &self.skipped
    }

    /// See [`Bounded::is_complete`].
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{Corpus, Documents, Limits, Query};
    /// let end = Documents::new().search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// assert!(end.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.completeness.is_exact() && !self.skipped.has_errors()
    }

    /// See [`Bounded::disclosure`].
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{Corpus, Documents, Limits, Query};
    /// let end = Documents::new().search_each(&Query::literal("x"), &Limits::new(), None, &mut |_| {})?;
    /// assert_eq!(end.disclosure("matches"), "Complete: 0 matches.");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn disclosure(&self, noun: &str) -> String {
        crate::wire::disclosure_of(
            self.count,
            &self.completeness,
            self.total,
            self.next_cursor.as_ref(),
            &self.skipped,
            noun,
        )
    }
}

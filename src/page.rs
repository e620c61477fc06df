//! Any source under `Limits`: `collect`, `page` and `page_by_key`, and their
//! fallible `try_` forms for sources whose rows are `Result`s (a database).
//!
//! A [`Collector`] makes the stop decisions; this module feeds it, checks
//! what the source promised (key order, the number of rows asked for) and
//! turns a source's error into a [`TryError`] that keeps what was read.

use std::convert::Infallible;
use std::fmt;

use serde::Serialize;

use crate::collect::Collector;
use crate::count::{Count, CountStop};
use crate::error::{Error, Incomplete};
use crate::{Bounded, Cursor, CursorKey, Limits, Scope, Total};

/// What [`Limits::page_by_key`] asks of its source: the key to resume
/// after, and how many items to yield.
///
/// `fetch` is the most items the query will pull: `limit + 1` (the extra
/// one proves truncation), or more when an exact total is counted
/// ([`Limits::count_total`]), or unbounded. A source must yield every item
/// after the key up to `fetch`, so the obvious SQL is the correct one:
/// `WHERE key > ?after ORDER BY key LIMIT ?fetch`, with
/// [`sql_limit`](Self::sql_limit) as the bound.
///
/// # Example
///
/// ```
/// use candor::{Fingerprint, KeyRequest, Limits, Scope};
/// let rows: Vec<u32> = (1..=50).collect();
/// let scope = Scope::new(Fingerprint::of("rows"));
/// let mut asked = Vec::new();
/// let source = |request: KeyRequest<u32>| {
///     asked.push(request.fetch());
///     let after = request.after().copied().unwrap_or(0);
///     let fetch = request.fetch().unwrap_or(usize::MAX);
///     rows.iter().copied().filter(move |r| *r > after).take(fetch).collect::<Vec<_>>()
/// };
/// let page = Limits::new().limit(10).page_by_key(&scope, None, source, |r: &u32| *r)?;
/// assert_eq!(page.len(), 10);
/// assert!(page.is_truncated());
/// assert_eq!(asked, vec![Some(11)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRequest<K> {
    after: Option<K>,
    fetch: Option<usize>,
}

impl<K> KeyRequest<K> {
    /// The key to resume after: the source yields only items whose key is
    /// greater. `None` on a first page.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, KeyRequest, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let source = |r: KeyRequest<u64>| {
    ///     let after = r.after().copied();
    ///     (0..9u64).filter(move |n| after.is_none_or(|a| *n > a))
    /// };
    /// let first = Limits::new().limit(4).page_by_key(&scope, None, source, |n: &u64| *n)?;
    /// let second = Limits::new().limit(4).page_by_key(&scope, first.next_cursor(), source, |n: &u64| *n)?;
    /// assert_eq!(second.items(), &[4, 5, 6, 7]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn after(&self) -> Option<&K> {
        self.after.as_ref()
    }

    /// The key to resume after, by value.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, KeyRequest, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let words = ["ant", "bee", "cat"];
    /// let source = |r: KeyRequest<String>| {
    ///     let after = r.into_after();
    ///     words.iter().map(|w| w.to_string()).filter(move |w| after.as_ref().is_none_or(|a| w > a))
    /// };
    /// let page = Limits::new().limit(2).page_by_key(&scope, None, source, |w: &String| w.clone())?;
    /// assert_eq!(page.items(), &["ant", "bee"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn into_after(self) -> Option<K> {
        self.after
    }

    /// How many items the source must yield if it has them: `None` when
    /// the query may pull them all (no limit, or an exact total counted
    /// without a count budget).
    ///
    /// It is `limit + 1` without counting, and the larger of `limit + 1`
    /// and the count budget ([`Limits::max_counted`]), plus one, when
    /// counting.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, KeyRequest, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let fetch_of = |limits: Limits| {
    ///     let mut fetch = None;
    ///     let _ = limits.page_by_key(&scope, None, |r: KeyRequest<u64>| {
    ///         fetch = Some(r.fetch());
    ///         Vec::<u64>::new()
    ///     }, |n: &u64| *n);
    ///     fetch.flatten()
    /// };
    /// assert_eq!(fetch_of(Limits::new().limit(10)), Some(11));
    /// assert_eq!(fetch_of(Limits::new().limit(10).count_total(true)), None);
    /// assert_eq!(fetch_of(Limits::new().limit(10).count_total(true).max_counted(500)), Some(501));
    /// assert_eq!(fetch_of(Limits::new()), None);
    /// ```
    #[must_use]
    pub fn fetch(&self) -> Option<usize> {
        self.fetch
    }

    /// [`fetch`](Self::fetch) as an SQL `LIMIT` value: `-1`, which SQLite
    /// reads as no limit, when unbounded.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, KeyRequest, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let mut sql_limit = 0;
    /// let _ = Limits::new().limit(100).page_by_key(&scope, None, |r: KeyRequest<u64>| {
    ///     sql_limit = r.sql_limit();
    ///     Vec::<u64>::new()
    /// }, |n: &u64| *n)?;
    /// assert_eq!(sql_limit, 101);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn sql_limit(&self) -> i64 {
        self.fetch
            .map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX))
    }
}

/// The error of the `try_` queries ([`Limits::try_collect`],
/// [`Limits::try_page`], [`Limits::try_page_by_key`]): either the query
/// failed as its infallible form would, or the source failed.
///
/// A source's error ends the query: a result is never reported as exact,
/// nor its total as known, when the source did not reach its end.
///
/// # Example
///
/// ```
/// use candor::{Limits, TryError};
/// let rows = vec![Ok(1u32), Ok(2), Err("connection reset"), Ok(4)];
/// match Limits::new().limit(10).try_collect(rows) {
///     Err(TryError::Source(failed)) => {
///         assert_eq!(failed.items(), &[1, 2]);
///         assert_eq!(*failed.error(), "connection reset");
///     }
///     other => panic!("expected a source error, got {other:?}"),
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum TryError<T, E> {
    /// The query failed: a cursor was refused, the byte budget is too
    /// small, strict mode found the result incomplete, or the source broke
    /// its promises (keys out of order, fewer items than asked for).
    Query(Error),
    /// The source yielded an error.
    Source(Box<Interrupted<T, E>>),
    /// Strict mode was asked for and the result is not complete; it holds
    /// the result. (The infallible forms report this as
    /// [`ErrorKind::Incomplete`](crate::ErrorKind::Incomplete); this form
    /// needs no `'static`, `Send` or `Sync` items.)
    Incomplete(Incomplete<T>),
}

impl<T, E> TryError<T, E> {
    /// The query's error, when it is not the source's.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{ErrorKind, Limits};
    /// let err = Limits::new().max_bytes(5).try_collect([Ok::<u8, String>(1)]).unwrap_err();
    /// assert!(matches!(err.query().map(|e| e.kind()), Some(ErrorKind::BudgetTooSmall { .. })));
    /// ```
    #[must_use]
    pub fn query(&self) -> Option<&Error> {
        match self {
            TryError::Query(e) => Some(e),
            TryError::Source(_) | TryError::Incomplete(_) => None,
        }
    }

    /// What the source failed with, and what was read before.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Limits::new().try_collect([Ok(1u8), Err(7u8)]).unwrap_err();
    /// assert_eq!(err.interrupted().map(|i| *i.error()), Some(7));
    /// ```
    #[must_use]
    pub fn interrupted(&self) -> Option<&Interrupted<T, E>> {
        match self {
            TryError::Query(_) | TryError::Incomplete(_) => None,
            TryError::Source(i) => Some(i),
        }
    }
}

impl<T, E> TryError<T, E> {
    /// A source's error before any item was read: for a source that fails
    /// to start (a statement that does not prepare).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::TryError;
    /// let err: TryError<u8, &str> = TryError::from_source("no such table: refs");
    /// assert_eq!(err.to_string(), "the source failed after 0 items: no such table: refs");
    /// ```
    pub fn from_source(error: E) -> Self {
        TryError::Source(Box::new(Interrupted {
            items: Vec::new(),
            next_cursor: None,
            error,
        }))
    }
}

impl<T, E> From<Error> for TryError<T, E> {
    fn from(error: Error) -> Self {
        TryError::Query(error)
    }
}

impl<T, E: fmt::Display> fmt::Display for TryError<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryError::Query(e) => fmt::Display::fmt(e, f),
            TryError::Source(i) => fmt::Display::fmt(i, f),
            TryError::Incomplete(i) => write!(
                f,
                "incomplete result in strict mode: {} items of {} found",
                i.bounded().len(),
                i.bounded().total()
            ),
        }
    }
}

impl<T: fmt::Debug, E: std::error::Error + 'static> std::error::Error for TryError<T, E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TryError::Query(e) => std::error::Error::source(e),
            TryError::Source(i) => Some(&i.error),
            TryError::Incomplete(_) => None,
        }
    }
}

/// A query that its source's error ended: the error, the items read
/// before it (those the page would have held), and a cursor to resume
/// after them when the query can be resumed.
///
/// # Example
///
/// ```
/// use candor::{Fingerprint, Limits, Scope, TryError};
/// let scope = Scope::new(Fingerprint::of("rows"));
/// let rows = || (0..10u32).map(|n| if n == 3 { Err("disk") } else { Ok(n) });
/// let Err(TryError::Source(failed)) = Limits::new().limit(5).try_page(&scope, None, rows()) else {
///     panic!("the source fails at row 3");
/// };
/// assert_eq!(failed.items(), &[0, 1, 2]);
/// // Resuming starts after the rows read.
/// let cursor = failed.next_cursor().expect("rows were read");
/// let Err(TryError::Source(again)) = Limits::new().try_page(&scope, Some(cursor), rows()) else {
///     panic!("row 3 still fails");
/// };
/// assert!(again.items().is_empty());
/// ```
#[derive(Debug)]
pub struct Interrupted<T, E> {
    items: Vec<T>,
    next_cursor: Option<Cursor>,
    error: E,
}

impl<T, E> Interrupted<T, E> {
    /// The items read before the error, in the answer's order: a prefix
    /// of what the page would have held.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Limits::new().try_collect([Ok(1u8), Ok(2), Err(())]).unwrap_err();
    /// assert_eq!(err.interrupted().unwrap().items(), &[1, 2]);
    /// ```
    #[must_use]
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Where to resume after [`items`](Self::items): `None` for
    /// [`Limits::try_collect`] and when nothing was read.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Limits::new().try_collect([Ok(1u8), Err(())]).unwrap_err();
    /// assert!(err.interrupted().unwrap().next_cursor().is_none());
    /// ```
    #[must_use]
    pub fn next_cursor(&self) -> Option<&Cursor> {
        self.next_cursor.as_ref()
    }

    /// The source's error.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Limits::new().try_collect([Err::<u8, _>("locked")]).unwrap_err();
    /// assert_eq!(err.interrupted().map(|i| *i.error()), Some("locked"));
    /// ```
    #[must_use]
    pub fn error(&self) -> &E {
        &self.error
    }

    /// The items read, the cursor after them, and the source's error.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::TryError;
    /// let Err(TryError::Source(failed)) = candor::Limits::new().try_collect([Ok(1u8), Err(2u8)]) else {
    ///     panic!("the source fails");
    /// };
    /// let (items, cursor, error) = failed.into_parts();
    /// assert_eq!((items, cursor, error), (vec![1], None, 2));
    /// ```
    pub fn into_parts(self) -> (Vec<T>, Option<Cursor>, E) {
        (self.items, self.next_cursor, self.error)
    }
}

impl<T, E: fmt::Display> fmt::Display for Interrupted<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the source failed after {} items: {}",
            self.items.len(),
            self.error
        )
    }
}

impl<T: fmt::Debug, E: std::error::Error + 'static> std::error::Error for Interrupted<T, E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The count of a page that reads on for its total instead.
type NoCount<K, E> = fn(Option<&K>) -> Result<u64, E>;

/// Why a source stopped being read before its end.
enum Fault<E> {
    Source(E),
    /// An item's key was not greater than the one before.
    Disorder,
}

/// A source of `Result`s seen as a source of items: it ends at the first
/// error or broken promise, and remembers which.
struct Checked<I, C, E> {
    iter: I,
    check: C,
    pulled: usize,
    ended: bool,
    fault: Option<Fault<E>>,
    /// The inner iterator's size hint is the items' (it yields no errors).
    exact_hint: bool,
}

impl<I, C, E> Checked<I, C, E> {
    fn new(iter: I, check: C) -> Self {
        Checked {
            iter,
            check,
            pulled: 0,
            ended: false,
            fault: None,
            exact_hint: false,
        }
    }

    fn infallible(iter: I, check: C) -> Self {
        Checked {
            exact_hint: true,
            ..Checked::new(iter, check)
        }
    }
}

impl<T, E, I, C> Iterator for Checked<I, C, E>
where
    I: Iterator<Item = Result<T, E>>,
    C: FnMut(&T) -> bool,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.ended || self.fault.is_some() {
            return None;
        }
        match self.iter.next() {
            None => {
                self.ended = true;
                None
            }
            Some(Err(e)) => {
                self.fault = Some(Fault::Source(e));
                None
            }
            Some(Ok(item)) if (self.check)(&item) => {
                self.pulled += 1;
                Some(item)
            }
            Some(Ok(_)) => {
                self.fault = Some(Fault::Disorder);
                None
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.ended || self.fault.is_some() {
            return (0, Some(0));
        }
        let (low, high) = self.iter.size_hint();
        (if self.exact_hint { low } else { 0 }, high)
    }
}

/// Drives a collector over an iterator: offers items until it stops, then,
/// if asked, counts on for an exact total.
fn drive<T: Serialize>(
    collector: &mut Collector<T>,
    iter: &mut impl Iterator<Item = T>,
    limits: &Limits,
) -> Option<Total> {
    // A cancel token is checked where the deadline is.
    let has_deadline = limits.deadline.is_some() || limits.cancel.is_some();
    if !has_deadline && collector.take_bulk(iter) {
        // Done without per-item checks: nothing but the limit applies.
    } else {
        drive_each(collector, iter, has_deadline);
    }
    let mut count = Count::after(limits, collector, collector.seen())?;
    loop {
        match count.stop(collector) {
            // The count budget is spent; one more pull tells whether the
            // count happens to be complete.
            Some(CountStop::Budget) => {
                return Some(match iter.next() {
                    None => count.exact(),
                    Some(_) => count.at_least(),
                });
            }
            Some(CountStop::Deadline) => return Some(count.at_least()),
            None => {}
        }
        match iter.next() {
            Some(_) => count.add(1),
            None => return Some(count.exact()),
        }
    }
}

fn drive_each<T: Serialize>(
    collector: &mut Collector<T>,
    iter: &mut impl Iterator<Item = T>,
    has_deadline: bool,
) {
    for item in iter.by_ref() {
        if collector.offer(item).is_break() {
            break;
        }
        if has_deadline && collector.check_deadline().is_break() {
            break;
        }
    }
}

/// The key of a `page` cursor: how many items of the source came before
/// it. Its encoding starts with a mark no canonical varint starts with, so
/// a `page` cursor and a `page_by_key` cursor under the same scope (an
/// integer key, say) are never taken for each other: either way the
/// cursor is refused as malformed instead of resuming at the wrong place.
struct PageOffset(u64);

/// `0x80 0x00` would be a zero written in two bytes: no key of candor's
/// own encodes so.
const PAGE_MARK: [u8; 2] = [0x80, 0x00];

impl CursorKey for PageOffset {
    fn encode_key(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&PAGE_MARK);
        self.0.encode_key(out);
    }

    fn decode_key(input: &mut &[u8]) -> Option<Self> {
        *input = input.strip_prefix(&PAGE_MARK[..])?;
        u64::decode_key(input).map(PageOffset)
    }
}

/// The most items a query under `limits` pulls from its source.
fn fetch_for(limits: &Limits) -> Option<usize> {
    let probe = limits.applied_limit().limit()?.checked_add(1)?;
    if !limits.count_total {
        return Some(probe);
    }
    let max_count = usize::try_from(limits.max_counted?).ok()?;
    // Counting starts at the probe and, once the budget is spent, pulls
    // one more to tell whether the count is complete.
    probe.max(max_count).checked_add(1)
}

fn disorder() -> Error {
    Error::invalid_argument(
        "source",
        "items are not in strictly increasing key order after the cursor; pages would lose or repeat items",
    )
}

/// The error for a source's fault, keeping the items the collector holds.
fn interrupted<T: Serialize, E>(
    collector: Collector<T>,
    fault: Fault<E>,
    cursor_for: impl Fn(&[T]) -> Option<Cursor>,
) -> TryError<T, E> {
    match fault {
        Fault::Disorder => TryError::Query(disorder()),
        Fault::Source(error) => {
            // Fitting to the byte budget keeps the items a page could
            // have held; a budget too small for any leaves none.
            let items = collector
                .finish_parts(|_| None, None)
                .map(|f| f.items)
                .unwrap_or_default();
            TryError::Source(Box::new(Interrupted {
                next_cursor: if items.is_empty() {
                    None
                } else {
                    cursor_for(&items)
                },
                items,
                error,
            }))
        }
    }
}

/// Builds the result; in strict mode an incomplete one is an error that
/// holds it, with no bound on `T`.
fn finish<T: Serialize, E>(
    collector: Collector<T>,
    cursor_for: impl Fn(&[T]) -> Option<Cursor>,
    counted: Option<Total>,
    strict: bool,
) -> Result<Bounded<T>, TryError<T, E>> {
    let f = collector.finish_parts(cursor_for, counted)?;
    let bounded = Bounded::assemble(f.items, f.disclosure);
    if strict && !bounded.is_complete() {
        return Err(TryError::Incomplete(Incomplete::new(bounded)));
    }
    Ok(bounded)
}

fn into_query_error<T: Send + Sync + 'static>(error: TryError<T, Infallible>) -> Error {
    match error {
        TryError::Query(e) => e,
        TryError::Incomplete(incomplete) => Error::incomplete(incomplete.into_bounded()),
        TryError::Source(i) => match i.error {},
    }
}

impl Limits {
    /// Collects `items` under these limits into a [`Bounded`].
    ///
    /// Applies the item limit (with the `limit + 1` probe, so an answer of
    /// exactly `limit` items is exact), the clamp to the ceiling, the
    /// output-bytes budget on the serialized response, the deadline, and,
    /// if asked, counts on past the limit for an exact total. The iterator
    /// is pulled lazily: at most `limit + 1` items (plus what counting
    /// pulls), and at least one item before the deadline can stop it.
    ///
    /// Can return `Exact`, `TruncatedByLimit`, or `TruncatedByBudget` with
    /// [`BudgetKind::OutputBytes`](crate::BudgetKind::OutputBytes) or
    /// [`BudgetKind::Deadline`](crate::BudgetKind::Deadline). The result
    /// has no cursor: use [`page`](Self::page) for a resumable answer.
    /// For items that may fail (rows of a database), see
    /// [`try_collect`](Self::try_collect).
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall)
    ///   when `max_bytes` cannot hold even a response with no items;
    /// - [`ErrorKind::Serialize`](crate::ErrorKind::Serialize) when an item
    ///   fails to serialize;
    /// - [`ErrorKind::Incomplete`](crate::ErrorKind::Incomplete) in
    ///   [strict](Self::strict) mode, holding the partial result.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Completeness, Limits, Total};
    /// let limits = Limits::new().limit(10);
    /// let b: Bounded<u32> = limits.collect(0..25u32)?;
    /// assert!(!b.is_complete());
    /// assert!(matches!(b.completeness(), Completeness::TruncatedByLimit { .. }));
    /// assert_eq!(b.total(), Total::AtLeast(11));
    /// let json = serde_json::to_string(&b)?;
    /// assert!(json.starts_with(r#"{"complete":false"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn collect<I>(&self, items: I) -> Result<Bounded<I::Item>, Error>
    where
        I: IntoIterator,
        I::Item: Serialize + Send + Sync + 'static,
    {
        let mut collector = Collector::new(self);
        let mut iter = items.into_iter();
        let counted = drive(&mut collector, &mut iter, self);
        collector.finish(|_| None, counted, self.strict)
    }

    /// Like [`collect`](Self::collect), for a source whose items may fail:
    /// the first `Err` ends the query.
    ///
    /// A source's error is never read as the end of the answer: the query
    /// fails with [`TryError::Source`], which holds the error and the items
    /// read before it, even when it comes while counting past the limit.
    ///
    /// # Errors
    ///
    /// [`TryError::Source`] when the source yields an error;
    /// [`TryError::Query`] with the errors of [`collect`](Self::collect).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Limits, Total};
    /// let rows = (0..25u32).map(Ok::<u32, std::io::Error>);
    /// let b = Limits::new().limit(10).count_total(true).try_collect(rows)?;
    /// assert_eq!(b.total(), Total::Exact(25));
    ///
    /// let failing = (0..25u32).map(|n| if n < 20 { Ok(n) } else { Err("timeout") });
    /// let err = Limits::new().limit(10).count_total(true).try_collect(failing).unwrap_err();
    /// assert_eq!(err.interrupted().map(|i| i.items().len()), Some(10));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_collect<I, T, E>(&self, items: I) -> Result<Bounded<T>, TryError<T, E>>
    where
        I: IntoIterator<Item = Result<T, E>>,
        T: Serialize,
    {
        let mut collector = Collector::new(self);
        let mut iter = Checked::new(items.into_iter(), |_: &T| true);
        let counted = drive(&mut collector, &mut iter, self);
        if let Some(fault) = iter.fault {
            return Err(interrupted(collector, fault, |_| None));
        }
        finish(collector, |_| None, counted, self.strict)
    }

    /// Collects one page of an ordered source, resuming at `cursor`.
    ///
    /// `items` must yield the full answer, in the same order on every call
    /// (the page starts by skipping what earlier pages returned). The
    /// cursor is bound to `scope`: following `next_cursor` page after page
    /// yields every item exactly once.
    ///
    /// For sources that can seek, [`page_by_key`](Self::page_by_key)
    /// avoids re-reading the skipped items.
    ///
    /// # Errors
    ///
    /// Those of [`collect`](Self::collect); and for the cursor,
    /// [`ErrorKind::ForeignCursor`](crate::ErrorKind::ForeignCursor)
    /// (another query),
    /// [`ErrorKind::StaleCursor`](crate::ErrorKind::StaleCursor) (another
    /// corpus generation),
    /// [`ErrorKind::MalformedCursor`](crate::ErrorKind::MalformedCursor)
    /// (not a page cursor), and
    /// [`ErrorKind::CursorOutOfRange`](crate::ErrorKind::CursorOutOfRange)
    /// when it points past the end of the source.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("squares below 1000"));
    /// let source = || (0..32u32).map(|n| n * n);
    /// let limits = Limits::new().limit(10);
    ///
    /// let mut all = Vec::new();
    /// let mut cursor = None;
    /// loop {
    ///     let page = limits.page(&scope, cursor.as_ref(), source())?;
    ///     all.extend_from_slice(page.items());
    ///     match page.next_cursor() {
    ///         Some(next) => cursor = Some(next.clone()),
    ///         None => break,
    ///     }
    /// }
    /// assert_eq!(all, source().collect::<Vec<_>>());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn page<I>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        items: I,
    ) -> Result<Bounded<I::Item>, Error>
    where
        I: IntoIterator,
        I::Item: Serialize + Send + Sync + 'static,
    {
        let iter = items.into_iter().map(Ok::<_, Infallible>);
        self.page_from(scope, cursor, Checked::infallible(iter, |_: &I::Item| true))
            .map_err(into_query_error)
    }

    /// Like [`page`](Self::page), for a source whose items may fail: the
    /// first `Err` ends the query with [`TryError::Source`], which holds
    /// the items read and a cursor to resume after them.
    ///
    /// # Errors
    ///
    /// [`TryError::Source`] when the source yields an error (also while
    /// skipping to the cursor); [`TryError::Query`] with the errors of
    /// [`page`](Self::page).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("rows"));
    /// let rows = || (0..30u32).map(Ok::<u32, std::io::Error>);
    /// let first = Limits::new().limit(20).try_page(&scope, None, rows())?;
    /// let second = Limits::new().limit(20).try_page(&scope, first.next_cursor(), rows())?;
    /// assert_eq!(second.items(), (20..30).collect::<Vec<_>>().as_slice());
    /// assert!(second.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_page<I, T, E>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        items: I,
    ) -> Result<Bounded<T>, TryError<T, E>>
    where
        I: IntoIterator<Item = Result<T, E>>,
        T: Serialize,
    {
        self.page_from(scope, cursor, Checked::new(items.into_iter(), |_: &T| true))
    }

    /// `page` over a source already checked for faults.
    fn page_from<T, E, I, C>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        mut iter: Checked<I, C, E>,
    ) -> Result<Bounded<T>, TryError<T, E>>
    where
        I: Iterator<Item = Result<T, E>>,
        C: FnMut(&T) -> bool,
        T: Serialize,
    {
        let offset = match cursor {
            Some(c) => scope.resume::<PageOffset>(c)?.0,
            None => 0,
        };
        let mut skipped_over = 0u64;
        while skipped_over < offset {
            if iter.next().is_none() {
                if let Some(Fault::Source(error)) = iter.fault {
                    return Err(TryError::Source(Box::new(Interrupted {
                        items: Vec::new(),
                        next_cursor: None,
                        error,
                    })));
                }
                return Err(Error::cursor_out_of_range(format!(
                    "it resumes after item {offset}, but the source holds only {skipped_over} items"
                ))
                .into());
            }
            skipped_over += 1;
        }
        let cursor_for = |kept: &[T]| {
            (!kept.is_empty()).then(|| scope.cursor(&PageOffset(offset + kept.len() as u64)))
        };
        let mut collector = Collector::new(self);
        collector.set_start(offset);
        let counted = drive(&mut collector, &mut iter, self);
        if let Some(fault) = iter.fault {
            return Err(interrupted(collector, fault, cursor_for));
        }
        finish(collector, cursor_for, counted, self.strict)
    }

    /// Collects one page of a source that can resume after a key.
    ///
    /// `source` is called with a [`KeyRequest`]: the key to resume after
    /// (`None` on a first page) and how many items to yield
    /// ([`KeyRequest::fetch`]: `limit + 1`, more when counting a total,
    /// or unbounded). It must yield the items whose key is greater, in
    /// increasing key order, up to that many; `key` gives an item's key,
    /// unique within the answer. The next cursor holds the key of the last
    /// item returned, so the source does not re-read earlier pages. In SQL:
    /// `WHERE key > ?1 ORDER BY key LIMIT ?2` with
    /// [`KeyRequest::sql_limit`].
    ///
    /// When the source ends before yielding `fetch` items it claims that
    /// the answer ends there; the claim is checked by calling it once more,
    /// for one item after the last key (so the last page of an answer
    /// costs two calls, an empty answer one). A source that yields nothing
    /// cannot be caught this way: under a limit of 0, `LIMIT limit` looks
    /// like an empty answer. A source that caps its own answer
    /// (`LIMIT limit`, which hides the item that proves truncation, or
    /// `LIMIT limit + 1` while an exact total is counted) is then refused
    /// with an error instead of reporting a wrong, exact-looking total.
    ///
    /// # Errors
    ///
    /// Those of [`page`](Self::page), except that a key cursor cannot
    /// point out of range; and
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// named `source` when the source yields keys out of order, repeated,
    /// or not after the cursor (which would lose or repeat items across
    /// pages), or ends early as above.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, KeyRequest, Limits, Scope};
    /// let callers = vec!["main", "parse", "render", "run", "write"];
    /// let scope = Scope::new(Fingerprint::of("callers of flush"));
    /// let source = |request: KeyRequest<String>| {
    ///     let fetch = request.fetch().unwrap_or(usize::MAX);
    ///     let after = request.into_after();
    ///     callers
    ///         .clone()
    ///         .into_iter()
    ///         .filter(move |c| after.as_deref().is_none_or(|a| *c > a))
    ///         .take(fetch)
    ///         .map(String::from)
    /// };
    /// let limits = Limits::new().limit(2);
    /// let first = limits.page_by_key(&scope, None, source, |c: &String| c.clone())?;
    /// assert_eq!(first.items(), &["main", "parse"]);
    /// let second = limits.page_by_key(&scope, first.next_cursor(), source, |c: &String| c.clone())?;
    /// assert_eq!(second.items(), &["render", "run"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn page_by_key<I, K, S, F>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        mut source: S,
        key: F,
    ) -> Result<Bounded<I::Item>, Error>
    where
        S: FnMut(KeyRequest<K>) -> I,
        I: IntoIterator,
        I::Item: Serialize + Send + Sync + 'static,
        K: CursorKey + Ord + Clone,
        F: Fn(&I::Item) -> K,
    {
        self.try_page_by_key(
            scope,
            cursor,
            |request| source(request).into_iter().map(Ok::<_, Infallible>),
            key,
        )
        .map_err(into_query_error)
    }

    /// Like [`page_by_key`](Self::page_by_key), for a source whose items
    /// may fail (rows of a database): the first `Err` ends the query with
    /// [`TryError::Source`], which holds the items read and a cursor to
    /// resume after them.
    ///
    /// # Errors
    ///
    /// [`TryError::Source`] when the source yields an error;
    /// [`TryError::Query`] with the errors of
    /// [`page_by_key`](Self::page_by_key).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, KeyRequest, Limits, Scope, Total};
    /// let table: Vec<u64> = (1..=8963).collect();
    /// let scope = Scope::new(Fingerprint::of("references of Typography"));
    /// // What `SELECT id FROM refs WHERE id > ?1 ORDER BY id LIMIT ?2` does.
    /// let query = |request: KeyRequest<u64>| {
    ///     let after = request.after().copied().unwrap_or(0);
    ///     let fetch = request.fetch().unwrap_or(usize::MAX);
    ///     table.iter().copied().filter(move |id| *id > after).take(fetch).map(Ok::<u64, std::io::Error>)
    /// };
    /// let limits = Limits::new().limit(1000).count_total(true);
    /// let page = limits.try_page_by_key(&scope, None, query, |id: &u64| *id)?;
    /// assert_eq!(page.len(), 1000);
    /// assert_eq!(page.total(), Total::Exact(8963));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_page_by_key<I, T, E, K, S, F>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        source: S,
        key: F,
    ) -> Result<Bounded<T>, TryError<T, E>>
    where
        S: FnMut(KeyRequest<K>) -> I,
        I: IntoIterator<Item = Result<T, E>>,
        T: Serialize,
        K: CursorKey + Ord + Clone,
        F: Fn(&T) -> K,
    {
        self.page_by_key_inner(scope, cursor, source, key, None::<NoCount<K, E>>)
    }

    /// Like [`try_page_by_key`](Self::try_page_by_key), with the total
    /// from `count` instead of from reading on: `count` gets the key the
    /// page resumes after and returns how many items follow it (in SQL,
    /// `SELECT COUNT(*) ... WHERE key > ?1`). It is called only when the
    /// page is truncated (an exact page knows its total), and its answer
    /// is reported as an exact total; a count below what the page saw is
    /// not believed, and the total becomes a lower bound.
    ///
    /// Use it when the source can count cheaply; the source is then asked
    /// for `limit + 1` items only ([`Limits::count_total`] is not needed).
    ///
    /// # Errors
    ///
    /// Those of [`try_page_by_key`](Self::try_page_by_key);
    /// [`TryError::Source`] also when `count` fails.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, KeyRequest, Limits, Scope, Total};
    /// let table: Vec<u64> = (1..=8963).collect();
    /// let scope = Scope::new(Fingerprint::of("references of Typography"));
    /// let rows = |request: KeyRequest<u64>| {
    ///     let after = request.after().copied().unwrap_or(0);
    ///     let fetch = request.fetch().unwrap_or(usize::MAX);
    ///     table.iter().copied().filter(move |id| *id > after).take(fetch).map(Ok::<u64, std::io::Error>)
    /// };
    /// let count = |after: Option<&u64>| Ok(table.iter().filter(|id| Some(*id) > after).count() as u64);
    /// let page = Limits::new().limit(1000).try_page_by_key_counted(&scope, None, rows, |id: &u64| *id, count)?;
    /// assert_eq!(page.total(), Total::Exact(8963));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_page_by_key_counted<I, T, E, K, S, F, C>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        source: S,
        key: F,
        count: C,
    ) -> Result<Bounded<T>, TryError<T, E>>
    where
        S: FnMut(KeyRequest<K>) -> I,
        I: IntoIterator<Item = Result<T, E>>,
        T: Serialize,
        K: CursorKey + Ord + Clone,
        F: Fn(&T) -> K,
        C: FnOnce(Option<&K>) -> Result<u64, E>,
    {
        self.page_by_key_inner(scope, cursor, source, key, Some(count))
    }

    fn page_by_key_inner<I, T, E, K, S, F, C>(
        &self,
        scope: &Scope,
        cursor: Option<&Cursor>,
        mut source: S,
        key: F,
        count: Option<C>,
    ) -> Result<Bounded<T>, TryError<T, E>>
    where
        S: FnMut(KeyRequest<K>) -> I,
        I: IntoIterator<Item = Result<T, E>>,
        T: Serialize,
        K: CursorKey + Ord + Clone,
        F: Fn(&T) -> K,
        C: FnOnce(Option<&K>) -> Result<u64, E>,
    {
        let counting_here = count.is_some();
        let after = cursor.map(|c| scope.resume::<K>(c)).transpose()?;
        let resumed_after = after.clone();
        let fetch = if counting_here {
            fetch_for(&self.clone().count_total(false))
        } else {
            fetch_for(self)
        };
        let mut last = after.clone();
        let check = |item: &T| {
            let k = key(item);
            let in_order = last.as_ref().is_none_or(|prev| k > *prev);
            last = Some(k);
            in_order
        };
        let mut iter = Checked::new(source(KeyRequest { after, fetch }).into_iter(), check);
        let mut collector = Collector::resuming(self, cursor);
        let mut counted = if counting_here {
            drive(&mut collector, &mut iter, &self.clone().count_total(false))
        } else {
            drive(&mut collector, &mut iter, self)
        };
        let Checked {
            pulled,
            ended,
            fault,
            iter,
            check,
            ..
        } = iter;
        drop((iter, check)); // `check` holds `last`
        let cursor_for = |kept: &[T]| kept.last().map(|item| scope.cursor(&key(item)));
        if let Some(fault) = fault {
            return Err(interrupted(collector, fault, cursor_for));
        }
        // The source says the answer ends here. One item after its last key
        // would prove it capped the answer itself. An empty answer is taken
        // at its word: asking again would ask the same.
        let short = ended && pulled > 0 && fetch.is_none_or(|f| pulled < f);
        if short {
            let mut beyond = source(KeyRequest {
                after: last,
                fetch: Some(1),
            })
            .into_iter();
            match beyond.next() {
                None => {}
                Some(Ok(_)) => {
                    return Err(Error::invalid_argument(
                        "source",
                        format!(
                            "it ended after {pulled} items of the {} asked for, yet holds more after its last key; \
                             it must yield up to `KeyRequest::fetch` items (the one past the limit proves truncation, \
                             and counting a total needs the rest)",
                            fetch.map_or_else(|| "unbounded number".to_owned(), |f| f.to_string())
                        ),
                    )
                    .into());
                }
                Some(Err(error)) => {
                    return Err(interrupted(collector, Fault::Source(error), cursor_for));
                }
            }
        }
        if let Some(count) = count.filter(|_| collector.stop_proves_more()) {
            match count(resumed_after.as_ref()) {
                Ok(n) => counted = Some(Total::Exact(n)),
                Err(error) => return Err(interrupted(collector, Fault::Source(error), cursor_for)),
            }
        }
        finish(collector, cursor_for, counted, self.strict)
    }
}

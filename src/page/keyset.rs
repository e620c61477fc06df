//! `Keyset`: a source that resumes after a key, asked with a
//! [`KeyRequest`] (the key and how many items to yield), with its promises
//! checked; and, if it can count, the exact total from its count.

use std::marker::PhantomData;

use serde::Serialize;

use super::drive::{Checked, StopCause, checked, drive, finish, interrupted};
use super::items::Items;
use super::items::sealed::Sealed;
use super::key_request::KeyRequest;
use super::page_source::PageSource;
use super::try_error::TryError;
use crate::collector::Collector;
use crate::error::Error;
use crate::{Bounded, Cursor, CursorKey, Limits, Scope, Total};

/// A source that resumes after a key, for [`Bounded::page`]: a database
/// table read with `WHERE key > ?after ORDER BY key LIMIT ?fetch`, or any
/// source that can seek, so that a page does not read the earlier ones
/// again.
///
/// `fetch` is called with a [`KeyRequest`]: the key to resume after
/// (`None` on a first page) and how many items to yield
/// ([`KeyRequest::fetch`]: `limit + 1`, more when an exact total is read
/// on, or unbounded). It must yield the items whose key is greater, in
/// increasing key order, up to that many: an iterator, or
/// [`Fallible`](crate::Fallible) rows for a source that can fail (then
/// paging fails with [`TryError`]). `key` gives an item's key, unique
/// within the answer; the next cursor holds the key of the last item
/// returned.
///
/// When the source ends before yielding `fetch` items it claims that the
/// answer ends there; the claim is checked by asking once more, for one
/// item after the last key (so the last page of an answer costs two
/// calls, an empty answer one). A source that caps its own answer
/// (`LIMIT limit`, which hides the item that proves truncation) is then
/// refused with an error instead of reporting a wrong, exact-looking
/// total. A source that yields nothing cannot be caught this way: under a
/// limit of 0, `LIMIT limit` looks like an empty answer.
///
/// An exact total ([`Limits::count_total`]) is read on past the limit,
/// unless the source can count: see [`count`](Self::count).
///
/// # Errors
///
/// Paging fails, besides the errors of [`Bounded::page`], with
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
/// named `source` when the source yields keys out of order, repeated, or
/// not after the cursor (which would lose or repeat items across pages),
/// or ends early as above.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fingerprint, KeyRequest, Keyset, Limits, Scope};
/// let callers = vec!["main", "parse", "render", "run", "write"];
/// let scope = Scope::new(Fingerprint::of("callers of flush"));
/// let source = || {
///     Keyset::new(
///         |request: KeyRequest<String>| {
///             let fetch = request.fetch().unwrap_or(usize::MAX);
///             let after = request.into_after();
///             callers
///                 .clone()
///                 .into_iter()
///                 .filter(move |c| after.as_deref().is_none_or(|a| *c > a))
///                 .take(fetch)
///                 .map(String::from)
///         },
///         |c: &String| c.clone(),
///     )
/// };
/// let limits = Limits::new().limit(2);
/// let first = Bounded::page(source(), &limits, &scope, None)?;
/// assert_eq!(first.items(), &["main", "parse"]);
/// let second = Bounded::page(source(), &limits, &scope, first.next_cursor())?;
/// assert_eq!(second.items(), &["render", "run"]);
/// assert_eq!(second.start(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Keyset<K, F, KF, C = NoCount> {
    fetch: F,
    key: KF,
    count: C,
    /// The key's type, which `fetch` takes in its request.
    key_type: PhantomData<fn() -> K>,
}

/// The count of a [`Keyset`] that has none (the default): its exact
/// total, when asked for, is read on past the limit.
///
/// # Example
///
/// ```
/// use candor::{KeyRequest, Keyset, NoCount};
/// let source: Keyset<u64, _, _, NoCount> = Keyset::new(|_: KeyRequest<u64>| Vec::<u64>::new(), |n: &u64| *n);
/// # let _ = source;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCount;

impl<K, F, KF> Keyset<K, F, KF, NoCount> {
    /// A source that yields, for each [`KeyRequest`], its items after the
    /// key, in key order: see [`Keyset`].
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fingerprint, KeyRequest, Keyset, Limits, Scope};
    /// let ids: Vec<u64> = (1..=30).collect();
    /// let fetch = |r: KeyRequest<u64>| {
    ///     let (after, fetch) = (r.after().copied().unwrap_or(0), r.fetch().unwrap_or(usize::MAX));
    ///     ids.iter().copied().filter(move |id| *id > after).take(fetch)
    /// };
    /// let source = Keyset::new(fetch, |id: &u64| *id);
    /// let page = Bounded::page(source, &Limits::new().limit(20), &Scope::new(Fingerprint::of("ids")), None)?;
    /// assert_eq!(page.len(), 20);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new<R>(fetch: F, key: KF) -> Self
    where
        F: FnMut(KeyRequest<K>) -> R,
        R: Items,
        KF: Fn(&R::Item) -> K,
    {
        Keyset {
            fetch,
            key,
            count: NoCount,
            key_type: PhantomData,
        }
    }

    /// The same source, counting for itself: `count` gets the key a page
    /// resumes after and returns how many items follow it (in SQL,
    /// `SELECT COUNT(*) ... WHERE key > ?1`), failing as a row of the
    /// source does (`Ok::<u64, Infallible>` for a source that cannot
    /// fail).
    ///
    /// The count gives the exact total asked for with
    /// [`Limits::count_total`], instead of reading on past the limit: the
    /// source is then asked for `limit + 1` items only, and
    /// [`Limits::max_counted`] does not apply. It is called only when the
    /// page is truncated by its limit (an exact page knows its total), and
    /// only when an exact total is asked for. A count below what the page
    /// saw is not believed: the total becomes a lower bound.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fallible, Fingerprint, KeyRequest, Keyset, Limits, Scope, Total};
    /// let table: Vec<u64> = (1..=8963).collect();
    /// let scope = Scope::new(Fingerprint::of("references of Typography"));
    /// // What `SELECT id FROM refs WHERE id > ?1 ORDER BY id LIMIT ?2` does.
    /// let rows = |request: KeyRequest<u64>| {
    ///     let after = request.after().copied().unwrap_or(0);
    ///     let fetch = request.fetch().unwrap_or(usize::MAX);
    ///     Fallible(table.iter().copied().filter(move |id| *id > after).take(fetch).map(Ok::<u64, std::io::Error>))
    /// };
    /// let count = |after: Option<&u64>| Ok(table.iter().filter(|id| Some(*id) > after).count() as u64);
    /// let source = Keyset::new(rows, |id: &u64| *id).count(count);
    /// let page = Bounded::page(source, &Limits::new().limit(1000).count_total(true), &scope, None)?;
    /// assert_eq!(page.len(), 1000);
    /// assert_eq!(page.total(), Total::Exact(8963));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn count<C, E>(self, count: C) -> Keyset<K, F, KF, C>
    where
        C: FnOnce(Option<&K>) -> Result<u64, E>,
    {
        Keyset {
            fetch: self.fetch,
            key: self.key,
            count,
            key_type: PhantomData,
        }
    }
}

impl<K, F, KF, C> Sealed for Keyset<K, F, KF, C> {}

impl<K, F, KF, R> PageSource for Keyset<K, F, KF, NoCount>
where
    F: FnMut(KeyRequest<K>) -> R,
    R: Items,
    KF: Fn(&R::Item) -> K,
    K: CursorKey + Ord + Clone,
{
    type Item = R::Item;
    type Error = R::Error;

    fn page(
        self,
        limits: &Limits,
        scope: &Scope,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<R::Item>, R::Error>
    where
        R::Item: Serialize,
    {
        let no_count = None::<fn(Option<&K>) -> Result<u64, R::Fault>>;
        keyset_page(limits, scope, cursor, self.fetch, self.key, no_count).map_err(R::failure)
    }
}

impl<K, F, KF, R, C> PageSource for Keyset<K, F, KF, C>
where
    F: FnMut(KeyRequest<K>) -> R,
    R: Items,
    KF: Fn(&R::Item) -> K,
    K: CursorKey + Ord + Clone,
    C: FnOnce(Option<&K>) -> Result<u64, R::Fault>,
{
    type Item = R::Item;
    type Error = R::Error;

    fn page(
        self,
        limits: &Limits,
        scope: &Scope,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<R::Item>, R::Error>
    where
        R::Item: Serialize,
    {
        keyset_page(
            limits,
            scope,
            cursor,
            self.fetch,
            self.key,
            Some(self.count),
        )
        .map_err(R::failure)
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

/// A page of `R`'s items, or what its fault left.
type Paged<R> =
    Result<Bounded<<R as Items>::Item>, TryError<<R as Items>::Item, <R as Items>::Fault>>;

/// One page of a keyset source; with `count`, the source counts for
/// itself.
fn keyset_page<F, KF, K, R, C>(
    limits: &Limits,
    scope: &Scope,
    cursor: Option<&Cursor>,
    mut source: F,
    key: KF,
    count: Option<C>,
) -> Paged<R>
where
    F: FnMut(KeyRequest<K>) -> R,
    R: Items,
    R::Item: Serialize,
    KF: Fn(&R::Item) -> K,
    K: CursorKey + Ord + Clone,
    C: FnOnce(Option<&K>) -> Result<u64, R::Fault>,
{
    // A source that counts for itself is not read on past the limit.
    let counts_itself = count.is_some();
    let reading = if counts_itself {
        &limits.clone().count_total(false)
    } else {
        limits
    };
    let after = cursor.map(|c| scope.resume::<K>(c)).transpose()?;
    let resumed_after = after.clone();
    let fetch = fetch_for(reading);
    let mut last = after.clone();
    let check = |item: &R::Item| {
        let k = key(item);
        let in_order = last.as_ref().is_none_or(|prev| k > *prev);
        last = Some(k);
        in_order
    };
    let mut iter = checked(source(KeyRequest { after, fetch }), check);
    let mut collector = Collector::resuming(limits, cursor);
    let mut counted = drive(&mut collector, &mut iter, reading);
    let Checked {
        pulled,
        ended,
        fault,
        iter,
        check,
        ..
    } = iter;
    drop((iter, check)); // `check` holds `last`
    let cursor_for = |kept: &[R::Item]| kept.last().map(|item| scope.unplaced(&key(item)));
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
        .into_rows();
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
                return Err(interrupted(collector, StopCause::Source(error), cursor_for));
            }
        }
    }
    let wanted = limits.count_total && collector.stop_proves_more();
    if let Some(count) = count.filter(|_| wanted) {
        match count(resumed_after.as_ref()) {
            Ok(n) => counted = Some(Total::Exact(n)),
            Err(error) => return Err(interrupted(collector, StopCause::Source(error), cursor_for)),
        }
    }
    finish(collector, cursor_for, counted)
}

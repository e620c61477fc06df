//! `page_by_key` and its `try_` forms: one page of a source that resumes
//! after a key, asked for with a [`KeyRequest`] (the key and how many items
//! to yield), with the source's promises checked.

use std::convert::Infallible;

use serde::Serialize;

use super::source::{Checked, Fault, drive, finish, interrupted, into_query_error};
use super::try_error::TryError;
use crate::collect::Collector;
use crate::error::Error;
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
    pub(crate) after: Option<K>,
    pub(crate) fetch: Option<usize>,
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

/// The count of a page that reads on for its total instead.
type NoCount<K, E> = fn(Option<&K>) -> Result<u64, E>;

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

impl Limits {
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
        I::Item: Serialize,
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
        let cursor_for = |kept: &[T]| kept.last().map(|item| scope.unplaced(&key(item)));
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
        finish(collector, cursor_for, counted)
    }
}

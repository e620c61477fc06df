//! `KeyRequest`: what a source that resumes after a key is asked for.

/// What a [`Keyset`](crate::Keyset) or [`Shards`](crate::Shards) source is
/// asked for: the key to resume after, and how many items to yield.
///
/// `fetch` is the most items the query will pull: `limit + 1` (the extra
/// one proves truncation), or more when an exact total is counted by
/// reading on ([`Limits::count_total`](crate::Limits::count_total)), or
/// unbounded. A source must yield every item after the key up to `fetch`,
/// so the obvious SQL is the correct one:
/// `WHERE key > ?after ORDER BY key LIMIT ?fetch`, with
/// [`sql_limit`](Self::sql_limit) as the bound.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fingerprint, KeyRequest, Keyset, Limits, Scope};
/// let rows: Vec<u32> = (1..=50).collect();
/// let scope = Scope::new(Fingerprint::of("rows"));
/// let mut asked = Vec::new();
/// let fetch = |request: KeyRequest<u32>| {
///     asked.push(request.fetch());
///     let after = request.after().copied().unwrap_or(0);
///     let fetch = request.fetch().unwrap_or(usize::MAX);
///     rows.iter().copied().filter(move |r| *r > after).take(fetch).collect::<Vec<_>>()
/// };
/// let source = Keyset::new(fetch, |r: &u32| *r);
/// let page = Bounded::page(source, &Limits::new().limit(10), &scope, None)?;
/// assert_eq!(page.len(), 10);
/// assert!(page.completeness().is_truncated());
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
    /// use candor::{Bounded, Fingerprint, KeyRequest, Keyset, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let source = || Keyset::new(|r: KeyRequest<u64>| {
    ///     let after = r.after().copied();
    ///     (0..9u64).filter(move |n| after.is_none_or(|a| *n > a))
    /// }, |n: &u64| *n);
    /// let limits = Limits::new().limit(4);
    /// let first = Bounded::page(source(), &limits, &scope, None)?;
    /// let second = Bounded::page(source(), &limits, &scope, first.next_cursor())?;
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
    /// use candor::{Bounded, Fingerprint, KeyRequest, Keyset, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let words = ["ant", "bee", "cat"];
    /// let fetch = |r: KeyRequest<String>| {
    ///     let after = r.into_after();
    ///     words.iter().map(|w| w.to_string()).filter(move |w| after.as_ref().is_none_or(|a| w > a))
    /// };
    /// let source = Keyset::new(fetch, |w: &String| w.clone());
    /// let page = Bounded::page(source, &Limits::new().limit(2), &scope, None)?;
    /// assert_eq!(page.items(), &["ant", "bee"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn into_after(self) -> Option<K> {
        self.after
    }

    /// How many items the source must yield if it has them: `None` when
    /// the query may pull them all (no limit, or an exact total read on
    /// without a count budget).
    ///
    /// It is `limit + 1`, and when an exact total is read on past the
    /// limit, the larger of `limit + 1` and the count budget
    /// ([`Limits::max_counted`](crate::Limits::max_counted)), plus one. A
    /// `Keyset` that counts for itself ([`Keyset::count`](crate::Keyset::count))
    /// is asked for `limit + 1` only.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fingerprint, KeyRequest, Keyset, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let fetch_of = |limits: Limits| {
    ///     let mut fetch = None;
    ///     let source = Keyset::new(|r: KeyRequest<u64>| {
    ///         fetch = Some(r.fetch());
    ///         Vec::<u64>::new()
    ///     }, |n: &u64| *n);
    ///     let _ = Bounded::page(source, &limits, &scope, None);
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
    /// use candor::{Bounded, Fingerprint, KeyRequest, Keyset, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let mut sql_limit = 0;
    /// let source = Keyset::new(|r: KeyRequest<u64>| {
    ///     sql_limit = r.sql_limit();
    ///     Vec::<u64>::new()
    /// }, |n: &u64| *n);
    /// let _ = Bounded::page(source, &Limits::new().limit(100), &scope, None)?;
    /// assert_eq!(sql_limit, 101);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn sql_limit(&self) -> i64 {
        self.fetch
            .map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX))
    }
}

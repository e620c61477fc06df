//! `Shards`: an answer split across sources that each resume after a
//! key, paged as one: every page asks every shard, and merges.

use std::marker::PhantomData;

use serde::Serialize;

use super::items::sealed::Sealed;
use super::key_request::KeyRequest;
use super::merge::{collect_merged, merge_certain};
use super::page_source::PageSource;
use crate::error::Error;
use crate::{Bounded, Cursor, CursorKey, Limits, Scope};

/// An answer split across shards, paged as one by a unique key, for
/// [`Bounded::page`].
///
/// `parts_for` is called once per page with a [`KeyRequest`]: the key to
/// resume after (decoded from the cursor; `None` on a first page) and how
/// many items to ask each shard for (`limit + 1`, the one past the limit
/// proving truncation). It asks every shard for its items after that key,
/// in key order, each shard saying itself whether it returned all it holds
/// (a [`Bounded`]); a shard that failed is a part whose
/// [`skipped`](crate::Skipped) names it as an error. The parts are merged
/// as by [`Bounded::merge`], in the order of `key`, which must be unique
/// across the parts: the next cursor holds the key of the last item
/// returned.
///
/// The page says where it starts in the whole answer (the cursor's
/// [`start`](Cursor::start), never a shard's own position), and its total
/// counts the whole answer: the items before the cursor plus what the
/// shards hold after it (exact only when every shard's total is).
///
/// # Errors
///
/// Paging fails, besides the errors of [`Bounded::merge`] and those
/// `parts_for` returns, with
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
/// named `parts` when two items share a key or an item is not after the
/// cursor's key.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fingerprint, KeyRequest, Limits, Scope, Shards, Total};
/// let scope = Scope::new(Fingerprint::of("callers of flush"));
/// let shards = [vec![3u64, 8, 13], vec![1u64, 5]];
/// let limits = Limits::new().limit(2);
/// let parts_for = |request: KeyRequest<u64>| {
///     let after = request.after().copied().unwrap_or(0);
///     shards
///         .iter()
///         .map(|shard| Bounded::collect(shard.iter().copied().filter(|n| *n > after), &limits))
///         .collect::<Result<Vec<_>, _>>()
/// };
/// let first = Bounded::page(Shards::new(parts_for, |n| *n), &limits, &scope, None)?;
/// assert_eq!(first.items(), &[1, 3]);
/// let second = Bounded::page(Shards::new(parts_for, |n| *n), &limits, &scope, first.next_cursor())?;
/// assert_eq!(second.items(), &[5, 8]);
/// assert_eq!(second.start(), 2); // items 3 and 4 of the answer
/// assert_eq!(second.total(), Total::Exact(5)); // every shard said it was whole
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Shards<K, P, KF> {
    parts_for: P,
    key: KF,
    /// The key's type, which `parts_for` takes in its request.
    key_type: PhantomData<fn() -> K>,
}

impl<K, P, KF> Shards<K, P, KF> {
    /// Shards whose parts after a key `parts_for` gives, merged in the
    /// order of `key`: see [`Shards`].
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fingerprint, KeyRequest, Limits, Scope, Shards};
    /// let parts_for = |_: KeyRequest<u32>| Ok(vec![Bounded::exact(vec![1u32, 4]), Bounded::exact(vec![2u32])]);
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let page = Bounded::page(Shards::new(parts_for, |n: &u32| *n), &Limits::new(), &scope, None)?;
    /// assert_eq!(page.items(), &[1, 2, 4]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new<T>(parts_for: P, key: KF) -> Self
    where
        P: FnOnce(KeyRequest<K>) -> Result<Vec<Bounded<T>>, Error>,
        KF: Fn(&T) -> K,
    {
        Shards {
            parts_for,
            key,
            key_type: PhantomData,
        }
    }
}

impl<K, P, KF> Sealed for Shards<K, P, KF> {}

impl<T, K, P, KF> PageSource for Shards<K, P, KF>
where
    P: FnOnce(KeyRequest<K>) -> Result<Vec<Bounded<T>>, Error>,
    KF: Fn(&T) -> K,
    K: CursorKey + Ord + Clone,
{
    type Item = T;
    type Error = Error;

    fn page(
        self,
        limits: &Limits,
        scope: &Scope,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
    {
        let Shards { parts_for, key, .. } = self;
        let after = cursor.map(|c| scope.resume::<K>(c)).transpose()?;
        let fetch = limits
            .applied_limit()
            .limit()
            .and_then(|l| l.checked_add(1));
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
        collect_merged(limits, merged, Some(start), |kept: &[T]| {
            kept.last().map(|item| scope.unplaced(&key(item)))
        })
    }
}

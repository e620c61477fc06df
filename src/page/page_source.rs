//! `PageSource`: what a page is read from, and `Bounded::page`, the one
//! verb that pages through any of them.

use serde::Serialize;

use super::items::sealed::Sealed;
use crate::{Bounded, Cursor, Limits, Scope};

/// What [`Bounded::page`] reads a page from, and how it resumes:
///
/// - any iterator, or [`Fallible`](crate::Fallible) rows
///   ([`Items`](crate::Items)): read again from the start for every page,
///   the items of earlier pages skipped (the cursor holds how many);
/// - a [`Keyset`](crate::Keyset): a source that resumes after a key, so
///   that earlier pages are not read again (a database's `WHERE key > ?`);
/// - [`Shards`](crate::Shards): several sources, each resuming after a
///   key, merged into one page.
///
/// The trait is sealed: those are all there is.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fingerprint, Limits, Scope};
/// let scope = Scope::new(Fingerprint::of("squares"));
/// let limits = Limits::new().limit(3);
/// let first = Bounded::page((0..5u32).map(|n| n * n), &limits, &scope, None)?;
/// let rest = Bounded::page((0..5u32).map(|n| n * n), &limits, &scope, first.next_cursor())?;
/// assert_eq!(rest.items(), &[9, 16]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait PageSource: Sealed {
    /// The items.
    type Item;
    /// What paging fails with: [`Error`](crate::Error), or
    /// [`TryError`](crate::TryError) for a source that can fail.
    type Error;
    #[doc(hidden)]
    fn page(
        self,
        limits: &Limits,
        scope: &Scope,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<Self::Item>, Self::Error>
    where
        Self::Item: Serialize;
}

impl<T> Bounded<T> {
    /// One page of an ordered source under `limits`, resuming at `cursor`
    /// (`None` for the first page), with a cursor bound to `scope` when
    /// more items exist.
    ///
    /// The source says how it resumes (see [`PageSource`]): an iterator is
    /// read again from its start and must yield the same items in the same
    /// order on every call; a [`Keyset`](crate::Keyset) is asked for the
    /// items after a key. Following `next_cursor` page after page yields
    /// every item exactly once. Every page says where it starts
    /// ([`start`](Self::start)), and its total counts the whole answer.
    ///
    /// The limits apply as in [`collect`](Self::collect); an exact total
    /// ([`Limits::count_total`]) is read on past the limit, or asked of a
    /// `Keyset` that can count.
    ///
    /// # Errors
    ///
    /// Those of [`collect`](Self::collect); for the cursor,
    /// [`ErrorKind::ForeignCursor`](crate::ErrorKind::ForeignCursor)
    /// (another query),
    /// [`ErrorKind::StaleCursor`](crate::ErrorKind::StaleCursor) (another
    /// corpus generation),
    /// [`ErrorKind::MalformedCursor`](crate::ErrorKind::MalformedCursor)
    /// (a cursor of another kind of source), and
    /// [`ErrorKind::CursorOutOfRange`](crate::ErrorKind::CursorOutOfRange)
    /// when it points past the end of an iterator; and those each source
    /// adds (a `Keyset` whose keys are out of order, shards that share a
    /// key). A source that can fail fails with
    /// [`TryError`](crate::TryError).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fingerprint, Limits, Scope, Total};
    /// let scope = Scope::new(Fingerprint::of("squares below 1000"));
    /// let source = || (0..32u32).map(|n| n * n);
    /// let limits = Limits::new().limit(10);
    ///
    /// let mut all = Vec::new();
    /// let mut cursor = None;
    /// loop {
    ///     let page = Bounded::page(source(), &limits, &scope, cursor.as_ref())?;
    ///     assert_eq!(page.start(), all.len() as u64);
    ///     all.extend_from_slice(page.items());
    ///     match page.next_cursor() {
    ///         Some(next) => cursor = Some(next.clone()),
    ///         None => break,
    ///     }
    /// }
    /// assert_eq!(all, source().collect::<Vec<_>>());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn page<S>(
        source: S,
        limits: &Limits,
        scope: &Scope,
        cursor: Option<&Cursor>,
    ) -> Result<Bounded<T>, S::Error>
    where
        S: PageSource<Item = T>,
        T: Serialize,
    {
        source.page(limits, scope, cursor)
    }
}

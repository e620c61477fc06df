//! `page` and `try_page`: one page of an ordered source, resumed after a
//! count of items (the source is read again from its start, and the items
//! of earlier pages skipped).

use std::convert::Infallible;

use serde::Serialize;

use super::source::{Checked, Fault, drive, finish, interrupted, into_query_error};
use super::try_error::{Interrupted, TryError};
use crate::collect::Collector;
use crate::error::Error;
use crate::{Bounded, Cursor, CursorKey, Limits, Scope};

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

impl Limits {
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
        I::Item: Serialize,
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
            (!kept.is_empty()).then(|| scope.unplaced(&PageOffset(offset + kept.len() as u64)))
        };
        let mut collector = Collector::new(self);
        collector.set_start(offset);
        let counted = drive(&mut collector, &mut iter, self);
        if let Some(fault) = iter.fault {
            return Err(interrupted(collector, fault, cursor_for));
        }
        finish(collector, cursor_for, counted)
    }
}

//! The error of a query over a source that can fail: [`TryError`] (the
//! query's error or the source's) and [`Interrupted`], what a source's
//! error left: the items read and where to resume.

use std::convert::Infallible;
use std::fmt;

use crate::Cursor;
use crate::error::Error;

/// The error of [`Bounded::collect`](crate::Bounded::collect) and
/// [`Bounded::page`](crate::Bounded::page) over a source that can fail
/// ([`Fallible`](crate::Fallible) rows, or a
/// [`Keyset`](crate::Keyset) that yields them): either the query failed
/// as over a source that cannot fail, or the source failed.
///
/// A source's error ends the query: a result is never reported as exact,
/// nor its total as known, when the source did not reach its end.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fallible, Limits, TryError};
/// let rows = vec![Ok(1u32), Ok(2), Err("connection reset"), Ok(4)];
/// match Bounded::collect(Fallible(rows), &Limits::new().limit(10)) {
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
    /// small, or the source broke its promises (keys out of order, fewer
    /// items than asked for).
    Query(Error),
    /// The source yielded an error.
    Source(Box<Interrupted<T, E>>),
}

impl<T, E> TryError<T, E> {
    /// The query's error, when it is not the source's.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, ErrorKind, Fallible, Limits};
    /// let err = Bounded::collect(Fallible([Ok::<u8, String>(1)]), &Limits::new().max_bytes(5)).unwrap_err();
    /// assert!(matches!(err.query().map(|e| e.kind()), Some(ErrorKind::BudgetTooSmall { .. })));
    /// ```
    #[must_use]
    pub fn query(&self) -> Option<&Error> {
        match self {
            TryError::Query(e) => Some(e),
            TryError::Source(_) => None,
        }
    }

    /// What the source failed with, and what was read before.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Fallible, Limits};
    /// let err = Bounded::collect(Fallible([Ok(1u8), Err(7u8)]), &Limits::new()).unwrap_err();
    /// assert_eq!(err.interrupted().map(|i| *i.error()), Some(7));
    /// ```
    #[must_use]
    pub fn interrupted(&self) -> Option<&Interrupted<T, E>> {
        match self {
            TryError::Query(_) => None,
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
        }
    }
}

impl<T: fmt::Debug, E: std::error::Error + 'static> std::error::Error for TryError<T, E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TryError::Query(e) => std::error::Error::source(e),
            TryError::Source(i) => Some(&i.error),
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
/// use candor::{Bounded, Fallible, Fingerprint, Limits, Scope, TryError};
/// let scope = Scope::new(Fingerprint::of("rows"));
/// let rows = || (0..10u32).map(|n| if n == 3 { Err("disk") } else { Ok(n) });
/// let Err(TryError::Source(failed)) = Bounded::page(Fallible(rows()), &Limits::new().limit(5), &scope, None) else {
///     panic!("the source fails at row 3");
/// };
/// assert_eq!(failed.items(), &[0, 1, 2]);
/// // Resuming starts after the rows read.
/// let cursor = failed.next_cursor().expect("rows were read");
/// let Err(TryError::Source(again)) = Bounded::page(Fallible(rows()), &Limits::new(), &scope, Some(cursor)) else {
///     panic!("row 3 still fails");
/// };
/// assert!(again.items().is_empty());
/// ```
#[derive(Debug)]
pub struct Interrupted<T, E> {
    pub(super) items: Vec<T>,
    pub(super) next_cursor: Option<Cursor>,
    pub(super) error: E,
}

impl<T, E> Interrupted<T, E> {
    /// The items read before the error, in the answer's order: a prefix
    /// of what the page would have held.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Bounded::collect(candor::Fallible([Ok(1u8), Ok(2), Err(())]), &candor::Limits::new()).unwrap_err();
    /// assert_eq!(err.interrupted().unwrap().items(), &[1, 2]);
    /// ```
    #[must_use]
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Where to resume after [`items`](Self::items): `None` for
    /// [`Bounded::collect`](crate::Bounded::collect) and when
    /// nothing was read.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Bounded::collect(candor::Fallible([Ok(1u8), Err(())]), &candor::Limits::new()).unwrap_err();
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
    /// let err = candor::Bounded::collect(candor::Fallible([Err::<u8, _>("locked")]), &candor::Limits::new()).unwrap_err();
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
    /// use candor::{Bounded, Fallible, TryError};
    /// let Err(TryError::Source(failed)) = Bounded::collect(Fallible([Ok(1u8), Err(2u8)]), &candor::Limits::new()) else {
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

/// The error of a query over items that cannot fail.
pub(super) fn into_query_error<T>(error: TryError<T, Infallible>) -> Error {
    match error {
        TryError::Query(e) => e,
        TryError::Source(i) => match i.error {},
    }
}

//! `Items`: what a result's items are read from, an iterator or
//! [`Fallible`] rows; and whether reading them can fail.

use std::convert::Infallible;

use super::try_error::{TryError, into_query_error};
use crate::error::Error;

pub(crate) mod sealed {
    /// Implemented by the sources candor knows how to read.
    pub trait Sealed {}
}

/// Items that may fail, such as the rows of a database: an iterator of
/// `Result<T, E>`. The first `Err` ends the query with
/// [`TryError::Source`], which holds the items read before it and a
/// cursor to resume after them; a source's error is never read as the end
/// of the answer.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fallible, Limits, TryError};
/// let rows = vec![Ok(1u32), Ok(2), Err("connection reset"), Ok(4)];
/// match Bounded::collect(Fallible(rows), &Limits::new()) {
///     Err(TryError::Source(failed)) => assert_eq!(failed.items(), &[1, 2]),
///     other => panic!("expected the source's error, got {other:?}"),
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Fallible<I>(pub I);

/// What [`Bounded::collect`](crate::Bounded::collect) and
/// [`Bounded::page`](crate::Bounded::page) read items from: any iterator
/// (reading cannot fail), or [`Fallible`] rows (reading can).
///
/// The trait is sealed: those two are all there is.
///
/// # Example
///
/// ```
/// use candor::{Bounded, Fallible, Limits};
/// let limits = Limits::new().limit(2);
/// let numbers = Bounded::collect(0..5u32, &limits)?; // fails with `candor::Error`
/// let rows = Bounded::collect(Fallible((0..5u32).map(Ok::<u32, std::io::Error>)), &limits)?;
/// assert_eq!(numbers, rows);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Items: sealed::Sealed {
    /// The items.
    type Item;
    /// What reading an item can fail with: `Infallible` for an iterator,
    /// `E` for `Fallible` rows of `Result<T, E>`.
    type Fault;
    /// What a query over these items fails with: [`Error`] for an
    /// iterator, [`TryError<Item, E>`](TryError) for `Fallible` rows.
    type Error;
    #[doc(hidden)]
    type Rows: Iterator<Item = Result<Self::Item, Self::Fault>>;
    /// Whether the rows' size hint is the items' (no row is an error).
    #[doc(hidden)]
    const EXACT_HINT: bool;
    #[doc(hidden)]
    fn into_rows(self) -> Self::Rows;
    #[doc(hidden)]
    fn failure(error: TryError<Self::Item, Self::Fault>) -> Self::Error;
}

impl<I: IntoIterator> sealed::Sealed for I {}

impl<I: IntoIterator> Items for I {
    type Item = I::Item;
    type Fault = Infallible;
    type Error = Error;
    type Rows = std::iter::Map<I::IntoIter, fn(I::Item) -> Result<I::Item, Infallible>>;
    const EXACT_HINT: bool = true;

    fn into_rows(self) -> Self::Rows {
        self.into_iter().map(Ok)
    }

    fn failure(error: TryError<I::Item, Infallible>) -> Error {
        into_query_error(error)
    }
}

impl<I> sealed::Sealed for Fallible<I> {}

impl<I, T, E> Items for Fallible<I>
where
    I: IntoIterator<Item = Result<T, E>>,
{
    type Item = T;
    type Fault = E;
    type Error = TryError<T, E>;
    type Rows = I::IntoIter;
    const EXACT_HINT: bool = false;

    fn into_rows(self) -> Self::Rows {
        self.0.into_iter()
    }

    fn failure(error: TryError<T, E>) -> TryError<T, E> {
        error
    }
}

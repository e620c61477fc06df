//! `StreamError`: how a stream whose receiver can fail ends in error,
//! with the stream's end so far.

use std::fmt;

use crate::Streamed;
use crate::error::Error;

/// The error of [`Corpus::try_search_each`](crate::Corpus::try_search_each):
/// the query failed, or the callback failed on an item.
///
/// # Example
///
/// ```
/// use candor::{Corpus, Documents, Limits, Query, StreamError};
/// let docs = Documents::new().with("a.txt", "one\ntwo\nthree\n");
/// let mut indexed = Vec::new();
/// let outcome = docs.try_search_each(&Query::regex("o"), &Limits::new(), None, |m| {
///     if m.line == "two" {
///         return Err("the index is full");
///     }
///     indexed.push(m.line.clone());
///     Ok(())
/// });
/// let Err(StreamError::Callback { end, error }) = outcome else { panic!("the callback fails") };
/// assert_eq!((indexed.len(), end.count(), error), (1, 1, "the index is full"));
/// // The cursor resumes at the line the callback failed on.
/// let rest = docs.search(&Query::regex("o"), &Limits::new(), end.next_cursor())?;
/// assert_eq!(rest.items()[0].line, "two");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamError<E> {
    /// The query failed, as [`search_each`](crate::Corpus::search_each)
    /// would.
    Query(Error),
    /// The callback failed on an item.
    Callback {
        /// The stream's end up to that item: the items handed on before it
        /// ([`Streamed::count`]), the disclosure (truncated, as a
        /// cancellation is), and a cursor that resumes at the item the
        /// callback failed on.
        end: Box<Streamed>,
        /// The callback's error.
        error: E,
    },
}

impl<E> From<Error> for StreamError<E> {
    fn from(error: Error) -> Self {
        StreamError::Query(error)
    }
}

impl<E: fmt::Display> fmt::Display for StreamError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Query(e) => fmt::Display::fmt(e, f),
            StreamError::Callback { end, error } => write!(
                f,
                "the callback failed after {} items: {error}",
                end.count()
            ),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for StreamError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StreamError::Query(e) => std::error::Error::source(e),
            StreamError::Callback { error, .. } => Some(error),
        }
    }
}

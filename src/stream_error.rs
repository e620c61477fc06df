//! `StreamError`: how a stream whose receiver can fail ends in error,
//! with the stream's end so far.

use std::fmt;

use crate::Streamed;
use crate::error::Error;

/// The error of `candor_search::Corpus::try_search_each`:
/// the query failed, or the callback failed on an item.
///
/// # Example
///
/// ```
/// use candor::collector::Collector;
/// use candor::{Limits, StreamError};
/// // A receiver that failed on the second item: the stream ends after the
/// // first, and its cursor (a search's) resumes at the item that failed.
/// let mut collector = Collector::streaming(&Limits::new());
/// let _ = collector.offer("one");
/// let end = collector.finish_parts(|_| None, None)?.into_streamed();
/// let outcome: Result<(), _> = Err(StreamError::Callback { end: Box::new(end), error: "the index is full" });
/// let Err(StreamError::Callback { end, error }) = outcome else { panic!("the callback failed") };
/// assert_eq!((end.count(), error), (1, "the index is full"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamError<E> {
    /// The query failed, as `candor_search::Corpus::search_each`
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

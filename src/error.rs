//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Bounded, Completeness, Disclosure, Streamed};

/// The error of every fallible call in candor.
///
/// It is opaque so that new kinds and fields are not breaking changes:
/// [`Error::kind`] says what went wrong. A strict-mode error (see
/// [`Limits::strict`](crate::Limits::strict)) also holds what was found, in
/// its wire form: [`Error::partial`] shows it, [`Error::into_partial`]
/// decodes it.
///
/// # Example
///
/// ```
/// use candor::{ErrorKind, Limits};
///
/// let err = Limits::new().max_bytes(10).collect(0..5u32).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::BudgetTooSmall { max_bytes: 10, .. }));
/// assert!(err.to_string().starts_with("max_bytes 10 is too small"));
/// ```
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    partial: Option<Partial>,
}

/// What a strict-mode error found.
enum Partial {
    /// A result's items in their wire form, with its disclosure.
    Items(Bounded<Value>),
    /// The end of a stream (the items were handed on as they came).
    Stream(Streamed),
}

/// What went wrong.
///
/// Messages are lowercase, have no trailing period and name the value at
/// fault; the underlying cause, if any, is the error's `source`.
///
/// # Example
///
/// ```
/// use candor::ErrorKind;
/// let kind = ErrorKind::TamperedCursor;
/// assert_eq!(kind.to_string(), "cursor failed its integrity check (altered or truncated token)");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A search pattern could not be compiled.
    #[error("invalid pattern {pattern:?}: {reason}")]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An argument is out of its range or contradicts another.
    #[error("invalid argument {name}: {reason}")]
    InvalidArgument {
        /// The argument's name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A cursor token is not one candor wrote: bad characters, length or
    /// version.
    #[error("malformed cursor: {reason}")]
    MalformedCursor {
        /// What is wrong with the token.
        reason: String,
    },
    /// A cursor token's integrity check failed: it was altered or cut.
    #[error("cursor failed its integrity check (altered or truncated token)")]
    TamperedCursor,
    /// A cursor issued by another query was given to this one.
    #[error(
        "cursor belongs to another query (fingerprint {found:016x}, this query is {expected:016x})"
    )]
    ForeignCursor {
        /// This query's fingerprint.
        expected: u64,
        /// The fingerprint the cursor carries.
        found: u64,
    },
    /// A cursor was issued against an earlier generation of the corpus.
    #[error(
        "stale cursor: issued at corpus generation {cursor_generation}, corpus is now at {current_generation}"
    )]
    StaleCursor {
        /// The generation the cursor carries.
        cursor_generation: u64,
        /// The corpus's current generation.
        current_generation: u64,
    },
    /// A cursor points outside the corpus or past the end of its input.
    #[error("cursor points outside the corpus: {reason}")]
    CursorOutOfRange {
        /// What it points at.
        reason: String,
    },
    /// A disclosure contradicts itself or its items (see
    /// [`Bounded::from_parts`]).
    #[error("inconsistent disclosure: {reason}")]
    InvalidDisclosure {
        /// The rule broken.
        reason: String,
    },
    /// The byte budget cannot hold even the required fields of a response
    /// with no items.
    #[error("max_bytes {max_bytes} is too small: the smallest response needs {needed} bytes")]
    BudgetTooSmall {
        /// The budget that was asked for.
        max_bytes: usize,
        /// The size of the smallest response this query can produce from
        /// what it had read when it stopped. A search given this budget
        /// reads further, and what it then finds (more skipped inputs, a
        /// longer total) can make the smallest response longer: a retry
        /// with `needed` either fits or fails again with a larger
        /// `needed`.
        needed: usize,
    },
    /// Strict mode was asked for and the result is not complete. What was
    /// found is kept, in its wire form: see [`Error::partial`] and
    /// [`Error::into_partial`].
    #[error("incomplete result in strict mode: {summary}")]
    Incomplete {
        /// Why the result is incomplete, in one line.
        summary: String,
    },
    /// A path named by the caller resolves outside the corpus root.
    #[error("path {path:?} is outside the corpus root")]
    OutsideRoot {
        /// The path as given.
        path: String,
    },
    /// A path named by the caller is not in the corpus.
    #[error("path {path:?} is not in the corpus")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// A file or folder could not be read.
    #[error("cannot read {path}")]
    Read {
        /// The path that failed.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// An item could not be serialized to JSON.
    #[error("cannot serialize an item to JSON")]
    Serialize {
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// What went wrong.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Cursor, ErrorKind};
    /// let err = "not a cursor!".parse::<Cursor>().unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::MalformedCursor { .. }));
    /// ```
    #[must_use]
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// What a strict-mode error found, in its wire form: the items as
    /// JSON values (as [`serde_json::to_value`] writes them) and the
    /// disclosure unchanged. `None` for other errors, and for the end of a
    /// stream ([`stream_end`](Self::stream_end)).
    ///
    /// The items need not be `'static`, `Send` or `Sync`: they were
    /// serialized when the error was made. [`Bounded::to_json`] gives the
    /// wire JSON of what was found (object keys in the order of
    /// `serde_json::Map`: sorted, unless serde_json's `preserve_order`
    /// feature is on).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Limits, Total};
    /// use serde_json::json;
    /// let words = String::from("ant bee cat");
    /// // Borrowed items: `&str` slices of a local string.
    /// let err = Limits::new().limit(2).strict(true).collect(words.split(' ')).unwrap_err();
    /// let partial = err.partial().expect("strict errors keep what was found");
    /// assert_eq!(partial.items(), &[json!("ant"), json!("bee")]);
    /// assert_eq!(partial.total(), Total::AtLeast(3));
    /// ```
    #[must_use]
    pub fn partial(&self) -> Option<&Bounded<Value>> {
        match &self.0.partial {
            Some(Partial::Items(wire)) => Some(wire),
            Some(Partial::Stream(_)) | None => None,
        }
    }

    /// Decodes what a strict-mode error found as items of type `T`, with
    /// the disclosure unchanged; gives the error back when it holds no
    /// partial result or the items do not decode as `T`.
    ///
    /// Any type that reads the items' wire form will do: the type the
    /// query returned if it implements `Deserialize`, or an owned
    /// counterpart of borrowed items (`String` for `&str`).
    ///
    /// # Errors
    ///
    /// Returns `self` unchanged when it holds no partial result (see
    /// [`partial`](Self::partial)) or an item does not decode as `T`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// let err = Limits::new().limit(2).strict(true).collect(0..5u32).unwrap_err();
    /// // Not strings: the error comes back, partial result and all.
    /// let err = err.into_partial::<String>().unwrap_err();
    /// let partial = err.into_partial::<u32>().expect("strict errors keep the result");
    /// assert_eq!(partial.items(), &[0, 1]);
    /// ```
    pub fn into_partial<T: DeserializeOwned>(self) -> Result<Bounded<T>, Error> {
        let decoded = match &self.0.partial {
            Some(Partial::Items(wire)) => wire
                .items()
                .iter()
                .map(T::deserialize)
                .collect::<Result<Vec<T>, _>>()
                .ok()
                .map(|items| Bounded::assemble(items, wire.disclosure().clone())),
            Some(Partial::Stream(_)) | None => None,
        };
        decoded.ok_or(self)
    }

    /// Returns true when this error holds a partial result (strict mode):
    /// what was found ([`partial`](Self::partial)) or the end of a stream
    /// ([`stream_end`](Self::stream_end)).
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Limits::new().limit(0).strict(true).collect(0..1u8).unwrap_err();
    /// assert!(err.has_partial());
    /// ```
    #[must_use]
    pub fn has_partial(&self) -> bool {
        self.0.partial.is_some()
    }

    /// The strict-mode error for an incomplete result: it holds the
    /// result in its wire form. When an item fails to serialize, the
    /// error is that failure instead ([`ErrorKind::Serialize`]).
    pub(crate) fn incomplete<T: Serialize>(bounded: Bounded<T>) -> Error {
        let summary = incomplete_summary(bounded.disclosure(), bounded.len());
        let (items, disclosure) = bounded.into_parts();
        let items = match items
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<Vec<Value>, _>>()
        {
            Ok(items) => items,
            Err(source) => return ErrorKind::Serialize { source }.into(),
        };
        Error(Box::new(Inner {
            kind: ErrorKind::Incomplete { summary },
            partial: Some(Partial::Items(Bounded::assemble(items, disclosure))),
        }))
    }

    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    pub(crate) fn incomplete_stream(streamed: Streamed) -> Error {
        let summary = incomplete_summary(streamed.disclosure(), streamed.count());
        Error(Box::new(Inner {
            kind: ErrorKind::Incomplete { summary },
            partial: Some(Partial::Stream(streamed)),
        }))
    }

    /// The end of an incomplete stream in strict mode, if this error holds
    /// one (see [`Corpus::search_each`](crate::Corpus::search_each)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Corpus, Documents, Limits, Query};
    /// let docs = Documents::new().with("a.txt", "x\nx\nx\n");
    /// let limits = Limits::new().limit(1).strict(true);
    /// let err = docs.search_each(&Query::literal("x"), &limits, None, &mut |_| {}).unwrap_err();
    /// assert_eq!(err.stream_end().map(|s| s.count()), Some(1));
    /// assert!(err.partial().is_none());
    /// ```
    #[must_use]
    pub fn stream_end(&self) -> Option<&Streamed> {
        match &self.0.partial {
            Some(Partial::Stream(streamed)) => Some(streamed),
            Some(Partial::Items(_)) | None => None,
        }
    }

    pub(crate) fn invalid_argument(name: &'static str, reason: impl Into<String>) -> Error {
        ErrorKind::InvalidArgument {
            name,
            reason: reason.into(),
        }
        .into()
    }

    pub(crate) fn malformed_cursor(reason: impl Into<String>) -> Error {
        ErrorKind::MalformedCursor {
            reason: reason.into(),
        }
        .into()
    }

    pub(crate) fn cursor_out_of_range(reason: impl Into<String>) -> Error {
        ErrorKind::CursorOutOfRange {
            reason: reason.into(),
        }
        .into()
    }
}

fn incomplete_summary(disclosure: &Disclosure, len: usize) -> String {
    let total = disclosure.total();
    let start = disclosure.start();
    let span = match len {
        0 => format!("no items of {total}"),
        1 => format!("item {} of {total}", start + 1),
        _ => format!("items {}-{} of {total}", start + 1, start + len as u64),
    };
    match disclosure.completeness() {
        Completeness::Exact => {
            format!("{span} returned, but some inputs were skipped because of errors")
        }
        Completeness::TruncatedByLimit { limit, .. } => format!("{span} (limit {limit})"),
        Completeness::TruncatedByBudget { budget, .. } => format!(
            "{span} ({} budget of {} {} ran out)",
            budget.kind(),
            budget.max(),
            budget.kind().unit()
        ),
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error(Box::new(Inner {
            kind,
            partial: None,
        }))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("has_partial", &self.0.partial.is_some())
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.kind, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

/// The error of [`Bounded::into_exact`]: the result was not complete. It
/// still holds the whole result, items and disclosure.
///
/// # Example
///
/// ```
/// use candor::Limits;
/// let b = Limits::new().limit(2).collect(0..5u32)?;
/// let incomplete = b.into_exact().unwrap_err();
/// assert_eq!(incomplete.bounded().len(), 2);
/// let b = incomplete.into_bounded();
/// assert!(!b.is_complete());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Incomplete<T>(Box<Bounded<T>>);

impl<T> Incomplete<T> {
    pub(crate) fn new(bounded: Bounded<T>) -> Self {
        Incomplete(Box::new(bounded))
    }

    /// The incomplete result.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Limits::new().limit(1).collect(0..3u8)?.into_exact().unwrap_err();
    /// assert_eq!(err.bounded().items(), &[0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bounded(&self) -> &Bounded<T> {
        &self.0
    }

    /// Gives back the incomplete result.
    ///
    /// # Example
    ///
    /// ```
    /// let err = candor::Limits::new().limit(1).collect(0..3u8)?.into_exact().unwrap_err();
    /// assert_eq!(err.into_bounded().total(), candor::Total::AtLeast(2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_bounded(self) -> Bounded<T> {
        *self.0
    }
}

impl<T> fmt::Display for Incomplete<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "incomplete result: {}",
            incomplete_summary(b.disclosure(), b.len())
        )
    }
}

impl<T: fmt::Debug> std::error::Error for Incomplete<T> {}

/// The strict-mode error ([`ErrorKind::Incomplete`]) holding the result in
/// its wire form (see [`Error::partial`]); when an item fails to
/// serialize, the error is that failure ([`ErrorKind::Serialize`]).
impl<T: Serialize> From<Incomplete<T>> for Error {
    fn from(incomplete: Incomplete<T>) -> Error {
        Error::incomplete(*incomplete.0)
    }
}

//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

/// The error of every fallible call in candor.
///
/// It is opaque so that new kinds and fields are not breaking changes:
/// [`Error::kind`] says what went wrong. A truncated result is not an
/// error; to require the whole answer, see
/// [`Bounded::into_exact`](crate::Bounded::into_exact).
///
/// # Example
///
/// ```
/// use candor::{Bounded, ErrorKind, Limits};
///
/// let err = Bounded::collect(0..5u32, &Limits::new().max_bytes(10)).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::BudgetTooSmall { max_bytes: 10, .. }));
/// assert!(err.to_string().starts_with("max_bytes 10 is too small"));
/// ```
pub struct Error(Box<ErrorKind>);

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
    /// A cursor was issued against an earlier generation of the corpus, or
    /// the input a search or excerpt cursor resumes in changed since (a
    /// `Tree`'s file: a hash of its device, inode, size, modification and
    /// change times; `0` when it is gone), or a file was added or removed
    /// before that input, or the input its page listed left the walk
    /// (then both figures are hashes of the files the walk passes up to
    /// it, as recorded and as now).
    #[error(
        "stale cursor: what it recorded ({cursor_generation}) is now {current_generation}: the corpus's generation, the input it resumes in, or the files up to that input changed since; start again without it"
    )]
    StaleCursor {
        /// The generation (or the input's stamp) the cursor carries.
        cursor_generation: u64,
        /// The corpus's current generation (or the input's stamp now).
        current_generation: u64,
    },
    /// A cursor points outside the corpus or past the end of its input.
    #[error("cursor points outside the corpus: {reason}")]
    CursorOutOfRange {
        /// What it points at.
        reason: String,
    },
    /// A disclosure contradicts itself or its items (see
    /// [`Bounded::from_parts`](crate::Bounded::from_parts)).
    #[error("inconsistent disclosure: {reason}")]
    InvalidDisclosure {
        /// The rule broken.
        reason: String,
    },
    /// The byte budget cannot hold even the required fields of a response
    /// with no items. Both figures are in the units of the budget asked
    /// for: bytes of the JSON ([`Limits::max_bytes`](crate::Limits::max_bytes)),
    /// or of the response that encloses it
    /// ([`Limits::enclosing`](crate::Limits::enclosing)).
    #[error("max_bytes {max_bytes} is too small: the smallest response needs max_bytes {needed}")]
    BudgetTooSmall {
        /// The budget that was asked for.
        max_bytes: usize,
        /// The size of the smallest response this query can produce from
        /// what it had read when it stopped. A query given this budget
        /// reads further, and what it then finds can change the smallest
        /// response: more skipped inputs or a longer total make it longer
        /// (a retry with `needed` either fits or fails again with a larger
        /// `needed`), and an answer found to be complete, which needs no
        /// truncation note, can make a smaller budget enough.
        needed: usize,
    },
    /// A result transformed after its query (its items mapped to another
    /// shape) no longer fits the output-bytes budget it was cut to: its
    /// disclosure would state a size the response does not have. Both
    /// figures are in the units of the budget, as for `BudgetTooSmall`.
    #[error(
        "the transformed result is {size} bytes, over its max_bytes {max_bytes}: transform the items before they are collected, or give the query a smaller budget"
    )]
    OverBudget {
        /// The budget the result was cut to.
        max_bytes: usize,
        /// The transformed result's serialized size.
        size: usize,
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
    /// A path named by the caller as one file to read is a folder of the
    /// corpus.
    #[error("path {path:?} is a folder, not a file")]
    NotAFile {
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
    /// A file or folder could not be written: an index's files, on a
    /// full or read-only disk (feature `index` of the search).
    #[error("cannot write {path}")]
    Write {
        /// The path that failed.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// An index on disk cannot be used: missing, corrupt, truncated, of
    /// another format version, or built under other walk rules. It is
    /// never read as truth; rebuild it (feature `index`).
    #[error("unusable index {path}: {reason}")]
    UnusableIndex {
        /// The index's folder.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
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
        &self.0
    }

    /// An [`ErrorKind::InvalidArgument`]: the argument `name` of a query is
    /// wrong, and `reason` says why.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Error, ErrorKind};
    /// let err = Error::invalid_argument("glob", "unclosed class in \"[a-\"");
    /// assert!(matches!(err.kind(), ErrorKind::InvalidArgument { name: "glob", .. }));
    /// ```
    #[must_use]
    pub fn invalid_argument(name: &'static str, reason: impl Into<String>) -> Error {
        ErrorKind::InvalidArgument {
            name,
            reason: reason.into(),
        }
        .into()
    }

    /// An [`ErrorKind::MalformedCursor`]: a cursor's key does not decode
    /// as its query's keys do, and `reason` says how.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Error, ErrorKind};
    /// let err = Error::malformed_cursor("the path is not valid UTF-8");
    /// assert!(matches!(err.kind(), ErrorKind::MalformedCursor { .. }));
    /// ```
    #[must_use]
    pub fn malformed_cursor(reason: impl Into<String>) -> Error {
        ErrorKind::MalformedCursor {
            reason: reason.into(),
        }
        .into()
    }

    /// An [`ErrorKind::CursorOutOfRange`]: a well-formed cursor of this
    /// query points where its corpus has nothing (past a file's end, at a
    /// line that does not start there), and `reason` says where.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Error, ErrorKind};
    /// let err = Error::cursor_out_of_range("offset 900 is past the end of a.rs (120 bytes)");
    /// assert!(matches!(err.kind(), ErrorKind::CursorOutOfRange { .. }));
    /// ```
    #[must_use]
    pub fn cursor_out_of_range(reason: impl Into<String>) -> Error {
        ErrorKind::CursorOutOfRange {
            reason: reason.into(),
        }
        .into()
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error(Box::new(kind))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error").field("kind", &self.0).finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.0)
    }
}

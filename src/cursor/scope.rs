//! `Fingerprint` and `Scope`: which query, at which corpus generation, a
//! cursor belongs to; a scope issues cursors and resumes only its own.

use std::hash::{Hash, Hasher};

use super::codec::Fnv64;
use crate::error::{Error, ErrorKind};
use crate::{Cursor, CursorKey};

/// Identifies a query, so that a cursor resumes only the query that issued
/// it.
///
/// Built from anything that implements [`Hash`] with a stable hasher, so the
/// same query gives the same fingerprint in every process (on one platform
/// and version of candor). Put into it everything that changes the answer:
/// the query's text and options, not its limits.
///
/// # Example
///
/// ```
/// use candor::Fingerprint;
/// let a = Fingerprint::of(&("callers", "parse_header"));
/// let b = Fingerprint::of(&("callers", "parse_header"));
/// assert_eq!(a, b);
/// assert_ne!(a, Fingerprint::of(&("callers", "parse_body")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(u64);

impl Fingerprint {
    /// The fingerprint of `query`.
    ///
    /// # Example
    ///
    /// ```
    /// let f = candor::Fingerprint::of("references of Typography");
    /// assert_eq!(f, candor::Fingerprint::of("references of Typography"));
    /// ```
    #[must_use]
    pub fn of<Q: Hash + ?Sized>(query: &Q) -> Fingerprint {
        let mut hasher = Fnv64::new();
        query.hash(&mut hasher);
        Fingerprint(hasher.finish())
    }

    /// A fingerprint from a value computed elsewhere.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Fingerprint::from_u64(7).as_u64(), 7);
    /// ```
    #[must_use]
    pub fn from_u64(value: u64) -> Fingerprint {
        Fingerprint(value)
    }

    /// The fingerprint as a number.
    ///
    /// # Example
    ///
    /// ```
    /// let f = candor::Fingerprint::of(&42u8);
    /// assert_eq!(candor::Fingerprint::from_u64(f.as_u64()), f);
    /// ```
    #[must_use]
    pub fn as_u64(&self) -> u64 {
        self.0
    }
}

/// What a cursor is bound to: a query's [`Fingerprint`] and, where the
/// source has one, the generation of the corpus it ran on.
///
/// A scope issues cursors ([`Scope::cursor`]) and checks them
/// ([`Scope::resume`]): a cursor of another query is refused as foreign, one
/// of another corpus generation as stale, each with its own error.
///
/// # Example
///
/// ```
/// use candor::{ErrorKind, Fingerprint, Scope};
///
/// let scope = Scope::new(Fingerprint::of("callers of parse")).generation(7);
/// let cursor = scope.cursor(&(String::from("src/lib.rs"), 120u64), 0);
/// let key: (String, u64) = scope.resume(&cursor)?;
/// assert_eq!(key, ("src/lib.rs".to_string(), 120));
///
/// let later = Scope::new(Fingerprint::of("callers of parse")).generation(8);
/// let err = later.resume::<(String, u64)>(&cursor).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::StaleCursor { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scope {
    fingerprint: Fingerprint,
    generation: Option<u64>,
}

impl Scope {
    /// A scope for the query with this fingerprint, on a source without
    /// generations.
    ///
    /// # Example
    ///
    /// ```
    /// let scope = candor::Scope::new(candor::Fingerprint::of("q"));
    /// assert_eq!(scope.get_generation(), None);
    /// ```
    #[must_use]
    pub fn new(fingerprint: Fingerprint) -> Scope {
        Scope {
            fingerprint,
            generation: None,
        }
    }

    /// Binds cursors to this generation of the corpus as well; a cursor of
    /// another generation is refused as stale. Default: no generation.
    ///
    /// # Example
    ///
    /// ```
    /// let scope = candor::Scope::new(candor::Fingerprint::of("q")).generation(3);
    /// assert_eq!(scope.get_generation(), Some(3));
    /// ```
    #[must_use]
    pub fn generation(mut self, generation: u64) -> Scope {
        self.generation = Some(generation);
        self
    }

    /// The query's fingerprint (see [`new`](Self::new)).
    ///
    /// # Example
    ///
    /// ```
    /// let f = candor::Fingerprint::of("q");
    /// assert_eq!(candor::Scope::new(f).get_fingerprint(), f);
    /// ```
    #[must_use]
    pub fn get_fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The corpus generation, if the scope has one.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::Scope::new(candor::Fingerprint::of("q")).get_generation(), None);
    /// ```
    #[must_use]
    pub fn get_generation(&self) -> Option<u64> {
        self.generation
    }

    /// Issues a cursor that resumes this query at `key`, after `start`
    /// items of the full answer: the resumed page's
    /// [`Disclosure::start`](crate::Disclosure::start). What the key means
    /// (an offset, the last item's sort key) is the source's to decide.
    ///
    /// Cursors that candor's own queries return carry their start already;
    /// issue one yourself only for a result you build with
    /// [`Bounded::from_parts`](crate::Bounded::from_parts), which checks
    /// that the cursor's start is the page's `start` plus its item count.
    ///
    /// # Example
    ///
    /// ```
    /// let scope = candor::Scope::new(candor::Fingerprint::of("q"));
    /// let cursor = scope.cursor("parse_header", 20);
    /// assert_eq!(cursor.start(), 20);
    /// assert_eq!(scope.resume::<String>(&cursor)?, "parse_header");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn cursor<K: CursorKey + ?Sized>(&self, key: &K, start: u64) -> Cursor {
        let mut encoded = Vec::new();
        key.encode_key(&mut encoded);
        Cursor::build(
            self.fingerprint.0,
            self.generation,
            start,
            crate::SkipTally::default(),
            encoded,
        )
    }

    /// A cursor at `key` whose start is not known yet: the collector sets
    /// it ([`Cursor::at`]) before the cursor leaves the crate.
    pub(crate) fn unplaced<K: CursorKey + ?Sized>(&self, key: &K) -> Cursor {
        self.cursor(key, 0)
    }

    /// Checks that `cursor` belongs to this query and corpus generation and
    /// gives back its key.
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::ForeignCursor`] when it was issued by another query;
    /// - [`ErrorKind::StaleCursor`] when it was issued against another
    ///   generation of the corpus;
    /// - [`ErrorKind::MalformedCursor`] when its key is not a `K`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{ErrorKind, Fingerprint, Scope};
    /// let cursor = Scope::new(Fingerprint::of("a")).cursor(&1u64, 0);
    /// let err = Scope::new(Fingerprint::of("b")).resume::<u64>(&cursor).unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::ForeignCursor { .. }));
    /// ```
    pub fn resume<K: CursorKey>(&self, cursor: &Cursor) -> Result<K, Error> {
        if cursor.fingerprint != self.fingerprint.0 {
            return Err(ErrorKind::ForeignCursor {
                expected: self.fingerprint.0,
                found: cursor.fingerprint,
            }
            .into());
        }
        match (cursor.generation, self.generation) {
            (Some(c), Some(s)) if c != s => {
                return Err(ErrorKind::StaleCursor {
                    cursor_generation: c,
                    current_generation: s,
                }
                .into());
            }
            (None, Some(_)) | (Some(_), None) => {
                return Err(Error::malformed_cursor(
                    "cursor and query disagree on whether the corpus has generations",
                ));
            }
            _ => {}
        }
        let mut input = cursor.key.as_slice();
        let key = K::decode_key(&mut input)
            .ok_or_else(|| Error::malformed_cursor("its resume key does not decode"))?;
        if !input.is_empty() {
            return Err(Error::malformed_cursor(
                "trailing bytes after its resume key",
            ));
        }
        Ok(key)
    }
}

impl Cursor {
    /// The fingerprint of the query that issued the cursor.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Fingerprint, Scope};
    /// let f = Fingerprint::of("q");
    /// assert_eq!(Scope::new(f).cursor(&1u64, 0).fingerprint(), f);
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::from_u64(self.fingerprint)
    }
}

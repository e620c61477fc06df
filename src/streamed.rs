//! `Streamed`: the end of a stream, how many items were handed on
//! with the disclosure the collected form would carry.

use crate::disclosure::disclosure_getters;
use crate::{Completeness, Cursor, Disclosure, Skipped, Total};

/// The end of a stream (a streamed search, or any collection whose items
/// are handed on as they come): how many items were handed on, and the
/// same [`Disclosure`] the collected form would carry. To write the wire
/// shape of a stream, see [`JsonStream`](crate::JsonStream).
///
/// # Example
///
/// ```
/// use candor::collector::Collector;
/// use candor::{Fingerprint, Limits, Scope};
/// // A stream of line numbers, each handed on as it is kept (a search's
/// // `search_each` ends the same way).
/// let scope = Scope::new(Fingerprint::of("lines with fish"));
/// let mut collector = Collector::streaming(&Limits::new().limit(2));
/// let mut lines = Vec::new();
/// for line_number in [1u64, 2, 3] {
///     if collector.offer(line_number).is_break() {
///         break;
///     }
///     lines.extend(collector.last().copied());
/// }
/// let end = collector
///     .finish_parts(|kept| kept.last().map(|n| scope.cursor(n, 0)), None)?
///     .into_streamed();
/// assert_eq!(lines, vec![1, 2]);
/// assert_eq!(end.count(), 2);
/// assert!(!end.is_complete());
/// assert!(end.next_cursor().is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a stream may have been cut short; check `is_complete()`"]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    count: usize,
    disclosure: Disclosure,
}

impl Streamed {
    pub(crate) fn new(count: usize, disclosure: Disclosure) -> Streamed {
        debug_assert_eq!(
            disclosure.check(count),
            Ok(()),
            "a stream's end breaks a rule"
        );
        Streamed { count, disclosure }
    }

    /// How many items were handed on.
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{collector::Collector, Limits};
    /// // An empty stream's end.
    /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
    /// assert_eq!(end.count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    disclosure_getters! {
        /// See [`Bounded::completeness`](crate::Bounded::completeness).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert!(end.completeness().is_exact());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        completeness -> &Completeness;

        /// See [`Bounded::total`](crate::Bounded::total).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert_eq!(end.total(), candor::Total::Exact(0));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        total -> Total;

        /// See [`Bounded::next_cursor`](crate::Bounded::next_cursor).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert!(end.next_cursor().is_none());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        next_cursor -> Option<&Cursor>;

        /// See [`Bounded::skipped`](crate::Bounded::skipped).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert!(end.skipped().is_empty());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        skipped -> &Skipped;

        /// See [`Bounded::is_complete`](crate::Bounded::is_complete).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert!(end.is_complete());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        is_complete -> bool;

        /// See [`Bounded::start`](crate::Bounded::start).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert_eq!(end.start(), 0);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        start -> u64;

        /// See [`Bounded::skipped_so_far`](crate::Bounded::skipped_so_far).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert!(end.skipped_so_far().is_empty());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        skipped_so_far -> crate::SkipTally;

        /// See [`Bounded::total_cut_by`](crate::Bounded::total_cut_by).
        ///
        /// # Example
        ///
        /// ```
        /// # use candor::{collector::Collector, Limits};
        /// // An empty stream's end.
        /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
        /// assert_eq!(end.total_cut_by(), None);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        total_cut_by -> Option<crate::Budget>;
    }

    /// See [`Bounded::disclosure`](crate::Bounded::disclosure).
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{collector::Collector, Limits};
    /// // An empty stream's end.
    /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
    /// assert!(end.disclosure().is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disclosure(&self) -> &Disclosure {
        &self.disclosure
    }

    /// See [`Bounded::summary`](crate::Bounded::summary).
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::{collector::Collector, Limits};
    /// // An empty stream's end.
    /// let end = Collector::<u8>::streaming(&Limits::new()).finish_parts(|_| None, None)?.into_streamed();
    /// assert_eq!(end.summary("matches"), "Complete: 0 matches.");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn summary(&self, noun: &str) -> String {
        crate::summary::summary_line(&self.disclosure, self.count, noun)
    }
}

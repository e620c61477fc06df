//! `Disclosure`: everything a result says besides its items, and
//! `Disclosure::check`, the one place the rules of the contract are stated.

use crate::note::NoteForm;
use crate::{BudgetKind, Completeness, Cursor, Skipped, Total};

/// Everything a [`Bounded`](crate::Bounded) says besides its items: the [`Completeness`],
/// the [`Total`], where the page starts, the cursor to resume from and what
/// was [`Skipped`]. [`Bounded::into_parts`](crate::Bounded::into_parts) hands it over with the items,
/// and [`Bounded::from_parts`](crate::Bounded::from_parts) builds a result from the two.
///
/// Setters take and return the value and start with `with_`; getters
/// carry the plain name.
///
/// # Example
///
/// ```
/// let (items, disclosure) = candor::Bounded::collect(0..5u8, &candor::Limits::new().limit(2))?.into_parts();
/// assert_eq!(items, vec![0, 1]);
/// assert!(!disclosure.is_complete());
/// assert_eq!(disclosure.total(), candor::Total::AtLeast(3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "the disclosure says whether the items are all of the answer"]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disclosure {
    completeness: Completeness,
    total: Total,
    start: u64,
    next_cursor: Option<Cursor>,
    skipped: Skipped,
    /// Which form of the truncation note the wire carries: a tight byte
    /// budget shortens or drops it.
    note: NoteForm,
}

impl Disclosure {
    /// A disclosure for a first page: `completeness` and `total`, no
    /// cursor, nothing skipped. Add the rest with the `with_` setters; the
    /// rules are checked when the disclosure meets its items, in
    /// [`Bounded::from_parts`](crate::Bounded::from_parts).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Completeness, Disclosure, Total};
    /// let d = Disclosure::new(Completeness::Exact, Total::Exact(2));
    /// let b = Bounded::from_parts(vec!['a', 'b'], d)?;
    /// assert!(b.is_complete());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(completeness: Completeness, total: Total) -> Disclosure {
        Disclosure {
            completeness,
            total,
            start: 0,
            next_cursor: None,
            skipped: Skipped::new(),
            note: NoteForm::Full,
        }
    }

    /// How many items of the full answer come before this page. Default: 0.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Completeness, Disclosure, Total};
    /// let d = Disclosure::new(Completeness::Exact, Total::Exact(25)).with_start(20);
    /// assert_eq!(d.start(), 20);
    /// ```
    pub fn with_start(mut self, start: u64) -> Disclosure {
        self.start = start;
        self
    }

    /// Where to resume. Default: none. Its [`Cursor::start`] must be the
    /// page's `start` plus its item count: issue it with
    /// [`Scope::cursor`](crate::Scope::cursor).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Completeness, Disclosure, Fingerprint, Scope, Total};
    /// let cursor = Scope::new(Fingerprint::of("q")).cursor(&10u64, 10);
    /// let d = Disclosure::new(Completeness::TruncatedByLimit { limit: 10, requested: None }, Total::AtLeast(11))
    ///     .with_next_cursor(cursor);
    /// assert_eq!(d.next_cursor().map(|c| c.start()), Some(10));
    /// ```
    pub fn with_next_cursor(mut self, cursor: Cursor) -> Disclosure {
        self.next_cursor = Some(cursor);
        self
    }

    /// What was not searched. Default: nothing.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Completeness, Disclosure, SkipReason, Skipped, SkippedInput, Total};
    /// let mut skipped = Skipped::new();
    /// skipped.record(SkippedInput::new("shard-3", SkipReason::Unreadable));
    /// let d = Disclosure::new(Completeness::Exact, Total::Exact(0)).with_skipped(skipped);
    /// assert!(!d.is_complete()); // an input failed
    /// ```
    pub fn with_skipped(mut self, skipped: Skipped) -> Disclosure {
        self.skipped = skipped;
        self
    }

    /// See [`Bounded::completeness`](crate::Bounded::completeness).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.completeness().is_exact());
    /// ```
    #[must_use]
    pub fn completeness(&self) -> &Completeness {
        &self.completeness
    }

    /// See [`Bounded::total`](crate::Bounded::total).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert_eq!(d.total(), candor::Total::Exact(1));
    /// ```
    #[must_use]
    pub fn total(&self) -> Total {
        self.total
    }

    /// See [`Bounded::start`](crate::Bounded::start).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert_eq!(d.start(), 0);
    /// ```
    #[must_use]
    pub fn start(&self) -> u64 {
        self.start
    }

    /// See [`Bounded::next_cursor`](crate::Bounded::next_cursor).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.next_cursor().is_none());
    /// ```
    #[must_use]
    pub fn next_cursor(&self) -> Option<&Cursor> {
        self.next_cursor.as_ref()
    }

    /// See [`Bounded::skipped`](crate::Bounded::skipped).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.skipped().is_empty());
    /// ```
    #[must_use]
    pub fn skipped(&self) -> &Skipped {
        &self.skipped
    }

    /// True when the result is exact and no input was skipped because of an
    /// error. Inputs left out by policy (binary, too large) do not count.
    /// This is the wire shape's `complete`, and every other type's
    /// `is_complete` asks this one.
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.is_complete());
    /// ```
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.completeness.is_exact() && !self.skipped.has_errors()
    }

    pub(crate) fn note(&self) -> NoteForm {
        self.note
    }

    pub(crate) fn set_note(&mut self, note: NoteForm) {
        self.note = note;
    }

    pub(crate) fn skipped_mut(&mut self) -> &mut Skipped {
        &mut self.skipped
    }

    pub(crate) fn set_completeness(&mut self, completeness: Completeness) {
        self.completeness = completeness;
    }

    pub(crate) fn set_next_cursor(&mut self, cursor: Option<Cursor>) {
        self.next_cursor = cursor;
    }

    /// Checks the rules every result obeys, for a page of `count` items.
    /// The reason names the rule broken.
    pub(crate) fn check(&self, count: usize) -> Result<(), String> {
        let count = count as u64;
        let end = self
            .start
            .checked_add(count)
            .ok_or("start + count overflows")?;
        let total = self.total.value();
        if total < end {
            return Err(format!(
                "total {total} is below count {count} plus start {}",
                self.start
            ));
        }
        match &self.completeness {
            Completeness::Exact => {
                if self.total != Total::Exact(end) {
                    return Err(format!(
                        "an exact result must have an exact total of start + count ({end}), not {}",
                        self.total
                    ));
                }
                if self.next_cursor.is_some() {
                    return Err(
                        "an exact result has no next_cursor: nothing is left to resume".into(),
                    );
                }
            }
            Completeness::TruncatedByLimit { limit, requested } => {
                if count > *limit as u64 {
                    return Err(format!("count {count} is above the limit {limit}"));
                }
                if requested.is_some_and(|r| r <= *limit) {
                    return Err(
                        "requested is only present when it is above the limit applied".into(),
                    );
                }
            }
            Completeness::TruncatedByBudget { budget, clamp } => {
                if budget.kind() == BudgetKind::OutputBytes && budget.used() > budget.max() {
                    return Err("an output-bytes budget cannot have used more than its max".into());
                }
                if let Some(clamp) = clamp {
                    if clamp.requested() <= clamp.limit() {
                        return Err(
                            "requested is only present when it is above the limit applied".into(),
                        );
                    }
                    if count > clamp.limit() as u64 {
                        return Err(format!(
                            "count {count} is above the limit {}",
                            clamp.limit()
                        ));
                    }
                }
            }
        }
        if self.completeness.proves_more() && total <= end {
            return Err(format!(
                "a result cut by its limit or output budget must have a total above start + count ({end})"
            ));
        }
        if let Some(cursor) = &self.next_cursor {
            if cursor.start() != end {
                return Err(format!(
                    "next_cursor resumes after item {}, but this page ends after item {end}",
                    cursor.start()
                ));
            }
        }
        self.skipped.check()
    }
}

/// Defines, on a type with a `disclosure` field, getters that answer from
/// its [`Disclosure`], each with the docs given: `Bounded` and `Streamed`
/// read their disclosure through this one definition.
macro_rules! disclosure_getters {
    ($($(#[$attr:meta])* $name:ident -> $ret:ty;)*) => {
        $(
            $(#[$attr])*
            #[must_use]
            pub fn $name(&self) -> $ret {
                self.disclosure.$name()
            }
        )*
    };
}

pub(crate) use disclosure_getters;

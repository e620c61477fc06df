//! `Disclosure`: everything a result says besides its items, and
//! `Disclosure::check`, the one place the rules of the contract are stated.

use crate::{
    AsOf, Budget, BudgetKind, Clamp, Completeness, Cursor, Enclosing, SkipTally, Skipped, Total,
};

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
#[derive(Debug, Clone)]
pub struct Disclosure {
    completeness: Completeness,
    total: Total,
    start: u64,
    next_cursor: Option<Cursor>,
    skipped: Skipped,
    /// What the pages before this one skipped (from the cursor it
    /// resumed from).
    skipped_before: SkipTally,
    /// The budget that cut the count past the limit, when an exact total
    /// was asked for: the total is then a lower bound.
    total_cut_by: Option<Budget>,
    /// The items are some of the answer's items after `start`, not the
    /// first ones (a cluster whose shards each returned what they found
    /// before a time-out).
    subset: bool,
    /// A budget stopped the result when the item limit had been reached
    /// as well: item `limit + 1` was found.
    limit_reached: Option<usize>,
    /// Which form of the truncation note the wire carries: a tight byte
    /// budget shortens or drops it.
    note: NoteForm,
    /// The note's text when the source wrote its own.
    note_text: Option<String>,
    /// The answer trusts an index without checking the inputs: as of
    /// when.
    as_of: Option<AsOf>,
    /// The output-bytes budget the page was fitted to, if any, in bytes
    /// of JSON, with the response that encloses it: not part of what the
    /// result says (nor of its equality), but what a transformation of
    /// its items must keep to.
    fitted_to: Option<(usize, Option<Enclosing>)>,
}

impl PartialEq for Disclosure {
    fn eq(&self, other: &Disclosure) -> bool {
        self.completeness == other.completeness
            && self.total == other.total
            && self.start == other.start
            && self.next_cursor == other.next_cursor
            && self.skipped == other.skipped
            && self.skipped_before == other.skipped_before
            && self.total_cut_by == other.total_cut_by
            && self.subset == other.subset
            && self.limit_reached == other.limit_reached
            && self.note == other.note
            && self.note_text == other.note_text
            && self.as_of == other.as_of
    }
}

impl Eq for Disclosure {}

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
            skipped_before: SkipTally::default(),
            total_cut_by: None,
            subset: false,
            limit_reached: None,
            note: NoteForm::Full,
            note_text: None,
            as_of: None,
            fitted_to: None,
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

    /// What the pages before this one skipped, as the cursor it resumed
    /// from carries it ([`Cursor::skipped_before`]): with this page's own
    /// skips, what the walk skipped so far
    /// ([`skipped_so_far`](Self::skipped_so_far)). Default: nothing.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Completeness, Disclosure, SkipTally, Total};
    /// let d = Disclosure::new(Completeness::Exact, Total::Exact(30))
    ///     .with_start(20)
    ///     .with_skipped_before(SkipTally::new(386, 0));
    /// assert_eq!(d.skipped_so_far().total(), 386);
    /// ```
    pub fn with_skipped_before(mut self, skipped: SkipTally) -> Disclosure {
        self.skipped_before = skipped;
        self
    }

    /// Says that the count past the limit, asked for to make the total
    /// exact ([`Limits::count_total`](crate::Limits::count_total)), was
    /// cut by `budget` (the deadline, a cancellation, the count budget,
    /// the scanned bytes or the files): the total is a lower bound, and
    /// more time or a larger budget, not a narrower query, gives the
    /// exact one. Only for a truncated result with a lower-bound total.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Budget, BudgetKind, Completeness, Disclosure, Total};
    /// let cut = Completeness::TruncatedByLimit { limit: 2, requested: None };
    /// let d = Disclosure::new(cut, Total::AtLeast(5461))
    ///     .with_total_cut_by(Budget::new(BudgetKind::Deadline, 500, 503));
    /// let b = Bounded::from_parts(vec![1, 2], d)?;
    /// assert_eq!(b.total_cut_by().map(|b| b.kind()), Some(BudgetKind::Deadline));
    /// assert!(b.summary("matches").contains("500 ms deadline"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_total_cut_by(mut self, budget: Budget) -> Disclosure {
        self.total_cut_by = Some(budget);
        self
    }

    /// Says that the items are a subset of the answer's items after
    /// `start`, not the first ones: a source that cannot give a prefix (a
    /// search cluster whose shards each return what they found before a
    /// time-out) says so. Such a result is truncated and has no cursor,
    /// since resuming after its last item could skip items for good; its
    /// note says what will help (more time, a narrower query). Default:
    /// the items are a prefix.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Budget, BudgetKind, Bounded, Completeness, Disclosure, Total};
    /// // Every shard returned what it found within 500 ms.
    /// let deadline = Completeness::TruncatedByBudget {
    ///     budget: Budget::new(BudgetKind::Deadline, 500, 512),
    ///     clamp: None,
    /// };
    /// let d = Disclosure::new(deadline, Total::AtLeast(2)).with_subset();
    /// let b = Bounded::from_parts(vec!["a.rs", "z.rs"], d)?;
    /// assert!(b.is_subset());
    /// assert!(b.summary("hits").contains("subset"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_subset(mut self) -> Disclosure {
        self.subset = true;
        self
    }

    /// Says that a budget stopped the result when the item limit `limit`
    /// had been reached as well (item `limit + 1` was found): both stops
    /// are stated. Only for a result stopped by a budget; its page holds
    /// `limit` items and its total is above them.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Budget, BudgetKind, Bounded, Completeness, Disclosure, Total};
    /// // A cluster timed out, and still returned `limit + 1` hits.
    /// let deadline = Completeness::TruncatedByBudget {
    ///     budget: Budget::new(BudgetKind::Deadline, 500, 512),
    ///     clamp: None,
    /// };
    /// let d = Disclosure::new(deadline, Total::AtLeast(3)).with_limit_reached(2).with_subset();
    /// let b = Bounded::from_parts(vec![1, 2], d)?;
    /// assert_eq!(b.disclosure().limit_reached(), Some(2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_limit_reached(mut self, limit: usize) -> Disclosure {
        self.limit_reached = Some(limit);
        self
    }

    /// The note written for the reader, in place of candor's own: what
    /// stopped the result and what will (and will not) help, in the
    /// source's words. A tight byte budget still shortens it to candor's
    /// short note, then drops it. Only a truncated result has a note.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{Bounded, Completeness, Disclosure, Total};
    /// let cut = Completeness::TruncatedByLimit { limit: 1, requested: None };
    /// let d = Disclosure::new(cut, Total::AtLeast(2))
    ///     .with_note("Stopped at 1 hit; ask the cluster for a larger size.");
    /// let b = Bounded::from_parts(vec![7], d)?;
    /// assert!(b.to_json()?.contains("ask the cluster for a larger size"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_note(mut self, note: impl Into<String>) -> Disclosure {
        self.note_text = Some(note.into());
        self
    }

    /// Returns true when the items are a subset of the answer's items
    /// after `start`, not the first ones (see
    /// [`with_subset`](Self::with_subset)).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(!d.is_subset());
    /// ```
    #[must_use]
    pub fn is_subset(&self) -> bool {
        self.subset
    }

    /// The item limit, when it was reached as well as the budget that
    /// stopped the result (see [`with_limit_reached`](Self::with_limit_reached)).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert_eq!(d.limit_reached(), None);
    /// ```
    #[must_use]
    pub fn limit_reached(&self) -> Option<usize> {
        self.limit_reached
    }

    /// Returns true when the stops prove that at least one more item
    /// exists beyond those returned: the item limit or the output-bytes
    /// budget stopped the result, or the limit was reached as well as
    /// another budget (see [`Completeness::proves_more`]).
    ///
    /// # Example
    ///
    /// ```
    /// let b = candor::Bounded::collect(0..5u8, &candor::Limits::new().limit(2))?;
    /// assert!(b.disclosure().proves_more());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn proves_more(&self) -> bool {
        self.completeness.proves_more() || self.limit_reached.is_some()
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

    /// Says that the answer trusts an index without checking the inputs
    /// themselves, and as of when: inputs changed since may be missing
    /// from it, or answered as they were. Default: none, the answer is
    /// about the inputs as they are when asked.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{AsOf, Completeness, Disclosure, Total};
    /// let d = Disclosure::new(Completeness::Exact, Total::Exact(0))
    ///     .with_as_of(AsOf::from_unix_ms(1_764_759_900_123));
    /// assert_eq!(d.as_of().map(|t| t.to_string()).as_deref(), Some("2025-12-03T11:05:00.123Z"));
    /// assert!(d.is_complete(), "complete as of then");
    /// ```
    pub fn with_as_of(mut self, as_of: AsOf) -> Disclosure {
        self.as_of = Some(as_of);
        self
    }

    /// When the inputs were as the answer describes them, for an answer
    /// that trusts an index without checking them (see
    /// [`with_as_of`](Disclosure::with_as_of)); `None` for an answer about
    /// the inputs as they are when asked.
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert_eq!(d.as_of(), None);
    /// ```
    #[must_use]
    pub fn as_of(&self) -> Option<AsOf> {
        self.as_of
    }

    pub(crate) fn set_as_of(&mut self, as_of: Option<AsOf>) {
        self.as_of = as_of;
    }

    /// What the walk skipped so far: this page's skips and those of the
    /// pages before it (see [`with_skipped_before`](Self::with_skipped_before)).
    /// On a first page, this page's; on the last page of a walk, all it
    /// skipped, each input once.
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert!(d.skipped_so_far().is_empty());
    /// ```
    #[must_use]
    pub fn skipped_so_far(&self) -> SkipTally {
        self.skipped_before + self.skipped.tally()
    }

    /// What the pages before this one skipped.
    pub(crate) fn skipped_before(&self) -> SkipTally {
        self.skipped_before
    }

    /// The budget that cut the count of the total, when an exact total
    /// was asked for and the count did not finish (see
    /// [`with_total_cut_by`](Self::with_total_cut_by)).
    ///
    /// # Example
    ///
    /// ```
    /// let (_, d) = candor::Bounded::exact(vec![1u8]).into_parts();
    /// assert_eq!(d.total_cut_by(), None);
    /// ```
    #[must_use]
    pub fn total_cut_by(&self) -> Option<Budget> {
        self.total_cut_by
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

    /// The output-bytes budget the page was fitted to, if any, in bytes
    /// of JSON, with the response that encloses it.
    pub(crate) fn fitted_to(&self) -> Option<(usize, Option<Enclosing>)> {
        self.fitted_to
    }

    pub(crate) fn set_fitted_to(&mut self, max_bytes: usize, enclosing: Option<Enclosing>) {
        self.fitted_to = Some((max_bytes, enclosing));
    }

    /// The source's own note, if it wrote one.
    pub(crate) fn note_text(&self) -> Option<&str> {
        self.note_text.as_deref()
    }

    pub(crate) fn set_note(&mut self, note: NoteForm) {
        self.note = note;
    }

    pub(crate) fn skipped_mut(&mut self) -> &mut Skipped {
        &mut self.skipped
    }

    pub(crate) fn set_total(&mut self, total: Total) {
        self.total = total;
    }

    pub(crate) fn set_completeness(&mut self, completeness: Completeness) {
        self.completeness = completeness;
    }

    pub(crate) fn set_next_cursor(&mut self, cursor: Option<Cursor>) {
        self.next_cursor = cursor;
    }

    /// Checks the rules every result obeys, for a page of `count` items:
    /// every disclosure that no honest query could produce is refused. The
    /// reason names the rule broken.
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
            Completeness::Exact => self.check_exact(end)?,
            Completeness::TruncatedByLimit { limit, requested } => {
                self.check_limit_stop(count, *limit, *requested)?;
            }
            Completeness::TruncatedByBudget { budget, clamp } => {
                self.check_budget_stop(count, budget, clamp.as_ref())?;
            }
        }
        if self.completeness.is_truncated() && self.total == Total::Exact(end) {
            return Err(format!(
                "a truncated result cannot have an exact total of start + count ({end}): nothing would be missing"
            ));
        }
        if self.proves_more() && total <= end {
            return Err(format!(
                "a result cut by its limit or output budget must have a total above start + count ({end})"
            ));
        }
        if self
            .note_text
            .as_deref()
            .is_some_and(|n| n.trim().is_empty())
        {
            return Err("a note says something: it is not empty".into());
        }
        self.check_total_cut_by()?;
        if self.subset && self.next_cursor.is_some() {
            return Err(
                "a subset has no next_cursor: resuming after its last item could skip items".into(),
            );
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

    /// The rules of an exact result ending after item `end`.
    fn check_exact(&self, end: u64) -> Result<(), String> {
        if self.total != Total::Exact(end) {
            return Err(format!(
                "an exact result must have an exact total of start + count ({end}), not {}",
                self.total
            ));
        }
        if self.next_cursor.is_some() {
            return Err("an exact result has no next_cursor: nothing is left to resume".into());
        }
        if self.subset || self.limit_reached.is_some() || self.note_text.is_some() {
            return Err("an exact result is neither a subset nor stopped, and has no note".into());
        }
        Ok(())
    }

    /// The rules of a result of `count` items cut by its `limit`.
    fn check_limit_stop(
        &self,
        count: u64,
        limit: usize,
        requested: Option<usize>,
    ) -> Result<(), String> {
        // The limit stops only once item `limit + 1` is found, so
        // the page holds the limit's items; an items-per-page cap
        // that left fewer was another stop.
        if count != limit as u64 {
            return Err(format!(
                "a result cut by its limit of {limit} holds {limit} items, not {count}"
            ));
        }
        if requested.is_some_and(|r| r <= limit) {
            return Err("requested is only present when it is above the limit applied".into());
        }
        if self.limit_reached.is_some() {
            return Err(
                "limit_reached states a limit beside a budget; a limit stop states its own".into(),
            );
        }
        Ok(())
    }

    /// The rules of a result of `count` items stopped by `budget`, under
    /// the limit `clamp` if any.
    fn check_budget_stop(
        &self,
        count: u64,
        budget: &Budget,
        clamp: Option<&Clamp>,
    ) -> Result<(), String> {
        if budget.kind() == BudgetKind::Counted {
            return Err(
                "the count budget cuts only the count of the total, never the items".into(),
            );
        }
        if budget.kind() == BudgetKind::OutputBytes && budget.used() > budget.max() {
            return Err("an output-bytes budget cannot have used more than its max".into());
        }
        if budget.kind() == BudgetKind::Cancelled && (budget.max(), budget.used()) != (0, 0) {
            return Err("a cancellation has no max nor used (both 0)".into());
        }
        if let Some(needed) = budget.needed() {
            if budget.kind() != BudgetKind::OutputBytes || needed <= budget.max() {
                return Err(format!(
                    "needed ({needed}) is stated only by an output-bytes budget it is above"
                ));
            }
            if count > 0 {
                return Err("needed is stated only by a page that holds no item".into());
            }
        }
        if let Some(clamp) = clamp {
            if clamp.requested() <= clamp.limit() {
                return Err("requested is only present when it is above the limit applied".into());
            }
            if count > clamp.limit() as u64 {
                return Err(format!(
                    "count {count} is above the limit {}",
                    clamp.limit()
                ));
            }
        }
        if let Some(limit) = self.limit_reached {
            if count != limit as u64 {
                return Err(format!(
                    "a result that reached its limit of {limit} holds {limit} items, not {count}"
                ));
            }
            if clamp.is_some_and(|c| c.limit() != limit) {
                return Err("limit_reached and the clamp name different limits".into());
            }
        }
        Ok(())
    }

    /// The rules of `total_cut_by`: a budget that cut the count of a
    /// lower-bound total.
    fn check_total_cut_by(&self) -> Result<(), String> {
        if let Some(cut) = self.total_cut_by {
            if self.completeness.is_exact() || self.total.is_exact() {
                return Err(
                    "total_cut_by is stated only by a truncated result whose total is a lower bound"
                        .into(),
                );
            }
            if matches!(cut.kind(), BudgetKind::OutputBytes | BudgetKind::Shard) {
                return Err(format!(
                    "a count is cut by the deadline, a cancellation or a work budget, not {}",
                    cut.kind()
                ));
            }
            if cut.kind() == BudgetKind::Cancelled && (cut.max(), cut.used()) != (0, 0) {
                return Err("a cancellation has no max nor used (both 0)".into());
            }
            if cut.needed().is_some() {
                return Err("needed is stated only by an output-bytes budget".into());
            }
        }
        Ok(())
    }
}

/// Which form of `truncation.note` a response carries. A tight byte budget
/// shortens the note, then leaves it out, before it drops the last item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum NoteForm {
    /// The full sentence: what stopped, how to get the rest, what will not help.
    Full,
    /// A few words: whether more exist, and the cursor.
    Short,
    /// No note.
    Omitted,
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

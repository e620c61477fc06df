//! The collector: where every stop of a query is decided, for engines
//! built on candor.
//!
//! A [`Collector`] takes the items of an answer in the answer's order and
//! decides, item by item, whether to keep going: the item limit stops
//! only when item `limit + 1` is offered (so an answer of exactly `limit`
//! items is exact), the byte budget is checked against the exact size of
//! the response as items arrive, and the deadline and the cancellation
//! are read where the engine asks. At the end, [`Collector::finish`]
//! fits the result to the byte budget (the optional parts of the
//! disclosure yield before items do) and writes the disclosure: the
//! total, where the page starts, the cursor, what was skipped. Every
//! result it gives is checked against the contract's rules
//! (as [`Bounded::from_parts`](crate::Bounded::from_parts) checks them)
//! before it leaves.
//!
//! [`Bounded::collect`](crate::Bounded::collect),
//! [`Bounded::page`](crate::Bounded::page),
//! [`Bounded::merge`](crate::Bounded::merge) and the search engine of
//! `candor-search` all drive one. An engine of your own drives it the same
//! way: offer the items in order, record inputs it left out with
//! [`Collector::skip`], stop on its own budgets with
//! [`Collector::stop_with`], and count past the limit with a [`Count`]
//! when an exact total is asked for.
//!
//! # Example
//!
//! ```
//! use candor::collector::Collector;
//! use candor::{Fingerprint, Limits, Scope, SkipReason, SkippedInput, Total};
//!
//! let limits = Limits::new().limit(2);
//! let scope = Scope::new(Fingerprint::of("words with an e"));
//! let mut collector = Collector::new(&limits);
//! // An input the engine left out, where it comes in the answer's order.
//! collector.skip(SkippedInput::new("dictionary.bin", SkipReason::Binary));
//! for (n, word) in ["one", "two", "three", "eleven"].into_iter().enumerate() {
//!     if !word.contains('e') {
//!         continue;
//!     }
//!     if collector.offer((n, word)).is_break() {
//!         break; // item 3 exists: the page is full, and truncated
//!     }
//! }
//! // The cursor resumes after the last item kept; the collector sets its start.
//! let page = collector.finish(|kept| kept.last().map(|(n, _)| scope.cursor(n, 0)), None)?;
//! assert_eq!(page.items(), &[(0, "one"), (2, "three")]);
//! assert_eq!(page.total(), Total::AtLeast(3));
//! assert_eq!(page.next_cursor().map(|c| c.start()), Some(2));
//! assert_eq!(page.skipped().total(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod count;
mod fit;
mod skips;

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::clock::Clock;
use crate::envelope::{Stated, envelope_len, json_len};
use crate::error::Error;
use crate::{
    AsOf, Bounded, Budget, BudgetKind, CancelToken, Clamp, Completeness, Cursor, Disclosure,
    Enclosing, Limits, SkipTally, Skipped, SkippedInput, Streamed, Total,
};
pub use count::Count;
use fit::{Fitting, output_bytes};
use skips::SkipLog;

fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn digits_u64(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Takes the items of an answer in order, and decides when to stop.
///
/// Built from the query's [`Limits`] ([`Collector::new`], or
/// [`Collector::resuming`] a cursor), fed with [`offer`](Collector::offer),
/// and ended with [`finish`](Collector::finish). See the [module
/// docs](self) for an example.
pub struct Collector<T> {
    items: Vec<T>,
    /// The JSON size of each kept item, when there is a byte budget.
    sizes: Vec<usize>,
    /// The JSON size of the kept items with their separating commas.
    item_bytes: usize,
    limit: Option<usize>,
    requested: Option<usize>,
    max_bytes: Option<usize>,
    /// The response that encloses the JSON, in whose units the figures of
    /// `max_bytes` are stated.
    enclosing: Option<Enclosing>,
    /// The size of the smallest exact envelope with a count of 0, cached
    /// with the number of skipped inputs it was measured with.
    envelope_base: Option<(u64, usize)>,
    stop: Option<Completeness>,
    /// Items of the full answer before this page (from the cursor).
    start: u64,
    /// What the pages before this one skipped (from the cursor).
    skipped_before: SkipTally,
    /// The budget that cut a count past the limit.
    count_cut: Option<Budget>,
    /// Items known to exist from `start` on: kept, plus the probe that
    /// proved truncation.
    seen: u64,
    /// The skips met, each after how many items were kept.
    skips: SkipLog,
    /// The deadline's clock; `None` without a deadline.
    clock: Option<Arc<dyn Clock>>,
    /// When the query started; read only when there is a deadline.
    started: Option<Instant>,
    deadline: Option<Duration>,
    cancel: Option<CancelToken>,
    error: Option<Error>,
    /// Items kept so far; with `discard`, only the last stays in `items`.
    kept: usize,
    /// Streaming: items are handed on and not retained.
    discard: bool,
    /// The first item, with its JSON size, when the byte budget refused it.
    refused: Option<(T, usize)>,
    /// The answer trusts an index as of this time (see
    /// [`Disclosure::with_as_of`]).
    as_of: Option<AsOf>,
}

/// A finished collection, checked against the contract's rules: the
/// items kept and their disclosure, before they become a [`Bounded`] (or,
/// for a stream whose items were handed on as they came, a [`Streamed`]).
///
/// # Example
///
/// ```
/// use candor::collector::Collector;
/// use candor::Limits;
/// let mut collector = Collector::streaming(&Limits::new().limit(2));
/// for n in 0..5u32 {
///     if collector.offer(n).is_break() {
///         break;
///     }
/// }
/// let finished = collector.finish_parts(|_| None, None)?;
/// assert_eq!(finished.kept(), 2); // handed on; only the last is retained
/// let end = finished.into_streamed();
/// assert_eq!(end.count(), 2);
/// assert!(!end.is_complete());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Finished<T> {
    items: Vec<T>,
    kept: usize,
    disclosure: Disclosure,
}

impl<T> Finished<T> {
    /// How many items the collection kept: the page's count (for a
    /// streaming collector, how many were handed on).
    #[must_use]
    pub fn kept(&self) -> usize {
        self.kept
    }

    /// The items retained: all those kept, or for a streaming collector
    /// the last one at most.
    #[must_use]
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// The disclosure written for the kept items.
    pub fn disclosure(&self) -> &Disclosure {
        &self.disclosure
    }

    /// The result: the items kept, with their disclosure.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidDisclosure`](crate::ErrorKind::InvalidDisclosure)
    /// for a streaming collection, whose items were handed on as they came:
    /// the one item it retains is not the page its disclosure counts. End a
    /// stream with [`into_streamed`](Finished::into_streamed).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collected = Collector::new(&Limits::new());
    /// let mut streamed = Collector::streaming(&Limits::new());
    /// for n in 0..3u32 {
    ///     let _ = collected.offer(n);
    ///     let _ = streamed.offer(n);
    /// }
    /// assert_eq!(collected.finish_parts(|_| None, None)?.into_bounded()?.len(), 3);
    /// assert!(streamed.finish_parts(|_| None, None)?.into_bounded().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_bounded(self) -> Result<Bounded<T>, Error> {
        Bounded::from_parts(self.items, self.disclosure)
    }

    /// The items retained and their disclosure, apart.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::new(&Limits::new());
    /// assert!(collector.offer("a").is_continue());
    /// let (items, disclosure) = collector.finish_parts(|_| None, None)?.into_parts();
    /// assert_eq!((items, disclosure.completeness().is_exact()), (vec!["a"], true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_parts(self) -> (Vec<T>, Disclosure) {
        (self.items, self.disclosure)
    }

    /// The end of a stream: how many items were handed on, and their
    /// disclosure.
    pub fn into_streamed(self) -> Streamed {
        Streamed::new(self.kept, self.disclosure)
    }
}

impl<T: Serialize> Collector<T> {
    /// A collector for a query under `limits`, on a first page.
    ///
    /// The limit in force is `limits`' after the clamp
    /// ([`Limits::applied_limit`]); the byte budget is
    /// [`Limits::get_max_bytes`]; the deadline starts now, on `limits`'
    /// clock; the cancellation is `limits`' token.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Limits, Total};
    /// let mut collector = Collector::new(&Limits::new().limit(3));
    /// for n in 0..3u32 {
    ///     assert!(collector.offer(n).is_continue());
    /// }
    /// // Exactly `limit` items: exact, not truncated (no item 4 was offered).
    /// let page = collector.finish(|_| None, None)?;
    /// assert!(page.is_complete());
    /// assert_eq!(page.total(), Total::Exact(3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn new(limits: &Limits) -> Collector<T> {
        let applied = limits.applied_limit();
        let (limit, requested) = (applied.limit(), applied.requested());
        Collector {
            items: Vec::new(),
            sizes: Vec::new(),
            item_bytes: 0,
            limit,
            requested,
            max_bytes: limits.max_bytes,
            enclosing: limits.enclosing,
            envelope_base: None,
            stop: None,
            start: 0,
            skipped_before: SkipTally::default(),
            count_cut: None,
            seen: 0,
            skips: SkipLog::default(),
            started: limits
                .deadline
                .map(|_| limits.started.unwrap_or_else(|| limits.clock.now())),
            clock: limits.deadline.map(|_| Arc::clone(&limits.clock)),
            deadline: limits.deadline,
            cancel: limits.cancel.clone(),
            error: None,
            kept: 0,
            discard: false,
            refused: None,
            as_of: None,
        }
    }

    /// Says how many items of the full answer came before this page: the
    /// start of the cursor it resumes from. Totals count from the first
    /// item of the answer, and issued cursors carry their own start.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Limits, Total};
    /// let mut collector = Collector::new(&Limits::new());
    /// collector.set_start(40);
    /// assert!(collector.offer("last").is_continue());
    /// let page = collector.finish(|_| None, None)?;
    /// assert_eq!((page.start(), page.total()), (40, Total::Exact(41)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_start(&mut self, start: u64) {
        self.start = start;
        self.envelope_base = None;
    }

    /// Says that the answer trusts an index without checking the inputs,
    /// and as of when (see [`Disclosure::with_as_of`]); `None`: it is
    /// about the inputs as they are now (the default). Set it before the
    /// items are offered: the response's size under `max_bytes` counts
    /// it.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{AsOf, Limits};
    /// let mut collector = Collector::new(&Limits::new().max_bytes(200));
    /// collector.set_as_of(Some(AsOf::from_unix_ms(0)));
    /// assert!(collector.offer("a line").is_continue());
    /// let page = collector.finish(|_| None, None)?;
    /// assert!(page.to_json()?.contains(r#""as_of":"1970-01-01T00:00:00.000Z""#));
    /// assert!(page.summary("lines").contains("As of 1970-01-01T00:00:00.000Z"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_as_of(&mut self, as_of: Option<AsOf>) {
        self.as_of = as_of;
        self.envelope_base = None;
    }

    /// A collector that resumes after `cursor`, if any: [`new`](Collector::new)
    /// with the cursor's start ([`set_start`](Collector::set_start)). The
    /// caller checks the cursor's key itself ([`Scope::resume`](crate::Scope::resume)).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Fingerprint, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let cursor = scope.cursor(&7u64, 10);
    /// let mut collector = Collector::resuming(&Limits::new(), Some(&cursor));
    /// let after: u64 = scope.resume(&cursor)?;
    /// assert!(collector.offer(after + 1).is_continue());
    /// assert_eq!(collector.finish(|_| None, None)?.start(), 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn resuming(limits: &Limits, cursor: Option<&Cursor>) -> Collector<T> {
        let mut c = Collector::new(limits);
        c.resume_after(cursor);
        c
    }

    /// Says where this page resumes: after the items and the skips of the
    /// pages before `cursor`, if any (a cursor carries both: the page's
    /// [`start`](crate::Bounded::start) and the walk's skips so far).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Fingerprint, Limits, Scope};
    /// let scope = Scope::new(Fingerprint::of("q"));
    /// let mut collector: Collector<u64> = Collector::streaming(&Limits::new());
    /// collector.resume_after(Some(&scope.cursor(&9u64, 10)));
    /// assert_eq!(collector.start(), 10);
    /// ```
    pub fn resume_after(&mut self, cursor: Option<&Cursor>) {
        self.set_start(cursor.map_or(0, Cursor::start));
        self.skipped_before = cursor.map_or_else(SkipTally::default, Cursor::skipped_before);
    }

    /// Records the budget that cut a count past the limit (the first one
    /// wins): the answer names it beside a total that stays a lower bound
    /// ([`Bounded::total_cut_by`](crate::Bounded::total_cut_by)), so that
    /// its reader knows that more time or a larger count budget, not a
    /// narrower query, gives the total.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::{Collector, Count};
    /// use candor::{BudgetKind, Limits, Total};
    /// let limits = Limits::new().limit(1).count_total(true).max_counted(3);
    /// let mut collector = Collector::new(&limits);
    /// let _ = collector.offer(1u32);
    /// let _ = collector.offer(2u32);
    /// let mut count = Count::after(&limits, &collector, collector.seen()).expect("asked for");
    /// count.add(1);
    /// let cut = count.stop(&collector).expect("the count budget is spent");
    /// collector.cut_count(cut);
    /// let page = collector.finish(|_| None, Some(count.at_least()))?;
    /// assert_eq!(page.total(), Total::AtLeast(3));
    /// assert_eq!(page.total_cut_by().map(|b| b.kind()), Some(BudgetKind::Counted));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cut_count(&mut self, budget: Budget) {
        self.count_cut.get_or_insert(budget);
    }

    /// The clamp of the item limit, if the limit asked for was above the
    /// ceiling: disclosed whatever stops the result.
    fn clamp(&self) -> Option<Clamp> {
        Some(Clamp::new(self.limit?, self.requested?))
    }

    /// A collector for streaming: items are handed on as they are kept and
    /// only the last is retained (for the cursor). No byte budget: a stream
    /// has no response to fit. End it with
    /// [`finish_parts`](Collector::finish_parts) and
    /// [`Finished::into_streamed`].
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::streaming(&Limits::new());
    /// for n in 0..3u32 {
    ///     assert!(collector.offer(n).is_continue());
    ///     assert_eq!(collector.last(), Some(&n)); // hand it on here
    /// }
    /// assert_eq!(collector.finish_parts(|_| None, None)?.into_streamed().count(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn streaming(limits: &Limits) -> Collector<T> {
        let mut c = Collector::new(limits);
        c.discard = true;
        c.max_bytes = None;
        c
    }

    /// Offers the next item of the answer. `Break` means the collection is
    /// full: the item was not kept, and its existence proved truncation
    /// (the item limit, or the byte budget), or the collection had already
    /// stopped. Once it breaks, stop offering: every later offer breaks.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::new(&Limits::new().limit(1));
    /// assert!(collector.offer('a').is_continue());
    /// assert!(collector.offer('b').is_break()); // 'b' proves more exist
    /// assert!(collector.is_stopped());
    /// ```
    pub fn offer(&mut self, item: T) -> ControlFlow<()> {
        self.offer_with(|_| item)
    }

    /// Like [`offer`](Collector::offer), with the item built by `build`
    /// once it is known to be wanted (never when the limit is already
    /// reached). A streaming collector hands `build` the item it lets go of
    /// (the one kept before), whose memory the new one may reuse.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::streaming(&Limits::new());
    /// assert!(collector.offer_with(|_| String::from("first")).is_continue());
    /// let flow = collector.offer_with(|old| {
    ///     let mut line = old.unwrap_or_default(); // "first", its buffer reused
    ///     line.clear();
    ///     line.push_str("second");
    ///     line
    /// });
    /// assert!(flow.is_continue());
    /// assert_eq!(collector.last().map(String::as_str), Some("second"));
    /// ```
    pub fn offer_with(&mut self, build: impl FnOnce(Option<T>) -> T) -> ControlFlow<()> {
        if self.stop.is_some() {
            return ControlFlow::Break(());
        }
        self.seen += 1;
        if let Some(limit) = self.limit {
            if self.kept >= limit {
                // A match beyond the cap exists, so the answer really is cut short.
                self.stop = Some(Completeness::TruncatedByLimit {
                    limit,
                    requested: self.requested,
                });
                return ControlFlow::Break(());
            }
        }
        // A streaming collector has no byte budget: nothing below stops it
        // once the old item is let go of.
        let old = if self.discard { self.items.pop() } else { None };
        let item = build(old);
        if let Some(max) = self.max_bytes {
            let size = match json_len(&item) {
                Ok(size) => size,
                Err(e) => {
                    self.error = Some(e);
                    self.stop = Some(Completeness::Exact);
                    return ControlFlow::Break(());
                }
            };
            let bytes = self.item_bytes + size + usize::from(!self.items.is_empty());
            // The exact envelope is the smallest this response can have: if
            // even that overflows, the full answer cannot fit.
            let envelope = self.exact_envelope_len(self.items.len() + 1);
            if envelope.saturating_add(bytes) > max {
                self.stop = Some(output_bytes(max, self.clamp()));
                if self.items.is_empty() {
                    // Kept aside, to say what a page holding it needs.
                    self.refused = Some((item, size));
                }
                return ControlFlow::Break(());
            }
            self.item_bytes = bytes;
            self.sizes.push(size);
        }
        self.items.push(item);
        self.kept += 1;
        ControlFlow::Continue(())
    }

    /// Takes back the item just kept, which its stream's receiver refused:
    /// it exists in the answer, but this page does not hold it. It stays
    /// as the last item, for the cursor that resumes at it. Record the
    /// stop that made the receiver refuse it with
    /// [`stop_with`](Collector::stop_with).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Budget, BudgetKind, Completeness, Limits};
    /// let mut collector = Collector::streaming(&Limits::new());
    /// assert!(collector.offer(1u32).is_continue());
    /// assert!(collector.offer(2u32).is_continue());
    /// collector.refuse_last(); // the receiver could not take 2
    /// let budget = Budget::new(BudgetKind::Cancelled, 0, 0);
    /// collector.stop_with(Completeness::TruncatedByBudget { budget, clamp: None });
    /// assert_eq!(collector.finish_parts(|_| None, None)?.kept(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refuse_last(&mut self) {
        self.kept = self.kept.saturating_sub(1);
    }

    /// The item just kept by [`offer`](Collector::offer), for a stream to
    /// hand on.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::new(&Limits::new());
    /// assert_eq!(collector.last(), None);
    /// assert!(collector.offer(7u8).is_continue());
    /// assert_eq!(collector.last(), Some(&7));
    /// ```
    #[must_use]
    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }

    /// Takes items in bulk when only the item limit applies (no byte
    /// budget, no deadline, not streaming): one `extend`, then the probe.
    /// Returns false, taking nothing, when per-item checks are needed.
    pub(crate) fn take_bulk(&mut self, iter: &mut impl Iterator<Item = T>) -> bool {
        if self.max_bytes.is_some() || self.discard || self.stop.is_some() {
            return false;
        }
        let room = self
            .limit
            .map_or(usize::MAX, |l| l.saturating_sub(self.kept));
        // `collect` sizes and fills the vector in one go, faster than
        // `extend` on an empty one.
        let taken: Vec<T> = iter.by_ref().take(room).collect();
        let added = taken.len();
        if self.items.is_empty() {
            self.items = taken;
        } else {
            self.items.extend(taken);
        }
        self.kept += added;
        self.seen += added as u64;
        if let Some(limit) = self.limit {
            if added == room && iter.next().is_some() {
                // Item `limit + 1` exists: the answer really is cut short.
                self.seen += 1;
                self.stop = Some(Completeness::TruncatedByLimit {
                    limit,
                    requested: self.requested,
                });
            }
        }
        true
    }

    /// Stops when the deadline has passed or the query was cancelled
    /// (recording which), or when the collection had already stopped.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::collector::Collector;
    /// use candor::{BudgetKind, Limits, ManualClock};
    /// let clock = ManualClock::new();
    /// let limits = Limits::new().deadline(Duration::from_millis(50)).clock(clock.clone());
    /// let mut collector = Collector::new(&limits);
    /// assert!(collector.offer(1u8).is_continue());
    /// clock.advance(Duration::from_millis(60));
    /// assert!(collector.check_deadline().is_break());
    /// let page = collector.finish(|_| None, None)?;
    /// assert_eq!(page.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Deadline));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_deadline(&mut self) -> ControlFlow<()> {
        if self.stop.is_some() {
            return ControlFlow::Break(());
        }
        match self.deadline_passed() {
            Some(budget) => {
                self.stop = Some(Completeness::TruncatedByBudget {
                    budget,
                    clamp: self.clamp(),
                });
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    }

    /// The deadline's record if it has passed, or the cancellation's,
    /// without stopping the collection (a [`Count`] reads it).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{BudgetKind, CancelToken, Limits};
    /// let token = CancelToken::new();
    /// let collector: Collector<u8> = Collector::new(&Limits::new().cancel_token(token.clone()));
    /// assert_eq!(collector.deadline_passed(), None);
    /// token.cancel();
    /// assert_eq!(collector.deadline_passed().map(|b| b.kind()), Some(BudgetKind::Cancelled));
    /// ```
    #[must_use]
    pub fn deadline_passed(&self) -> Option<Budget> {
        if self.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Some(Budget::new(BudgetKind::Cancelled, 0, 0));
        }
        let deadline = self.deadline?;
        let elapsed = self
            .clock
            .as_ref()?
            .now()
            .saturating_duration_since(self.started?);
        (elapsed >= deadline)
            .then(|| Budget::new(BudgetKind::Deadline, millis(deadline), millis(elapsed)))
    }

    /// Records a stop decided outside the collector (a work budget of the
    /// engine's, or a truncated input upstream). The first stop wins; an
    /// exact `completeness` records nothing. A clamp of the item limit is
    /// added to a budget's stop, as the contract wants it disclosed
    /// whatever stopped the result.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Budget, BudgetKind, Completeness, Limits};
    /// let mut collector = Collector::new(&Limits::new());
    /// assert!(collector.offer("a.rs").is_continue());
    /// let files = Budget::new(BudgetKind::Files, 1, 1); // the engine read its one file
    /// collector.stop_with(Completeness::TruncatedByBudget { budget: files, clamp: None });
    /// let page = collector.finish(|_| None, None)?;
    /// assert_eq!(page.completeness().budget(), Some(&files));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop_with(&mut self, completeness: Completeness) {
        if self.stop.is_none() && completeness.is_truncated() {
            self.stop = Some(match completeness {
                Completeness::TruncatedByBudget { budget, clamp } => {
                    Completeness::TruncatedByBudget {
                        budget,
                        clamp: clamp.or(self.clamp()),
                    }
                }
                other => other,
            });
        }
    }

    /// Returns true once the collection has stopped: every later offer
    /// breaks.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::new(&Limits::new().limit(0));
    /// assert!(!collector.is_stopped());
    /// assert!(collector.offer(1u8).is_break());
    /// assert!(collector.is_stopped());
    /// ```
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.stop.is_some()
    }

    /// Returns true when the stop proves that more items exist (the item
    /// limit, the byte budget), which is when counting on past it makes
    /// sense.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::new(&Limits::new().limit(1));
    /// assert!(collector.offer(1u8).is_continue());
    /// assert!(!collector.stop_proves_more());
    /// assert!(collector.offer(2u8).is_break());
    /// assert!(collector.stop_proves_more());
    /// ```
    #[must_use]
    pub fn stop_proves_more(&self) -> bool {
        self.stop.as_ref().is_some_and(Completeness::proves_more)
    }

    /// Items of the full answer before this page.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector: Collector<u8> = Collector::new(&Limits::new());
    /// collector.set_start(3);
    /// assert_eq!(collector.start(), 3);
    /// ```
    #[must_use]
    pub fn start(&self) -> u64 {
        self.start
    }

    /// Items of the answer known to exist from this page's start on: those
    /// kept, and the one that proved a stop.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::new(&Limits::new().limit(1));
    /// let _ = collector.offer(1u8);
    /// let _ = collector.offer(2u8);
    /// assert_eq!(collector.seen(), 2);
    /// ```
    #[must_use]
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Records an input left out of the search, where it comes in the
    /// answer's order: a page reports the skips met before the item its
    /// cursor resumes after, and leaves the others to the pages that reach
    /// them (so the pages of a walk report each skip once).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{Limits, SkipReason, SkippedInput};
    /// let mut collector: Collector<&str> = Collector::new(&Limits::new());
    /// collector.skip(SkippedInput::new("logo.png", SkipReason::Binary));
    /// let page = collector.finish(|_| None, None)?;
    /// assert!(page.is_complete()); // a policy skip leaves the answer whole
    /// assert_eq!(page.skipped().total(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn skip(&mut self, input: SkippedInput) {
        self.skips.record(self.kept, input);
    }

    pub(crate) fn absorb_skipped(&mut self, skipped: Skipped) {
        self.skips.absorb(self.kept, skipped);
    }

    /// The length of the smallest response of `count` items: exact, with
    /// no skipped sample (the sample yields to items under a tight budget).
    fn exact_envelope_len(&mut self, count: usize) -> usize {
        let skipped_now = self.skips.all().total();
        let base = match self.envelope_base {
            Some((skips, base)) if skips == skipped_now => base,
            _ => {
                let mut skipped = self.skips.all().clone();
                skipped.truncate_sample(0);
                // Without the walk's skips so far, which yield too.
                let mut disclosure = Disclosure::new(Completeness::Exact, Total::Exact(self.start))
                    .with_start(self.start)
                    .with_skipped(skipped);
                disclosure.set_as_of(self.as_of);
                let base = envelope_len(&disclosure, 0).unwrap_or(usize::MAX / 4);
                self.envelope_base = Some((skipped_now, base));
                base
            }
        };
        let end = self.start.saturating_add(count as u64);
        // The base holds a count of "0" and a total of `start`.
        base - 1 - digits_u64(self.start) + digits(count) + digits_u64(end)
    }

    /// Builds the result: fits it to the byte budget, writes the total and
    /// the cursor, and checks the contract's rules.
    ///
    /// `cursor_for` gets the kept items and returns where to resume after
    /// them (or `None` when resuming is not possible or would not
    /// advance); it may be called several times while the page is fitted.
    /// The collector sets each cursor's start (the items before it), so
    /// make it with any start, such as
    /// [`Scope::cursor`](crate::Scope::cursor)`(key, 0)`. `total_hint` is
    /// a total known from elsewhere (a finished [`Count`], the sum of
    /// merged parts), counted from this page's start; it is used only when
    /// it says more than what the collector saw.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::BudgetTooSmall`](crate::ErrorKind::BudgetTooSmall) when
    /// not even the required fields of the response fit the byte budget;
    /// an item's serialization error; and
    /// [`ErrorKind::InvalidDisclosure`](crate::ErrorKind::InvalidDisclosure)
    /// when the result would break a rule (a stop recorded with
    /// [`stop_with`](Collector::stop_with) that the items contradict, or a
    /// streaming collector, whose items were handed on: end a stream with
    /// [`finish_parts`](Collector::finish_parts) and
    /// [`Finished::into_streamed`]).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::{BudgetKind, Limits};
    /// let mut collector = Collector::new(&Limits::new().max_bytes(300));
    /// for n in 0..1000u32 {
    ///     if collector.offer(format!("item {n}")).is_break() {
    ///         break;
    ///     }
    /// }
    /// let page = collector.finish(|_| None, None)?;
    /// assert!(page.to_json()?.len() <= 300);
    /// assert_eq!(page.completeness().budget().map(|b| b.kind()), Some(BudgetKind::OutputBytes));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(
        self,
        cursor_for: impl Fn(&[T]) -> Option<Cursor>,
        total_hint: Option<Total>,
    ) -> Result<Bounded<T>, Error> {
        self.finish_parts(cursor_for, total_hint)?.into_bounded()
    }

    /// Like [`finish`](Collector::finish), without building the
    /// [`Bounded`]: a stream ends with it ([`Finished::into_streamed`]).
    ///
    /// Under a byte budget the response is fitted (see `Fitting`, in `collect/fit.rs`): the
    /// optional parts (the skipped sample, then the note) yield before the
    /// last item does, and the sample before an exact answer loses an
    /// item. Only when the required fields alone do not fit is it an
    /// error.
    ///
    /// # Errors
    ///
    /// As [`finish`](Collector::finish).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::Collector;
    /// use candor::Limits;
    /// let mut collector = Collector::new(&Limits::new());
    /// assert!(collector.offer(1u8).is_continue());
    /// let finished = collector.finish_parts(|_| None, None)?;
    /// assert_eq!((finished.kept(), finished.items()), (1, &[1u8][..]));
    /// assert!(finished.disclosure().completeness().is_exact());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish_parts(
        self,
        cursor_for: impl Fn(&[T]) -> Option<Cursor>,
        total_hint: Option<Total>,
    ) -> Result<Finished<T>, Error> {
        let clamp = self.clamp();
        let Collector {
            mut items,
            mut sizes,
            max_bytes,
            enclosing,
            stop,
            start,
            skipped_before,
            count_cut,
            seen,
            skips,
            error,
            kept,
            discard,
            refused,
            as_of,
            ..
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let completeness = stop.unwrap_or(Completeness::Exact);
        let skipped_at = |k: usize| skips.reported_at(k);
        // A cursor carries how many items came before it, and how many
        // inputs the pages before it skipped: this page's report when it
        // resumes there, and what the pages before this one skipped.
        let stamp = |cursor: Option<Cursor>, kept_now: usize| {
            cursor.map(|c| {
                let skipped = skipped_before + skipped_at(kept_now).tally();
                c.placed(start.saturating_add(kept_now as u64), skipped)
            })
        };
        let issued = if discard { kept } else { items.len() };
        let next_cursor = if completeness.is_truncated() {
            stamp(cursor_for(&items), issued)
        } else {
            None
        };
        let skipped = if next_cursor.is_some() {
            skipped_at(issued)
        } else {
            skips.all().clone()
        };
        let total = page_total(
            &completeness,
            start,
            kept,
            seen,
            total_hint,
            skips.all().has_errors(),
        );
        let truncated = completeness.is_truncated();
        let mut disclosure = Disclosure::new(completeness, total)
            .with_start(start)
            .with_skipped(skipped)
            .with_skipped_before(skipped_before);
        // The count's cut explains a total that stays a lower bound.
        if let Some(cut) = count_cut.filter(|_| truncated && total.is_lower_bound()) {
            disclosure = disclosure.with_total_cut_by(cut);
        }
        disclosure.set_next_cursor(next_cursor);
        disclosure.set_as_of(as_of);
        if let Some(max) = max_bytes {
            // The first item, refused by the budget, is measured as the
            // page's next item: a page without items says what one needs.
            if let (true, Some((item, size))) = (items.is_empty(), refused) {
                items.push(item);
                sizes.push(size);
            }
            let fitted = Fitting {
                base: &disclosure,
                sizes: &sizes,
                max,
                stated: Stated::new(max, enclosing),
                clamp,
                cursor_at: &|k: usize| stamp(cursor_for(&items[..k]), k),
                skipped_at: &skipped_at,
                longest_total: false,
            }
            .fit(items.len())?;
            items.truncate(fitted.count);
            disclosure = fitted.disclosure;
            disclosure.set_fitted_to(max, enclosing);
        }
        let kept = if discard { kept } else { items.len() };
        disclosure
            .check(kept)
            .map_err(|reason| crate::ErrorKind::InvalidDisclosure { reason })?;
        Ok(Finished {
            kept,
            items,
            disclosure,
        })
    }
}

/// The total of the whole answer, the items before this page (`start`)
/// too, for a page that kept `kept` items and saw `seen`, the source
/// hinting `total_hint` (counted from `start` on). A count that went past
/// an input skipped for an error (`skipped_errors`) is a lower bound:
/// that input may hold items.
fn page_total(
    completeness: &Completeness,
    start: u64,
    kept: usize,
    seen: u64,
    total_hint: Option<Total>,
    skipped_errors: bool,
) -> Total {
    let full = start.saturating_add(kept as u64);
    let seen = start.saturating_add(seen);
    if completeness.is_exact() {
        return Total::Exact(full);
    }
    match total_hint.map(|hint| from_start(start, hint)) {
        Some(Total::Exact(n)) if n >= seen && !skipped_errors => Total::Exact(n),
        Some(hint) => Total::AtLeast(hint.value().max(seen)),
        None => Total::AtLeast(seen),
    }
}

/// A total counted from `start` on, as a total of the whole answer.
fn from_start(start: u64, total: Total) -> Total {
    match total {
        Total::Exact(n) => Total::Exact(start.saturating_add(n)),
        Total::AtLeast(n) => Total::AtLeast(start.saturating_add(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_counts_decimal_digits() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(999), 3);
        assert_eq!(digits(1000), 4);
    }

    #[test]
    fn exact_envelope_estimate_matches_serialization() {
        let limits = Limits::new();
        for start in [0u64, 7, 9, 10, 999, 123_456] {
            let mut c: Collector<u8> = Collector::new(&limits);
            c.set_start(start);
            c.skip(SkippedInput::new("a", crate::SkipReason::Binary));
            for count in [0usize, 1, 9, 10, 99, 100, 12345] {
                let end = start + count as u64;
                let mut skipped = c.skips.all().clone();
                skipped.truncate_sample(0);
                let d = Disclosure::new(Completeness::Exact, Total::Exact(end))
                    .with_start(start)
                    .with_skipped(skipped);
                let real = envelope_len(&d, count).unwrap();
                assert_eq!(
                    c.exact_envelope_len(count),
                    real,
                    "start {start} count {count}"
                );
            }
        }
    }
}

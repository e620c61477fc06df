//! Stop decisions and budget accounting, shared by every query.
//!
//! A [`Collector`] takes the items of an answer in order and decides, item
//! by item, whether to keep going; at the end it fits the result to the
//! byte budget (`collect/fit.rs`) and writes the disclosure.
//! `Bounded::collect`, `Bounded::page`, `Bounded::merge` (in `page/`) and
//! the search engine all drive one.

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
    Bounded, Budget, BudgetKind, CancelToken, Clamp, Completeness, Cursor, Disclosure, Enclosing,
    Limits, SkipTally, Skipped, SkippedInput, Total,
};
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
pub(crate) struct Collector<T> {
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
}

/// A finished collection, before it becomes a `Bounded` or a stream's end.
#[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
pub(crate) struct Finished<T> {
    pub(crate) items: Vec<T>,
    pub(crate) kept: usize,
    pub(crate) disclosure: Disclosure,
}

impl<T> Finished<T> {
    /// The result.
    pub(crate) fn into_bounded(self) -> Bounded<T> {
        Bounded::assemble(self.items, self.disclosure)
    }
}

impl<T: Serialize> Collector<T> {
    pub(crate) fn new(limits: &Limits) -> Collector<T> {
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
            started: limits.deadline.map(|_| limits.clock.now()),
            clock: limits.deadline.map(|_| Arc::clone(&limits.clock)),
            deadline: limits.deadline,
            cancel: limits.cancel.clone(),
            error: None,
            kept: 0,
            discard: false,
            refused: None,
        }
    }

    /// Says how many items of the full answer came before this page: the
    /// start of the cursor it resumes from. Totals count from the first
    /// item of the answer, and issued cursors carry their own start.
    pub(crate) fn set_start(&mut self, start: u64) {
        self.start = start;
        self.envelope_base = None;
    }

    /// A collector that resumes after `cursor`, if any.
    pub(crate) fn resuming(limits: &Limits, cursor: Option<&Cursor>) -> Collector<T> {
        let mut c = Collector::new(limits);
        c.resume_after(cursor);
        c
    }

    /// Says where this page resumes: after the items and the skips of the
    /// pages before `cursor`, if any.
    pub(crate) fn resume_after(&mut self, cursor: Option<&Cursor>) {
        self.set_start(cursor.map_or(0, Cursor::start));
        self.skipped_before = cursor.map_or_else(SkipTally::default, Cursor::skipped_before);
    }

    /// Records the budget that cut a count past the limit (the first one
    /// wins): the answer names it beside a total that stays a lower bound.
    pub(crate) fn cut_count(&mut self, budget: Budget) {
        self.count_cut.get_or_insert(budget);
    }

    /// The clamp of the item limit, if the limit asked for was above the
    /// ceiling: disclosed whatever stops the result.
    fn clamp(&self) -> Option<Clamp> {
        Some(Clamp::new(self.limit?, self.requested?))
    }

    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    /// A collector for streaming: items are handed on as they are kept and
    /// only the last is retained (for the cursor). No byte budget.
    pub(crate) fn streaming(limits: &Limits) -> Collector<T> {
        let mut c = Collector::new(limits);
        c.discard = true;
        c.max_bytes = None;
        c
    }

    /// Offers the next item of the answer. `Break` means the collection is
    /// full: the item was not kept, and its existence proved truncation.
    pub(crate) fn offer(&mut self, item: T) -> ControlFlow<()> {
        self.offer_with(|_| item)
    }

    /// Like `offer`, with the item built by `build` once it is known to be
    /// wanted. A streaming collector hands `build` the item it lets go of
    /// (the one kept before), whose memory the new one may reuse.
    pub(crate) fn offer_with(&mut self, build: impl FnOnce(Option<T>) -> T) -> ControlFlow<()> {
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
    /// as the last item, for the cursor that resumes at it.
    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    pub(crate) fn refuse_last(&mut self) {
        self.kept = self.kept.saturating_sub(1);
    }

    /// The item just kept by `offer`, for a stream to hand on.
    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    pub(crate) fn last(&self) -> Option<&T> {
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

    /// Stops when the deadline has passed.
    pub(crate) fn check_deadline(&mut self) -> ControlFlow<()> {
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

    /// The deadline's record if it has passed, or the cancellation's.
    pub(crate) fn deadline_passed(&self) -> Option<Budget> {
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

    /// Records a stop decided outside the collector (a work budget, or a
    /// truncated input upstream). The first stop wins.
    pub(crate) fn stop_with(&mut self, completeness: Completeness) {
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

    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    pub(crate) fn is_stopped(&self) -> bool {
        self.stop.is_some()
    }

    /// Returns true when the stop proves that more items exist, which is
    /// when counting on past it makes sense.
    pub(crate) fn stop_proves_more(&self) -> bool {
        self.stop.as_ref().is_some_and(Completeness::proves_more)
    }

    /// Items of the full answer before this page.
    pub(crate) fn start(&self) -> u64 {
        self.start
    }

    pub(crate) fn seen(&self) -> u64 {
        self.seen
    }

    #[cfg_attr(not(feature = "search"), allow(dead_code))] // used by the search engine
    pub(crate) fn skip(&mut self, input: SkippedInput) {
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
                let disclosure = Disclosure::new(Completeness::Exact, Total::Exact(self.start))
                    .with_start(self.start)
                    .with_skipped(skipped);
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
    /// the cursor.
    ///
    /// `cursor_for` gets the kept items and returns where to resume after
    /// them (or `None` when resuming is not possible or would not advance).
    /// `total_hint` is a total known from elsewhere (a finished count, the
    /// sum of merged parts); it is used only when it says more than what
    /// the collector saw.
    pub(crate) fn finish(
        self,
        cursor_for: impl Fn(&[T]) -> Option<Cursor>,
        total_hint: Option<Total>,
    ) -> Result<Bounded<T>, Error> {
        Ok(self.finish_parts(cursor_for, total_hint)?.into_bounded())
    }

    /// Like `finish`, without building the `Bounded` (streams use it).
    ///
    /// Under a byte budget the response is fitted (see `Fitting`, in `collect/fit.rs`): the
    /// optional parts (the skipped sample, then the note) yield before the
    /// last item does, and the sample before an exact answer loses an
    /// item. Only when the required fields alone do not fit is it an
    /// error.
    pub(crate) fn finish_parts(
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
            ..
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let completeness = stop.unwrap_or(Completeness::Exact);
        // The skips this page reports: a page that resumes after its last
        // item leaves those met beyond it (by the probe, or a count past
        // the limit) to the pages that reach them.
        let skipped_at = |k: usize| -> Skipped {
            if k > 0 {
                skips.split(k).0
            } else {
                skips.all().clone()
            }
        };
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
        // Totals count the whole answer: the items before this page too.
        // A count that went past an input skipped for an error is a lower
        // bound: that input may hold items.
        let full = start.saturating_add(kept as u64);
        let seen = start.saturating_add(seen);
        let total = if completeness.is_exact() {
            Total::Exact(full)
        } else {
            match total_hint.map(|hint| from_start(start, hint)) {
                Some(Total::Exact(n)) if n >= seen && !skips.all().has_errors() => Total::Exact(n),
                Some(hint) => Total::AtLeast(hint.value().max(seen)),
                None => Total::AtLeast(seen),
            }
        };
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
        Ok(Finished {
            kept: if discard { kept } else { items.len() },
            items,
            disclosure,
        })
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

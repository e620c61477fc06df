//! Driving the [`Collector`] over a source of `Result`s read up to its
//! first fault (an error, a key out of order): the items it takes, the
//! count past the limit, and the result or error it ends with.

use serde::Serialize;

use super::items::Items;
use super::try_error::{Interrupted, TryError};
use crate::BudgetKind;
use crate::collector::Collector;
use crate::collector::Count;
use crate::error::Error;
use crate::{Bounded, Cursor, Limits, Total};

/// Why a source stopped being read before its end.
pub(super) enum StopCause<E> {
    Source(E),
    /// An item's key was not greater than the one before.
    Disorder,
}

/// A source of `Result`s seen as a source of items: it ends at the first
/// error or broken promise, and remembers which.
pub(super) struct Checked<I, C, E> {
    pub(super) iter: I,
    pub(super) check: C,
    /// How many items were yielded.
    pub(super) pulled: usize,
    /// The source reached its end.
    pub(super) ended: bool,
    pub(super) fault: Option<StopCause<E>>,
    /// The inner iterator's size hint is the items' (it yields no errors).
    exact_hint: bool,
}

/// The rows of `items`, each checked with `check`.
pub(super) fn checked<S: Items, C>(items: S, check: C) -> Checked<S::Rows, C, S::Fault> {
    Checked {
        iter: items.into_rows(),
        check,
        pulled: 0,
        ended: false,
        fault: None,
        exact_hint: S::EXACT_HINT,
    }
}

impl<T, E, I, C> Iterator for Checked<I, C, E>
where
    I: Iterator<Item = Result<T, E>>,
    C: FnMut(&T) -> bool,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.ended || self.fault.is_some() {
            return None;
        }
        match self.iter.next() {
            None => {
                self.ended = true;
                None
            }
            Some(Err(e)) => {
                self.fault = Some(StopCause::Source(e));
                None
            }
            Some(Ok(item)) if (self.check)(&item) => {
                self.pulled += 1;
                Some(item)
            }
            Some(Ok(_)) => {
                self.fault = Some(StopCause::Disorder);
                None
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.ended || self.fault.is_some() {
            return (0, Some(0));
        }
        let (low, high) = self.iter.size_hint();
        (if self.exact_hint { low } else { 0 }, high)
    }
}

/// Drives a collector over an iterator: offers items until it stops, then,
/// if asked, counts on for an exact total.
pub(super) fn drive<T: Serialize>(
    collector: &mut Collector<T>,
    iter: &mut impl Iterator<Item = T>,
    limits: &Limits,
) -> Option<Total> {
    // A cancel token is checked where the deadline is.
    let has_deadline = limits.deadline.is_some() || limits.cancel.is_some();
    if !has_deadline && collector.take_bulk(iter) {
        // Done without per-item checks: nothing but the limit applies.
    } else {
        drive_each(collector, iter, has_deadline);
    }
    let mut count = Count::after(limits, collector, collector.seen())?;
    loop {
        match count.stop(collector) {
            // The count budget is spent; one more pull tells whether the
            // count happens to be complete.
            Some(budget) if budget.kind() == BudgetKind::Counted => {
                return Some(match iter.next() {
                    None => count.exact(),
                    Some(_) => {
                        collector.cut_count(budget);
                        count.at_least()
                    }
                });
            }
            Some(budget) => {
                collector.cut_count(budget);
                return Some(count.at_least());
            }
            None => {}
        }
        match iter.next() {
            Some(_) => count.add(1),
            None => return Some(count.exact()),
        }
    }
}

fn drive_each<T: Serialize>(
    collector: &mut Collector<T>,
    iter: &mut impl Iterator<Item = T>,
    has_deadline: bool,
) {
    for item in iter.by_ref() {
        if collector.offer(item).is_break() {
            break;
        }
        if has_deadline && collector.check_deadline().is_break() {
            break;
        }
    }
}

fn disorder() -> Error {
    Error::invalid_argument(
        "source",
        "items are not in strictly increasing key order after the cursor; pages would lose or repeat items",
    )
}

/// The error for a source's fault, keeping the items the collector holds.
pub(super) fn interrupted<T: Serialize, E>(
    collector: Collector<T>,
    fault: StopCause<E>,
    cursor_for: impl Fn(&[T]) -> Option<Cursor>,
) -> TryError<T, E> {
    match fault {
        StopCause::Disorder => TryError::Query(disorder()),
        StopCause::Source(error) => {
            // Fitting to the byte budget keeps the items a page could
            // have held; a budget too small for any leaves none.
            let start = collector.start();
            let items = collector
                .finish_parts(|_| None, None)
                .map(|f| f.into_parts().0)
                .unwrap_or_default();
            // Like every cursor, it says how many items of the answer come
            // before it: those of earlier pages, and these.
            let next_cursor = if items.is_empty() {
                None
            } else {
                cursor_for(&items).map(|c| c.at(start.saturating_add(items.len() as u64)))
            };
            TryError::Source(Box::new(Interrupted {
                next_cursor,
                items,
                error,
            }))
        }
    }
}

/// Builds the result.
pub(super) fn finish<T: Serialize, E>(
    collector: Collector<T>,
    cursor_for: impl Fn(&[T]) -> Option<Cursor>,
    counted: Option<Total>,
) -> Result<Bounded<T>, TryError<T, E>> {
    Ok(collector.finish(cursor_for, counted)?)
}

//! Counting past the limit, for an exact total: once a collection is full
//! and its stop proves that more items exist, the rest of the answer is
//! counted without being kept ([`Limits::count_total`]), within the count
//! budget ([`Limits::max_counted`]) and the deadline. Iterators (`page/`)
//! and the search's result stage both count through a [`Count`].

use serde::Serialize;

use super::Collector;
use crate::{Budget, BudgetKind, Limits, Total};

/// The count of an answer past its collection, for an exact total.
///
/// Start one with [`Count::after`] once the [`Collector`] stopped; add
/// each item of the rest of the answer without offering it; ask
/// [`stop`](Count::stop) as you go; and give the collector's
/// [`finish`](Collector::finish) [`exact`](Count::exact) when the answer
/// ran out, or [`at_least`](Count::at_least) when the count stopped first.
///
/// # Example
///
/// ```
/// use candor::collector::{Collector, Count};
/// use candor::{Limits, Total};
/// let limits = Limits::new().limit(2).count_total(true);
/// let mut collector = Collector::new(&limits);
/// let mut rest = 0..10u32;
/// for n in rest.by_ref() {
///     if collector.offer(n).is_break() {
///         break;
///     }
/// }
/// // Items 0, 1 kept; 2 proved more: three items known.
/// let mut count = Count::after(&limits, &collector, collector.seen()).expect("asked for");
/// for _ in rest {
///     count.add(1);
/// }
/// let page = collector.finish(|_| None, Some(count.exact()))?;
/// assert_eq!(page.total(), Total::Exact(10));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    counted: u64,
    max: Option<u64>,
}

impl Count {
    /// The count after `collector` stopped, if `limits` ask for an exact
    /// total and the stop proves that more items exist; `known` items of
    /// the answer are known so far (those kept, and at least the one that
    /// proved the stop).
    ///
    /// `None` when no count is asked for, or the collector's stop does not
    /// prove more items (a budget that stopped the work: counting on would
    /// spend what ran out).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::{Collector, Count};
    /// use candor::Limits;
    /// let limits = Limits::new().limit(1); // no count_total
    /// let mut collector = Collector::new(&limits);
    /// let _ = collector.offer(1u8);
    /// let _ = collector.offer(2u8);
    /// assert!(Count::after(&limits, &collector, 2).is_none());
    /// ```
    #[must_use]
    pub fn after<T: Serialize>(
        limits: &Limits,
        collector: &Collector<T>,
        known: u64,
    ) -> Option<Count> {
        (limits.count_total && collector.stop_proves_more()).then_some(Count {
            counted: known,
            max: limits.max_counted,
        })
    }

    /// Counts `n` more items.
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::collector::{Collector, Count};
    /// # use candor::{Limits, Total};
    /// # let limits = Limits::new().limit(0).count_total(true);
    /// # let mut collector = Collector::new(&limits);
    /// # let _ = collector.offer(1u8);
    /// let mut count = Count::after(&limits, &collector, 1).expect("asked for");
    /// count.add(41);
    /// assert_eq!(count.exact(), Total::Exact(42));
    /// ```
    pub fn add(&mut self, n: u64) {
        self.counted = self.counted.saturating_add(n);
    }

    /// What ends the count now, if anything: the count budget
    /// ([`BudgetKind::Counted`]), then the deadline or a cancellation (as
    /// the collector measures it). The count's total is then a lower
    /// bound, and the budget is what the answer names as having cut it
    /// ([`Collector::cut_count`]); but when the count budget is spent, a
    /// source that happens to end there still gives the exact total.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::collector::{Collector, Count};
    /// use candor::{BudgetKind, Limits};
    /// let limits = Limits::new().limit(0).count_total(true).max_counted(5);
    /// let mut collector = Collector::new(&limits);
    /// let _ = collector.offer(1u8);
    /// let mut count = Count::after(&limits, &collector, 1).expect("asked for");
    /// count.add(4);
    /// assert_eq!(count.stop(&collector).map(|b| b.kind()), Some(BudgetKind::Counted));
    /// ```
    #[must_use]
    pub fn stop<T: Serialize>(&self, collector: &Collector<T>) -> Option<Budget> {
        if let Some(max) = self.max.filter(|&max| self.counted >= max) {
            return Some(Budget::new(BudgetKind::Counted, max, self.counted));
        }
        collector.deadline_passed()
    }

    /// The total when the source ran out: every item was counted.
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::collector::{Collector, Count};
    /// # use candor::{Limits, Total};
    /// # let limits = Limits::new().limit(0).count_total(true);
    /// # let mut collector = Collector::new(&limits);
    /// # let _ = collector.offer(1u8);
    /// let count = Count::after(&limits, &collector, 1).expect("asked for");
    /// assert_eq!(count.exact(), Total::Exact(1));
    /// ```
    #[must_use]
    pub fn exact(&self) -> Total {
        Total::Exact(self.counted)
    }

    /// The total when the count ended before the source did: a lower
    /// bound.
    ///
    /// # Example
    ///
    /// ```
    /// # use candor::collector::{Collector, Count};
    /// # use candor::{Limits, Total};
    /// # let limits = Limits::new().limit(0).count_total(true);
    /// # let mut collector = Collector::new(&limits);
    /// # let _ = collector.offer(1u8);
    /// let count = Count::after(&limits, &collector, 1).expect("asked for");
    /// assert_eq!(count.at_least(), Total::AtLeast(1));
    /// ```
    #[must_use]
    pub fn at_least(&self) -> Total {
        Total::AtLeast(self.counted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_starts_only_after_a_stop_that_proves_more() {
        let limits = Limits::new().limit(1).count_total(true).max_counted(3);
        let mut collector: Collector<u8> = Collector::new(&limits);
        assert!(Count::after(&limits, &collector, 0).is_none());
        assert!(collector.offer(1).is_continue());
        assert!(collector.offer(2).is_break());
        let mut count = Count::after(&limits, &collector, 2).expect("counting");
        assert_eq!(count.stop(&collector), None);
        count.add(1);
        assert_eq!(
            count.stop(&collector),
            Some(Budget::new(BudgetKind::Counted, 3, 3))
        );
        assert_eq!(count.at_least(), Total::AtLeast(3));
        assert_eq!(count.exact(), Total::Exact(3));
        let uncounted = Limits::new().limit(1);
        assert!(Count::after(&uncounted, &collector, 2).is_none());
    }
}

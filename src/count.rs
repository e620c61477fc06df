//! Counting past the limit, for an exact total: once a collection is full
//! and its stop proves that more items exist, the rest of the answer is
//! counted without being kept ([`Limits::count_total`]), within the count
//! budget ([`Limits::max_counted`]) and the deadline. Iterators (`page.rs`)
//! and the search's result stage both count through a [`Count`].

use serde::Serialize;

use crate::collect::Collector;
use crate::{Budget, BudgetKind, Limits, Total};

/// The count of an answer past its collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Count {
    counted: u64,
    max: Option<u64>,
}

impl Count {
    /// The count after `collector` stopped, if `limits` ask for an exact
    /// total and the stop proves that more items exist; `known` items of
    /// the answer are known so far (those kept, and at least the one that
    /// proved the stop).
    pub(crate) fn after<T: Serialize>(
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
    pub(crate) fn add(&mut self, n: u64) {
        self.counted = self.counted.saturating_add(n);
    }

    /// What ends the count now, if anything: the count budget
    /// ([`BudgetKind::Counted`]), then the deadline or a cancellation (as
    /// the collector measures it). The count's total is then a lower
    /// bound, and the budget is what the answer names as having cut it
    /// ([`Collector::cut_count`]); but when the count budget is spent, a
    /// source that happens to end there still gives the exact total.
    pub(crate) fn stop<T: Serialize>(&self, collector: &Collector<T>) -> Option<Budget> {
        if let Some(max) = self.max.filter(|&max| self.counted >= max) {
            return Some(Budget::new(BudgetKind::Counted, max, self.counted));
        }
        collector.deadline_passed()
    }

    /// The total when the source ran out: every item was counted.
    pub(crate) fn exact(&self) -> Total {
        Total::Exact(self.counted)
    }

    /// The total when the count ended before the source did: a lower
    /// bound.
    pub(crate) fn at_least(&self) -> Total {
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

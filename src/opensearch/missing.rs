//! Hits a cluster's own figures say are missing: it returned fewer hits
//! than the page asked for (`size` is the limit plus one), so by the
//! paging rule its answer ends here, yet its `hits.total` counts more
//! hits than come before this page and on it.
//!
//! Such a page cannot be whole (docs/CONTRACT.md, rule 1), and its hits
//! cannot be known to be the first of the rest (rule 3): it is a subset. The count
//! is of the cluster's whole answer, whatever `search_after` skips, so
//! the figure to compare it with is the cluster's own position (how many
//! of its hits came before) plus the hits it returned: in a fan-out each
//! cluster has its own, and the page's global `start` means nothing to a
//! cluster's count.

use crate::{Budget, BudgetKind, Total};

/// A cluster's answer that ends short of its own count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Missing {
    /// How many of the cluster's hits came before this page.
    start: u64,
    /// The hits it returned on this page.
    hits: usize,
    /// Its `hits.total`.
    total: Total,
}

/// The hits missing from a cluster's answer, by its own figures: `None`
/// when it found more than the limit (the limit cut it, and the extra
/// hit proves more), when it gave no count, or when its count is within
/// the hits before and on this page.
pub(crate) fn missing_hits(
    start: u64,
    hits: usize,
    over_limit: bool,
    total: Option<Total>,
) -> Option<Missing> {
    let total = total?;
    let end = start.saturating_add(hits as u64);
    (!over_limit && total.value() > end).then_some(Missing { start, hits, total })
}

impl Missing {
    /// The stop that makes the page a subset, and the note's words for it.
    ///
    /// The stop is the cluster's own (`shard`): it returned `hits` items
    /// and has more, which its count proves.
    pub(crate) fn stop(&self, whose: &str, limit: usize) -> (Budget, String) {
        let hits = self.hits as u64;
        let (relation, more) = match self.total {
            Total::Exact(n) => ("eq", n),
            Total::AtLeast(n) => ("gte", n),
        };
        let before = if self.start == 0 {
            String::new()
        } else {
            format!(", {} of them before this page", self.start)
        };
        let missing = more - self.start - hits;
        (
            Budget::new(BudgetKind::Shard, hits, hits),
            format!(
                "{whose} returned {hits} hits, fewer than the {} asked for, yet its hits.total counts {more} ({relation}){before}: at least {missing} matching hits are missing from its answer for a reason the response does not give, so these hits may not be the first ones and no cursor resumes from them. Ask again, or check the search for what returns fewer hits than it counts.",
                limit.saturating_add(1)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_past_the_page_is_missing_hits_at_the_cluster_s_own_position() {
        // Four hits before, two on the page, five counted: whole.
        assert_eq!(missing_hits(4, 2, false, Some(Total::Exact(6))), None);
        assert_eq!(missing_hits(4, 2, false, Some(Total::Exact(5))), None);
        let m = missing_hits(4, 2, false, Some(Total::Exact(7))).expect("one missing");
        let (budget, note) = m.stop("The cluster", 3);
        assert_eq!(budget, Budget::new(BudgetKind::Shard, 2, 2));
        assert!(
            note.contains("at least 1 matching hits are missing"),
            "{note}"
        );
        assert!(missing_hits(0, 0, false, Some(Total::AtLeast(10_000))).is_some());
        assert_eq!(
            missing_hits(10_002, 3, false, Some(Total::AtLeast(10_000))),
            None
        );
        // Cut by the limit, or no count: nothing said missing here.
        assert_eq!(missing_hits(0, 3, true, Some(Total::Exact(90))), None);
        assert_eq!(missing_hits(0, 1, false, None), None);
    }
}

//! Which skips a page reports: those met before where the next page
//! resumes, so that the pages of a walk add up to the whole answer's
//! skips, each reported once.
//!
//! A skip is recorded with the number of items kept when it was met: it
//! lies after that many items of the page. A page that resumes after its
//! `k`-th item reports the skips met before item `k + 1` was kept; the
//! next page meets the others again, walking on from its cursor. The
//! probe for item `limit + 1`, and a count past the limit, meet skips
//! that lie beyond the cursor: they belong to later pages.

use crate::{Skipped, SkippedInput};

/// The skips of one collection, in runs by the number of items kept
/// before them.
#[derive(Default)]
pub(super) struct SkipLog {
    /// Runs of skips, each with the number of items kept before it, in
    /// increasing order of that number.
    runs: Vec<(usize, Skipped)>,
    /// Every skip, as one record (the envelope is measured with it as
    /// items arrive).
    all: Skipped,
}

impl SkipLog {
    fn run_at(&mut self, kept: usize) -> &mut Skipped {
        if self.runs.last().is_none_or(|(k, _)| *k != kept) {
            self.runs.push((kept, Skipped::new()));
        }
        let last = self.runs.len() - 1;
        &mut self.runs[last].1
    }

    /// Records a skip met after `kept` items were kept.
    pub(super) fn record(&mut self, kept: usize, input: SkippedInput) {
        self.all.record(input.clone());
        self.run_at(kept).record(input);
    }

    /// Records skips met after `kept` items were kept.
    pub(super) fn absorb(&mut self, kept: usize, skipped: Skipped) {
        if !skipped.is_empty() {
            self.all.absorb(skipped.clone());
            self.run_at(kept).absorb(skipped);
        }
    }

    /// Every skip recorded so far.
    pub(super) fn all(&self) -> &Skipped {
        &self.all
    }

    /// The skips a page of the first `k` items reports when it resumes
    /// after item `k`: those met beyond it (by the probe, or a count past
    /// the limit) are left to the pages that reach them. A page of no
    /// items reports them all.
    pub(super) fn reported_at(&self, k: usize) -> Skipped {
        if k > 0 {
            self.split(k).0
        } else {
            self.all().clone()
        }
    }

    /// The skips met before item `k + 1` was kept, and those met after.
    pub(super) fn split(&self, k: usize) -> (Skipped, Skipped) {
        let (mut before, mut after) = (Skipped::new(), Skipped::new());
        for (kept, run) in &self.runs {
            if *kept < k {
                before.absorb(run.clone());
            } else {
                after.absorb(run.clone());
            }
        }
        (before, after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SkipReason;

    #[test]
    fn a_page_reports_the_skips_before_its_next_item() {
        let mut log = SkipLog::default();
        log.record(0, SkippedInput::new("a", SkipReason::Binary));
        log.record(2, SkippedInput::new("b", SkipReason::Binary));
        log.record(2, SkippedInput::new("c", SkipReason::Unreadable));
        log.record(3, SkippedInput::new("d", SkipReason::Hidden));
        let (before, after) = log.split(2);
        assert_eq!(before.total(), 1);
        assert_eq!(after.total(), 3);
        assert!(after.has_errors());
        let (before, after) = log.split(3);
        assert_eq!((before.total(), after.total()), (3, 1));
        assert_eq!(log.all().total(), 4);
    }
}

//! The one control of stopping: the budgets of a query's work (files
//! searched, bytes scanned, the deadline, the caller's cancellation), and
//! the two flags every searching thread reads (stop, and the counting
//! phase once the collection is full). Work is charged to a `Tally`; the
//! budgets say whether it must stop, between files and inside one. The
//! excerpt reads under the same budgets.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::{Budget, BudgetKind, Clock, Limits};

/// The work of a query so far, charged file by file.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tally {
    /// Files searched (the parts of one file count once).
    pub(crate) files: u64,
    /// Bytes scanned.
    pub(crate) scanned: u64,
}

impl Tally {
    /// Charges one file's search (or one part of it, `continued`):
    /// `scanned` bytes.
    pub(crate) fn charge(&mut self, scanned: u64, continued: bool) {
        self.files += u64::from(!continued);
        self.scanned += scanned;
    }
}

/// When a query must end, by its limits' clock.
struct Deadline {
    clock: Arc<dyn Clock>,
    at: Instant,
}

/// The budgets of one query and its stop, shared by every thread.
pub(crate) struct Budgets {
    max_files: Option<u64>,
    max_scanned_bytes: Option<u64>,
    deadline: Option<Deadline>,
    /// The deadline's length in milliseconds, for its record.
    deadline_ms: Option<u64>,
    /// Set when no more outcomes are wanted.
    stop: AtomicBool,
    /// Set once the collection is full and only counting remains.
    counting_only: AtomicBool,
}

impl Budgets {
    /// The budgets of a query that starts now under `limits`.
    pub(crate) fn new(limits: &Limits) -> Budgets {
        let deadline = limits.get_deadline().and_then(|after| {
            let clock = limits.get_clock();
            let from = limits.get_deadline_from().unwrap_or_else(|| clock.now());
            Some(Deadline {
                at: from.checked_add(after)?,
                clock,
            })
        });
        Budgets {
            max_files: limits.get_max_files(),
            max_scanned_bytes: limits.get_max_scanned_bytes(),
            deadline,
            deadline_ms: limits
                .get_deadline()
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            stop: AtomicBool::new(false),
            counting_only: AtomicBool::new(false),
        }
    }

    /// Returns true when no file may be read at all (`max_files(0)`): the
    /// budgets' first refusal. The first file is then not opened, and the
    /// query stops there (see `spent_before_file`).
    pub(crate) fn refuses_files(&self) -> bool {
        self.max_files == Some(0)
    }

    /// Before a file (`is_file`; else a skip) in path order: the budget
    /// spent by the work charged to `tally`, if one is. The first file is
    /// always searched, unless no file may be; `measured` is the deadline
    /// or cancellation as the collector measures it.
    pub(crate) fn spent_before_file(
        &self,
        tally: &Tally,
        is_file: bool,
        measured: impl FnOnce() -> Option<Budget>,
    ) -> Option<Budget> {
        if tally.files == 0 && !(is_file && self.refuses_files()) {
            return None;
        }
        if let Some(max) = self.max_files {
            if tally.files >= max {
                return Some(Budget::new(BudgetKind::Files, max, tally.files));
            }
        }
        self.spent_between_parts(tally, measured)
    }

    /// Between files, or between two parts of one: the budget spent by
    /// the bytes charged to `tally`, or the deadline, if one is.
    pub(crate) fn spent_between_parts(
        &self,
        tally: &Tally,
        measured: impl FnOnce() -> Option<Budget>,
    ) -> Option<Budget> {
        if let Some(max) = self.max_scanned_bytes {
            if tally.scanned >= max {
                return Some(Budget::new(BudgetKind::ScannedBytes, max, tally.scanned));
            }
        }
        measured()
    }

    /// Returns true when the scanned bytes may stop the search of a file
    /// of `len` bytes inside it, as the reader checks them at the end of
    /// each read block but the last: only a file longer than the budget
    /// reaches it there. A file a corpus knows holds no match is then
    /// read rather than taken as searched whole, so that the answer stops
    /// where the tree's does. The deadline is no such budget: a file not
    /// read takes no time, and an answer that did not stop in it is as
    /// true as one that did.
    #[cfg_attr(not(feature = "index"), allow(dead_code))]
    pub(crate) fn may_stop_inside(&self, len: u64) -> bool {
        self.max_scanned_bytes.is_some_and(|max| len > max)
    }

    /// Returns true when each file searched is charged to a budget (the
    /// files, the scanned bytes): a corpus that knows a file holds no
    /// match must then still hand it on (`Entry::NoMatch`), where it
    /// comes, for the budget to stop where the tree's does. Without one,
    /// such a file changes nothing of the answer, and need not be handed
    /// on at all.
    #[cfg_attr(not(feature = "index"), allow(dead_code))]
    pub(crate) fn charges_files(&self) -> bool {
        self.max_files.is_some() || self.max_scanned_bytes.is_some()
    }

    /// Inside a file, `scanned` bytes into its search: the budget that
    /// stops it there, if one is spent (the scanned bytes, then the
    /// deadline, recorded as its own length).
    pub(crate) fn spent_inside_file(&self, scanned: u64) -> Option<Budget> {
        if let Some(max) = self.max_scanned_bytes.filter(|&max| scanned >= max) {
            return Some(Budget::new(BudgetKind::ScannedBytes, max, scanned));
        }
        if self.deadline_passed() {
            return Some(self.deadline_spent());
        }
        None
    }

    /// Returns true once the query's deadline has passed.
    fn deadline_passed(&self) -> bool {
        self.deadline
            .as_ref()
            .is_some_and(|d| d.clock.now() >= d.at)
    }

    /// The record of the deadline once it stopped a search where the time
    /// spent was not measured again: the deadline as both its limit and
    /// its use.
    pub(crate) fn deadline_spent(&self) -> Budget {
        let max = self.deadline_ms.unwrap_or(0);
        Budget::new(BudgetKind::Deadline, max, max)
    }

    /// Stops every thread of the query.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether the query was stopped (the tree's threads ask it).
    #[cfg_attr(not(feature = "tree"), allow(dead_code))]
    pub(crate) fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// From now on only counting remains: files need build no items.
    pub(crate) fn start_counting(&self) {
        self.counting_only.store(true, Ordering::Relaxed);
    }

    pub(crate) fn is_counting_only(&self) -> bool {
        self.counting_only.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{Budgets, Tally};
    use crate::{Budget, BudgetKind, Clock, Limits, ManualClock};

    #[test]
    fn the_first_file_is_searched_unless_no_file_may_be() {
        let none = || None;
        let fresh = Tally::default();
        let open = Budgets::new(&Limits::new().max_files(1).max_scanned_bytes(0));
        assert!(!open.refuses_files());
        assert_eq!(open.spent_before_file(&fresh, true, none), None);
        let closed = Budgets::new(&Limits::new().max_files(0));
        assert!(closed.refuses_files());
        // A skip before the first file is recorded; the file is refused.
        assert_eq!(closed.spent_before_file(&fresh, false, none), None);
        assert_eq!(
            closed.spent_before_file(&fresh, true, none),
            Some(Budget::new(BudgetKind::Files, 0, 0))
        );
    }

    #[test]
    fn work_charged_is_checked_files_then_bytes_then_the_deadline() {
        let limits = Limits::new().max_files(2).max_scanned_bytes(100);
        let budgets = Budgets::new(&limits);
        let mut tally = Tally::default();
        tally.charge(60, false);
        tally.charge(10, true);
        assert_eq!((tally.files, tally.scanned), (1, 70));
        let late = || Some(Budget::new(BudgetKind::Deadline, 5, 6));
        assert_eq!(budgets.spent_before_file(&tally, true, || None), None);
        assert_eq!(budgets.spent_before_file(&tally, true, late), late());
        tally.charge(40, false);
        assert_eq!(
            budgets.spent_before_file(&tally, true, late),
            Some(Budget::new(BudgetKind::Files, 2, 2))
        );
        assert_eq!(
            budgets.spent_between_parts(&tally, late),
            Some(Budget::new(BudgetKind::ScannedBytes, 100, 110))
        );
        // Inside a file, its own bytes count.
        assert_eq!(budgets.spent_inside_file(99), None);
        assert_eq!(
            budgets.spent_inside_file(100),
            Some(Budget::new(BudgetKind::ScannedBytes, 100, 100))
        );
    }

    #[test]
    fn only_the_scanned_bytes_stop_inside_a_file_and_only_a_longer_one() {
        let deadline = Budgets::new(&Limits::new().deadline(Duration::from_millis(1)));
        assert!(!deadline.may_stop_inside(u64::MAX));
        assert!(!deadline.charges_files());
        let scanned = Budgets::new(&Limits::new().max_scanned_bytes(100));
        assert!(!scanned.may_stop_inside(100));
        assert!(scanned.may_stop_inside(101));
        assert!(scanned.charges_files());
        assert!(Budgets::new(&Limits::new().max_files(3)).charges_files());
        assert!(!Budgets::new(&Limits::new()).charges_files());
    }

    #[test]
    fn the_deadline_inside_a_file_is_recorded_as_its_length() {
        let clock = ManualClock::new();
        let limits = Limits::new()
            .deadline(Duration::from_millis(50))
            .clock(clock.clone());
        let budgets = Budgets::new(&limits);
        assert_eq!(budgets.spent_inside_file(0), None);
        clock.advance(Duration::from_millis(50));
        assert_eq!(
            budgets.spent_inside_file(0),
            Some(Budget::new(BudgetKind::Deadline, 50, 50))
        );
        assert!(!budgets.is_stopped() && !budgets.is_counting_only());
        budgets.stop();
        budgets.start_counting();
        assert!(budgets.is_stopped() && budgets.is_counting_only());
    }

    #[test]
    fn a_deadline_counted_from_an_earlier_instant_has_that_much_less_left() {
        let clock = ManualClock::new();
        let arrived = clock.now();
        clock.advance(Duration::from_millis(40));
        let limits = Limits::new()
            .deadline(Duration::from_millis(50))
            .deadline_from(arrived)
            .clock(clock.clone());
        let budgets = Budgets::new(&limits);
        clock.advance(Duration::from_millis(9));
        assert_eq!(budgets.spent_inside_file(0), None);
        clock.advance(Duration::from_millis(1));
        // Stated as the caller gave it: 50 ms, all of it used.
        assert_eq!(
            budgets.spent_inside_file(0),
            Some(Budget::new(BudgetKind::Deadline, 50, 50))
        );
    }
}

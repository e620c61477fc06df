//! The plan of one query: what it asks of each file, where it resumes,
//! which files it covers, and the budgets checked inside a file. Every
//! searching thread reads the same plan.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::search::engine::packed::Spares;
use crate::search::matcher::Matcher;
use crate::{Budget, BudgetKind, Limits};

/// What a query asks of each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Every matching line, as a `Match`.
    Lines,
    /// The number of matching lines.
    Count,
    /// Whether any line matches.
    Any,
}

/// The per-file work of one query, shared by every worker.
pub(crate) struct Plan<'a> {
    /// The query the matcher was built from (an index plans its
    /// candidate files from its syntax).
    #[cfg_attr(not(feature = "index"), allow(dead_code))]
    pub(crate) query: &'a crate::search::Query,
    pub(crate) matcher: &'a Matcher,
    pub(crate) mode: Mode,
    /// The most items a file needs to produce: `limit + 1`.
    pub(crate) cap: Option<usize>,
    /// Count matching lines past the cap (for an exact total).
    pub(crate) count_rest: bool,
    pub(crate) max_columns: Option<usize>,
    /// Where to resume: a path and the byte offset of a line start in it
    /// (`u64::MAX`: after the whole file).
    pub(crate) start: Option<(String, u64)>,
    /// The number of the line at the start, when the cursor knows it: the
    /// file is then read from there, not from its start.
    pub(crate) start_line: Option<u64>,
    /// Normalized path filters; empty for the whole corpus.
    pub(crate) filters: Vec<String>,
    /// Set once the collection is full and only counting remains.
    pub(crate) counting_only: AtomicBool,
    /// Set when no more outcomes are wanted.
    pub(crate) stop: AtomicBool,
    /// The query's deadline, checked inside a file between chunks.
    pub(crate) deadline: Option<Deadline>,
    /// The scanned-bytes budget: no file is scanned past it.
    pub(crate) max_scanned_bytes: Option<u64>,
    /// `max_files(0)`: no file is read.
    pub(crate) reads_nothing: bool,
    /// Buffers for matching lines, passed from file to file.
    pub(crate) spares: Spares,
}

/// When a query must end, by its limits' clock.
pub(crate) struct Deadline {
    clock: std::sync::Arc<dyn crate::Clock>,
    at: std::time::Instant,
}

impl Deadline {
    /// The deadline of a query that starts now under `limits`, if any.
    pub(crate) fn of(limits: &Limits) -> Option<Deadline> {
        let after = limits.deadline?;
        let clock = std::sync::Arc::clone(&limits.clock);
        let now = clock.now();
        Some(Deadline {
            at: now.checked_add(after)?,
            clock,
        })
    }

    /// Returns true once the deadline has passed.
    pub(crate) fn passed(&self) -> bool {
        self.clock.now() >= self.at
    }

    /// The record of the deadline of `limits` once it stopped a search
    /// where the time spent was not measured again: the deadline as both
    /// its limit and its use.
    pub(crate) fn spent(limits: &Limits) -> Budget {
        let max = limits
            .deadline
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Budget::new(BudgetKind::Deadline, max, max)
    }
}

impl Plan<'_> {
    pub(crate) fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Returns true once the query's deadline has passed.
    pub(crate) fn deadline_passed(&self) -> bool {
        self.deadline.as_ref().is_some_and(Deadline::passed)
    }

    /// Where to begin searching in the file at `path`.
    pub(crate) fn offset_in(&self, path: &str) -> u64 {
        match &self.start {
            Some((p, offset)) if p == path => *offset,
            _ => 0,
        }
    }

    /// Where to begin reading the file at `path`, and the number of the
    /// line there: the byte before the start (its line end, which the
    /// search checks) when the cursor knows the start's line, else the
    /// file's start.
    pub(crate) fn read_from(&self, path: &str) -> (u64, u64) {
        match (&self.start, self.start_line) {
            (Some((p, offset)), Some(line)) if p == path && *offset > 0 && line > 1 => {
                (offset - 1, line - 1)
            }
            _ => (0, 1),
        }
    }
}

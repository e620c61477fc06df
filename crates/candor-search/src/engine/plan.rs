//! The plan of one query: what it asks of each file, where it resumes and
//! which files it covers. Fixed once the query starts; every searching
//! thread reads the same plan. What may stop the query is the budgets'
//! (`budgets.rs`).

use crate::matcher::Matcher;
use crate::position::{Place, Position};

/// What a query asks of each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileReport {
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
    pub(crate) query: &'a crate::Query,
    pub(crate) matcher: &'a Matcher,
    pub(crate) mode: FileReport,
    /// The most items a file needs to produce: `limit + 1`.
    pub(crate) cap: Option<usize>,
    /// Count matching lines past the cap (for an exact total).
    pub(crate) count_rest: bool,
    pub(crate) max_columns: Option<usize>,
    /// Where to resume (a cursor's position), if anywhere.
    pub(crate) start: Option<Position>,
    /// Normalized path filters, sorted in path order; empty for the whole
    /// corpus.
    pub(crate) filters: Vec<String>,
}

impl Plan<'_> {
    /// Returns true when the caller named the file at `path` itself (a
    /// path filter that is the file, or the file of a find-in-file): it
    /// is then read as text whatever NUL bytes it holds.
    pub(crate) fn names(&self, path: &str) -> bool {
        self.filters
            .binary_search_by(|f| crate::path::cmp_paths(f, path))
            .is_ok()
    }

    /// Where to begin searching in the file at `path`: the resume point
    /// when it is in this file, else the file's start.
    pub(crate) fn start_in(&self, path: &str) -> Place {
        match &self.start {
            Some(start) if start.path == path => start.place,
            _ => Place::START,
        }
    }

    /// Where to begin reading the file at `path` (the byte before the
    /// start, its line end, which the search checks), and the number of
    /// the line there, when the cursor knows the start's line: the file
    /// is then read from there. `None`: from the file's start.
    pub(crate) fn read_from(&self, path: &str) -> Option<(u64, u64)> {
        match self.start_in(path) {
            Place::Line {
                offset,
                number: Some(line),
            } if offset > 0 && line > 1 => Some((offset - 1, line - 1)),
            _ => None,
        }
    }
}

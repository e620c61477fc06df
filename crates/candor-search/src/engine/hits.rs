//! What one file's search yields: its matching lines (packed), or their
//! count; and the size of the parts a file with many matching lines is
//! handed on in.

use crate::engine::packed::PackedLines;

/// What one file yielded.
pub(crate) enum Hits {
    Lines {
        /// The matching lines, each with the place to resume after it.
        items: PackedLines,
        /// Matching lines past the cap: all of them when the plan counts
        /// them (`count_rest`), else `1`, the line that proves there is
        /// more.
        rest: u64,
    },
    Count(u64),
}

impl Hits {
    /// How many matching lines the file holds, as far as it was searched:
    /// past the cap, all of them when the plan counts them, else one more
    /// (for `Any`, `1` when a line matches).
    pub(crate) fn matching_lines(&self) -> u64 {
        match self {
            Hits::Lines { items, rest } => items.len() as u64 + rest,
            Hits::Count(n) => *n,
        }
    }
}

/// How many matching lines a file's search lists before it hands them on
/// and goes on in a new part, and how many bytes they may take (as
/// `PackedLines::bytes` counts them): one file's lines are never held
/// whole, and a part of long lines holds no more than a part of short
/// ones, give or take its last line.
pub(crate) const PART_LINES: usize = 2048;
pub(crate) const PART_BYTES: usize = 512 * 1024;

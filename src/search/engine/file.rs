//! The per-file search: one opened file read chunk by chunk from the
//! plan's start in it (its chunks searched by `scan.rs`), and its outcome
//! (searched, skipped or failed) handed on in path order; a file with
//! many matching lines in parts, each outcome saying where the next goes
//! on.

use std::borrow::Cow;

use crate::error::Error;
use crate::search::engine::packed::PackedLines;
use crate::search::engine::plan::Plan;
use crate::search::engine::scan::FileScan;
use crate::search::matcher::Matcher;
use crate::search::reader::{
    AfterRead, BLOCK, Ended, FileRead, Known, Opened, skipped, visit_memory,
};
use crate::{SkipReason, SkippedInput};

/// What one file yielded.
pub(crate) enum Hits {
    Lines {
        /// The matching lines, each with the offset to resume after it.
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

/// The outcome of one file, in path order.
///
/// The path is borrowed where it can be: an in-memory corpus would
/// otherwise copy every document's name on every query, hits or not.
pub(crate) enum FileOutcome<'p> {
    Searched {
        path: Cow<'p, str>,
        scanned: u64,
        hits: Hits,
        /// A work budget stopped the search of this file here (a line
        /// start, and its number): the hits are those before it.
        stopped_at: Option<(u64, u64)>,
        /// The search of the file ended before its end (at a NUL byte, a
        /// line too long, a change or an error while read): the rest of
        /// it, skipped, and why.
        tail: Option<SkippedInput>,
        /// These hits are one part of the file's (`PART_LINES` of them):
        /// its search goes on from here, once they are taken.
        more: Option<Box<Unfinished>>,
        /// This outcome goes on with a file an earlier one began.
        continued: bool,
    },
    Skipped(SkippedInput),
    Failed(Error),
}

impl<'p> FileOutcome<'p> {
    /// A file searched whole.
    fn searched(path: Cow<'p, str>, scanned: u64, hits: Hits) -> FileOutcome<'p> {
        FileOutcome::Searched {
            path,
            scanned,
            hits,
            stopped_at: None,
            tail: None,
            more: None,
            continued: false,
        }
    }

    /// Takes out what is left of the file's search, if this outcome is one
    /// part of it.
    pub(crate) fn take_more(&mut self) -> Option<Box<Unfinished>> {
        match self {
            FileOutcome::Searched { more, .. } => more.take(),
            _ => None,
        }
    }

    /// The same outcome, owning its path (to cross threads, or to outlive
    /// the path it was searched under).
    pub(crate) fn into_owned(self) -> FileOutcome<'static> {
        match self {
            FileOutcome::Searched {
                path,
                scanned,
                hits,
                stopped_at,
                tail,
                more,
                continued,
            } => FileOutcome::Searched {
                path: Cow::Owned(path.into_owned()),
                scanned,
                hits,
                stopped_at,
                tail,
                more,
                continued,
            },
            FileOutcome::Skipped(input) => FileOutcome::Skipped(input),
            FileOutcome::Failed(error) => FileOutcome::Failed(error),
        }
    }
}

/// What is left of a file's search after one part of it: where it goes
/// on, and the count so far. It owns the open file, if there is one, so a
/// file is never opened twice in one search; the next part may be searched
/// by another thread.
pub(crate) struct Unfinished {
    path: String,
    /// Where the search goes on: a line start.
    at: u64,
    /// The number of the line at `at`.
    line_number: u64,
    /// The file's lines listed so far.
    listed: usize,
    /// Where the search of the file began.
    start: u64,
    /// The file being read; `None` for a document, whose bytes its corpus
    /// gives again.
    read: Option<FileRead>,
}

impl Unfinished {
    /// The file, where its search goes on (a line start), and the number
    /// of the line there.
    pub(crate) fn goes_on_at(&self) -> (&str, u64, u64) {
        (&self.path, self.at, self.line_number)
    }
}

/// Searches one opened file from the plan's start in it (a line start),
/// reading it through `buffer` chunk by chunk (see `reader.rs`): from its
/// start, or from the plan's start when the cursor knows the line number
/// there (the file is unchanged since: its stamp says so).
///
/// The binary rule is the same in every mode and with any thread count
/// (see `reader.rs`): a NUL byte near the start makes the whole file
/// binary, one further in ends its search at the start of its line. A
/// file whose lines are no longer needed (past the cap, or one found for
/// `Any`) is read no further, once its start was checked for the rule.
/// Its matching lines are handed on in parts of `PART_LINES`: an outcome
/// with `more` is one part, and `search_more` goes on with the file.
///
/// `matcher` is the plan's, or a clone of it: each thread searching with
/// its own clone avoids contention on the regex engine's shared caches.
pub(crate) fn search_opened<'p>(
    plan: &Plan<'_>,
    matcher: &Matcher,
    path: &'p str,
    opened: Opened<'_>,
    buffer: &mut Vec<u8>,
    after_read: AfterRead<'_>,
) -> FileOutcome<'p> {
    let start = plan.offset_in(path);
    // A page resumed inside the file reads it from there.
    let (from, line_number) = plan.read_from(path);
    let reading = match opened {
        Opened::Skip(input) => return FileOutcome::Skipped(input),
        // Resuming after the whole file: nothing of it is left to search.
        _ if start == u64::MAX => {
            return FileOutcome::searched(
                Cow::Borrowed(path),
                0,
                FileScan::new(plan, matcher, path, start).finish(),
            );
        }
        Opened::Memory(bytes, known) => {
            let at = usize::try_from(from).unwrap_or(usize::MAX);
            Reading::Memory(bytes, known, at)
        }
        Opened::File(file, rules) => match FileRead::open(file, rules) {
            Ok(mut read) => {
                read.resume_at(from);
                Reading::File(read)
            }
            Err((reason, detail)) => return FileOutcome::Skipped(skipped(path, reason, detail)),
        },
    };
    let mut scan = FileScan::new(plan, matcher, path, start);
    scan.line_number = line_number;
    search_part(scan, Cow::Borrowed(path), reading, from, buffer, after_read)
}

/// Goes on with a file's search after one part of it. `reopen` gives a
/// document's bytes again.
pub(crate) fn search_more<'r>(
    plan: &Plan<'_>,
    matcher: &Matcher,
    more: Unfinished,
    reopen: impl FnOnce(&str) -> Opened<'r>,
    buffer: &mut Vec<u8>,
) -> FileOutcome<'static> {
    let Unfinished {
        path,
        at,
        line_number,
        listed,
        start,
        read,
    } = more;
    let reading = match read {
        Some(mut read) => {
            read.resume_at(at);
            Reading::File(read)
        }
        None => match reopen(&path) {
            Opened::Memory(bytes, known) => {
                Reading::Memory(bytes, known, usize::try_from(at).unwrap_or(usize::MAX))
            }
            // A document's corpus gives its bytes; only a bug gets here.
            _ => {
                return FileOutcome::Skipped(SkippedInput::new(path, SkipReason::Vanished));
            }
        },
    };
    let mut scan = FileScan::new(plan, matcher, &path, start);
    scan.line_number = line_number;
    scan.listed = listed;
    scan.first = false;
    let mut outcome = search_part(scan, Cow::Borrowed(&path), reading, at, buffer, None);
    if let FileOutcome::Searched { continued, .. } = &mut outcome {
        *continued = true;
    }
    outcome.into_owned()
}

/// How a file's bytes are read.
enum Reading<'b> {
    /// A document's bytes, and where to go on from.
    Memory(&'b [u8], Known, usize),
    File(FileRead),
}

/// Searches a file from `begin` (its start, or where its last part ended)
/// until its end, a stop, or a part's worth of lines.
fn search_part<'p>(
    mut scan: FileScan<'_, '_>,
    path: Cow<'p, str>,
    reading: Reading<'_>,
    begin: u64,
    buffer: &mut Vec<u8>,
    after_read: AfterRead<'_>,
) -> FileOutcome<'p> {
    let start = scan.start;
    if let Reading::Memory(_, known, _) = &reading {
        scan.utf8 = known.utf8;
    }
    let (ended, mut read) = {
        let mut visit = |chunk: &[u8], base: u64, last: bool| scan.visit(chunk, base, last);
        match reading {
            Reading::Memory(bytes, known, from) => {
                (visit_memory(bytes, known, BLOCK, from, &mut visit), None)
            }
            Reading::File(mut read) => (read.visit(buffer, after_read, &mut visit), Some(read)),
        }
    };
    if let Some(error) = scan.error.take() {
        return FileOutcome::Failed(error);
    }
    let begin = begin.max(start);
    let (end, stopped_at, tail) = match ended {
        Ended::Skip(reason, detail) => {
            return FileOutcome::Skipped(skipped(&path, reason, detail));
        }
        Ended::Whole(len) => {
            if start > len {
                return FileOutcome::Failed(Error::cursor_out_of_range(format!(
                    "offset {start} is not the start of a line of {path:?} ({len} bytes)"
                )));
            }
            (len, None, None)
        }
        Ended::Stopped(at) => match scan.paused {
            Some(paused) => {
                let more = Unfinished {
                    path: path.clone().into_owned(),
                    at: paused,
                    line_number: scan.line_number,
                    listed: scan.listed + scan.items.len(),
                    start,
                    read: read.take(),
                };
                return FileOutcome::Searched {
                    scanned: paused.saturating_sub(begin),
                    hits: scan.finish(),
                    path,
                    stopped_at: None,
                    tail: None,
                    more: Some(Box::new(more)),
                    continued: false,
                };
            }
            // Nothing more of the file was wanted: it was searched as far
            // as it was read.
            None if scan.done => (at, None, None),
            None => (at, Some((at, scan.line_number)), None),
        },
        Ended::Cut { at, reason, detail } => (at, None, Some(skipped(&path, reason, Some(detail)))),
    };
    FileOutcome::Searched {
        scanned: end.saturating_sub(begin),
        hits: scan.finish(),
        path,
        stopped_at,
        tail,
        more: None,
        continued: false,
    }
}

/// The outcome of a whole file, `len` bytes searched from its start, known
/// to hold no matching line and no NUL: what `search_opened` would give
/// it, without reading it again.
pub(crate) fn no_hits<'p>(
    plan: &Plan<'_>,
    matcher: &Matcher,
    path: &'p str,
    len: u64,
) -> FileOutcome<'p> {
    FileOutcome::searched(
        Cow::Borrowed(path),
        len,
        FileScan::new(plan, matcher, path, 0).finish(),
    )
}

/// The place of a file that `max_files(0)` leaves unread: the result
/// stage stops there before it counts it.
pub(crate) fn unread(path: &str) -> FileOutcome<'_> {
    FileOutcome::searched(Cow::Borrowed(path), 0, Hits::Count(0))
}

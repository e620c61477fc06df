//! The per-file search: one opened file read chunk by chunk from the
//! plan's start in it, its matching lines listed or counted, and its
//! outcome (searched, skipped or failed) handed on in path order.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

use crate::SkippedInput;
use crate::error::Error;
use crate::search::engine::packed::PackedLines;
use crate::search::engine::plan::{Mode, Plan};
use crate::search::lines;
use crate::search::matcher::{MatchedLines, Matcher};
use crate::search::reader::{AfterRead, BLOCK, Ended, Opened, skipped, visit_file, visit_memory};

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

/// The outcome of one file, in path order.
///
/// The path is borrowed where it can be: an in-memory corpus would
/// otherwise copy every document's name on every query, hits or not.
pub(crate) enum FileOutcome<'p> {
    Searched {
        path: Cow<'p, str>,
        scanned: u64,
        hits: Hits,
        /// The deadline stopped the search of this file here (a line
        /// start): the hits are those before it.
        stopped_at: Option<u64>,
    },
    Skipped(SkippedInput),
    Failed(Error),
}

impl FileOutcome<'_> {
    /// The same outcome, owning its path (to cross threads).
    #[cfg(feature = "tree")]
    pub(crate) fn into_owned(self) -> FileOutcome<'static> {
        match self {
            FileOutcome::Searched {
                path,
                scanned,
                hits,
                stopped_at,
            } => FileOutcome::Searched {
                path: Cow::Owned(path.into_owned()),
                scanned,
                hits,
                stopped_at,
            },
            FileOutcome::Skipped(input) => FileOutcome::Skipped(input),
            FileOutcome::Failed(error) => FileOutcome::Failed(error),
        }
    }
}

/// Searches one opened file from the plan's start in it (a line start),
/// reading it through `buffer` chunk by chunk (see `reader.rs`).
///
/// The binary rule is the same in every mode and with any thread count:
/// a NUL byte anywhere makes a file binary, and a binary file is skipped
/// with no items. So every mode reads a file to its end (or its first
/// NUL), even once its matching lines are no longer needed; the lines
/// found meanwhile are held until then, at most `limit + 1` of them, each
/// cut at the column limit if there is one.
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
    if let Opened::Skip(input) = opened {
        return FileOutcome::Skipped(input);
    }
    if start == u64::MAX {
        // Resuming after the whole file: nothing of it is left to search.
        return FileOutcome::Searched {
            path: Cow::Borrowed(path),
            scanned: 0,
            hits: FileScan::new(plan, matcher, path, start).finish(),
            stopped_at: None,
        };
    }
    let mut scan = FileScan::new(plan, matcher, path, start);
    if let Opened::Memory(_, known) = &opened {
        scan.utf8 = known.utf8;
    }
    let ended = {
        let mut visit = |chunk: &[u8], base: u64, last: bool| scan.visit(chunk, base, last);
        match opened {
            Opened::Memory(bytes, known) => visit_memory(bytes, known, BLOCK, &mut visit),
            Opened::File(file, rules) => visit_file(file, rules, buffer, after_read, &mut visit),
            Opened::Skip(_) => unreachable!("a skipped file was answered above"),
        }
    };
    if let Some(error) = scan.error.take() {
        return FileOutcome::Failed(error);
    }
    let (end, stopped_at) = match ended {
        Ended::Skip(reason, detail) => {
            return FileOutcome::Skipped(skipped(path, reason, detail));
        }
        Ended::Whole(len) => {
            if start > len {
                return FileOutcome::Failed(Error::cursor_out_of_range(format!(
                    "offset {start} is not the start of a line of {path:?} ({len} bytes)"
                )));
            }
            (len, None)
        }
        Ended::Stopped(at) => (at, Some(at)),
    };
    FileOutcome::Searched {
        path: Cow::Borrowed(path),
        scanned: end.saturating_sub(start),
        hits: scan.finish(),
        stopped_at,
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
    FileOutcome::Searched {
        path: Cow::Borrowed(path),
        scanned: len,
        hits: FileScan::new(plan, matcher, path, 0).finish(),
        stopped_at: None,
    }
}

/// The place of a file that `max_files(0)` leaves unread: the result
/// stage stops there before it counts it.
pub(crate) fn unread(path: &str) -> FileOutcome<'_> {
    FileOutcome::Searched {
        path: Cow::Borrowed(path),
        scanned: 0,
        hits: Hits::Count(0),
        stopped_at: None,
    }
}

/// The search of one file, chunk by chunk: each chunk holds whole lines,
/// and no match spans a line, so the chunks' matches are the file's.
pub(crate) struct FileScan<'p, 'm> {
    plan: &'p Plan<'p>,
    matcher: &'m Matcher,
    path: &'p str,
    /// Where matching begins (a line start).
    start: u64,
    /// Lines mode builds items; otherwise lines are counted.
    items_wanted: bool,
    items: PackedLines,
    /// The line number of the first line of the next chunk (Lines mode).
    line_number: u64,
    rest: u64,
    count: u64,
    /// Nothing more is wanted of this file's lines (the cap, or one match
    /// for `Any`); its bytes are still read, for the binary rule.
    done: bool,
    /// A bad start, found on the way.
    error: Option<Error>,
    /// The file is known to be valid UTF-8, so the matcher need not check
    /// each chunk (a document, checked once when it was added).
    utf8: bool,
}

impl<'p, 'm> FileScan<'p, 'm> {
    pub(crate) fn new(
        plan: &'p Plan<'p>,
        matcher: &'m Matcher,
        path: &'p str,
        start: u64,
    ) -> FileScan<'p, 'm> {
        let counting_only = plan.counting_only.load(Ordering::Relaxed);
        FileScan {
            plan,
            matcher,
            path,
            start,
            items_wanted: plan.mode == Mode::Lines && !counting_only,
            items: PackedLines::default(),
            line_number: 1,
            rest: 0,
            count: 0,
            done: false,
            error: None,
            utf8: false,
        }
    }

    /// Searches one chunk of whole lines at offset `base` of the file.
    /// `Break` asks the reader to stop: the deadline passed (the file is
    /// then searched up to the chunk's end), or the start is bad.
    fn visit(&mut self, chunk: &[u8], base: u64, last: bool) -> ControlFlow<()> {
        let end = base + chunk.len() as u64;
        if self.start >= end {
            // Before the start: only its lines are counted.
            if self.items_wanted {
                self.line_number += lines::count_ends(chunk);
            }
            return ControlFlow::Continue(());
        }
        let from = usize::try_from(self.start.saturating_sub(base)).unwrap_or(chunk.len());
        if from > 0 && chunk[from - 1] != b'\n' {
            self.error = Some(Error::cursor_out_of_range(format!(
                "offset {} is not the start of a line of {:?}",
                self.start, self.path
            )));
            return ControlFlow::Break(());
        }
        if self.items_wanted {
            self.line_number += lines::count_ends(&chunk[..from]);
        }
        if !self.done {
            let scan = if self.utf8 {
                Cow::Borrowed(chunk)
            } else {
                self.matcher.prepare(chunk)
            };
            match self.plan.mode {
                Mode::Lines if self.items_wanted => self.lines(&scan, chunk, from, base, last),
                Mode::Any => {
                    if self.matcher.next_line(&scan, from).is_some() {
                        self.count = 1;
                        self.done = true;
                    }
                }
                Mode::Lines | Mode::Count => self.count += count_lines(self.matcher, &scan, from),
            }
        }
        // A work budget spent inside the file stops it at this chunk's
        // end, which is past the start: the next page advances. Only while
        // listing lines: a file's count or presence is one item, which a
        // part of the file cannot give.
        let scanned = end - self.start;
        if !last
            && self.items_wanted
            && (self
                .plan
                .max_scanned_bytes
                .is_some_and(|max| scanned >= max)
                || self.plan.deadline_passed())
        {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Lists a chunk's matching lines: matched in `haystack` (as the
    /// matcher reads it), shown from `original`. Counts the chunk's lines
    /// on the way, for the next chunk.
    fn lines(&mut self, haystack: &[u8], original: &[u8], from: usize, base: u64, last: bool) {
        let mut counted_to = from;
        let mut lines = MatchedLines::new(self.matcher, haystack, from);
        while let Some((hit, spans)) = lines.next_line() {
            let at_end = hit.next >= haystack.len();
            if self.plan.cap.is_some_and(|cap| self.items.len() >= cap) {
                if self.plan.count_rest {
                    self.rest += 1;
                    if at_end {
                        break;
                    }
                    continue;
                }
                // One more line proves there is more; the rest is not needed.
                self.rest = 1;
                self.done = true;
                return;
            }
            self.line_number += lines::count_ends(&haystack[counted_to..hit.start]);
            counted_to = hit.start;
            self.items.push(
                &original[hit.start..hit.content_end],
                base + hit.start as u64,
                self.line_number,
                spans,
                self.plan.max_columns,
                base + hit.next as u64,
            );
            if at_end {
                break;
            }
        }
        if !last {
            self.line_number += lines::count_ends(&haystack[counted_to..]);
        }
    }

    pub(crate) fn finish(self) -> Hits {
        if self.items_wanted {
            Hits::Lines {
                items: self.items,
                rest: self.rest,
            }
        } else {
            Hits::Count(self.count)
        }
    }
}

fn count_lines(matcher: &Matcher, haystack: &[u8], mut at: usize) -> u64 {
    let mut n = 0;
    while let Some(hit) = matcher.next_line(haystack, at) {
        n += 1;
        if hit.next >= haystack.len() {
            break;
        }
        at = hit.next;
    }
    n
}

//! The search of one file's chunks: its matching lines listed in parts
//! of `PART_LINES`, or counted, from where its search begins.

use std::borrow::Cow;
use std::mem;
use std::ops::ControlFlow;

use crate::engine::hits::{Hits, PART_BYTES, PART_LINES};
use crate::engine::long_line::LongLine;
use crate::engine::packed::PackedLines;
use crate::engine::plan::FileReport;
use crate::engine::search::QuerySearch;
use crate::lines;
use crate::matcher::{MatchedLines, Matcher};
use crate::reader::Piece;

/// The search of one file, chunk by chunk: each chunk holds whole lines,
/// and no match spans a line, so the chunks' matches are the file's.
pub(super) struct FileScan<'p, 'm> {
    search: &'p QuerySearch<'p>,
    matcher: &'m Matcher,
    /// Where matching begins (a line start).
    pub(super) start: u64,
    /// The next chunk is the first of the file this scan reads (not that
    /// of a part after the first).
    pub(super) first: bool,
    /// Lines mode builds items; otherwise lines are counted.
    items_wanted: bool,
    /// This part's items.
    pub(super) items: PackedLines,
    /// The file's items listed in earlier parts.
    pub(super) listed: usize,
    /// The line number of the first line of the next chunk, or of the
    /// line where the scan paused (Lines mode).
    pub(super) line_number: u64,
    rest: u64,
    count: u64,
    /// Nothing more is wanted of this file's lines (the cap, or one match
    /// for `Any`): it is read no further.
    pub(super) done: bool,
    /// The part is full: the scan paused at this line start.
    pub(super) paused: Option<u64>,
    /// The start is no line start of the file, as found on the way (the
    /// searcher says so, naming the file).
    pub(super) bad_start: bool,
    /// The file is known to be valid UTF-8, so the matcher need not check
    /// each chunk (a document, checked once when it was added).
    pub(super) utf8: bool,
    /// The line too long to hold whole that is being read in pieces.
    long: Option<Box<LongLine>>,
}

impl<'p, 'm> FileScan<'p, 'm> {
    pub(super) fn new(search: &'p QuerySearch<'p>, matcher: &'m Matcher, start: u64) -> Self {
        let plan = &search.plan;
        let counting_only = search.budgets.is_counting_only();
        FileScan {
            search,
            matcher,
            start,
            first: true,
            items_wanted: plan.mode == FileReport::Lines && !counting_only,
            items: PackedLines::default(),
            listed: 0,
            line_number: 1,
            rest: 0,
            count: 0,
            done: false,
            paused: None,
            bad_start: false,
            utf8: false,
            long: None,
        }
    }

    /// Returns true when this scan lists the file's matching lines (and
    /// so numbers them), rather than counting them or asking for one.
    pub(super) fn lists_lines(&self) -> bool {
        self.items_wanted
    }

    /// Searches one chunk of whole lines at offset `base` of the file.
    /// `Break` asks the reader to stop: the part is full, nothing more of
    /// the file is wanted, the deadline passed (the file is then searched
    /// up to the chunk's end), or the start is bad.
    pub(super) fn visit(&mut self, chunk: &[u8], base: u64, last: bool) -> ControlFlow<()> {
        let end = base + chunk.len() as u64;
        if self.start >= end {
            // Before the start: only its lines are counted.
            if self.items_wanted {
                self.line_number += lines::count_ends(chunk);
            }
            return ControlFlow::Continue(());
        }
        let from = usize::try_from(self.start.saturating_sub(base)).unwrap_or(chunk.len());
        // A file's first chunk begins at or before the start, unless the
        // start is inside the byte-order mark the reader left out (see
        // `reader.rs`): no line starts there.
        let in_mark = self.first && self.start > 0 && self.start < base;
        self.first = false;
        if in_mark || (from > 0 && chunk[from - 1] != b'\n') {
            self.bad_start = true;
            return ControlFlow::Break(());
        }
        if self.items_wanted {
            self.line_number += lines::count_ends(&chunk[..from]);
        }
        let scan = if self.utf8 {
            Cow::Borrowed(chunk)
        } else {
            self.matcher.prepare(chunk)
        };
        match self.search.plan.mode {
            FileReport::Lines if self.items_wanted => self.lines(&scan, chunk, from, base, last),
            FileReport::Any => {
                if self.matcher.next_line(&scan, from).is_some() {
                    self.count = 1;
                    self.done = true;
                }
            }
            FileReport::Lines | FileReport::Count => {
                self.count += count_lines(self.matcher, &scan, from)
            }
        }
        if self.done || self.paused.is_some() {
            return ControlFlow::Break(());
        }
        // A work budget spent inside the file stops it at this chunk's
        // end, which is past the start: the next page advances. Only while
        // listing lines: a file's count or presence is one item, which a
        // part of the file cannot give.
        let scanned = end - self.start;
        if !last && self.items_wanted && self.search.budgets.spent_inside_file(scanned).is_some() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Returns true when this scan can take a line too long to hold in
    /// pieces (see `long_line.rs`): the query has a column window
    /// narrower than such a line, and a matcher that can find a line's
    /// matches piece by piece.
    pub(super) fn takes_pieces(&self, max_line: usize) -> bool {
        self.search
            .plan
            .max_columns
            .is_some_and(|max| max < max_line)
            && self.matcher.piece_reach().is_some()
    }

    /// Takes one piece of a line too long to hold whole (see
    /// `reader::Piece`); at the line's end, searches it as `visit`
    /// searches a chunk's lines.
    pub(super) fn piece(&mut self, piece: Piece<'_>) -> ControlFlow<()> {
        let plan = &self.search.plan;
        let max = plan.max_columns.unwrap_or(usize::MAX);
        let fresh = self
            .long
            .as_ref()
            .is_none_or(|l| l.start != piece.line_start);
        if fresh {
            let line = LongLine::new(
                piece.line_start,
                max,
                self.matcher.piece_reach(),
                self.items_wanted,
            );
            match &mut self.long {
                Some(long) => **long = line,
                None => self.long = Some(Box::new(line)),
            }
        }
        let Some(long) = self.long.as_deref_mut() else {
            return ControlFlow::Continue(());
        };
        long.feed(Some(self.matcher), piece.bytes, piece.line_ends);
        if !piece.line_ends {
            return ControlFlow::Continue(());
        }
        let line_start = piece.line_start;
        let next = line_start + long.len_with(!piece.file_ends);
        let first = mem::replace(&mut self.first, false);
        // A file's first line starts after the start only when the start is
        // inside the byte-order mark the reader left out (see `visit`).
        let in_mark = first && self.start > 0 && self.start < line_start;
        if in_mark || self.start > line_start {
            // The start is after this line, or not a line start.
            if in_mark || self.start < next {
                self.bad_start = true;
                return ControlFlow::Break(());
            }
            if self.items_wanted {
                self.line_number += 1;
            }
            return ControlFlow::Continue(());
        }
        let Some(long) = self.long.take() else {
            return ControlFlow::Continue(());
        };
        let matched = long.matched();
        match plan.mode {
            FileReport::Lines if self.items_wanted => {
                let listed = self.listed + self.items.len();
                if matched && plan.cap.is_some_and(|cap| listed >= cap) {
                    if plan.count_rest {
                        self.rest += 1;
                    } else {
                        // One more line proves there is more.
                        self.rest = 1;
                        self.done = true;
                    }
                } else if matched {
                    if self.items.is_unallocated() {
                        self.items = self.search.spares.take();
                    }
                    self.items.push_long(&long, self.line_number, next);
                    let full = self.items.len() >= PART_LINES || self.items.bytes() >= PART_BYTES;
                    if full && !piece.file_ends {
                        self.paused = Some(next);
                    }
                }
                self.line_number += 1;
            }
            FileReport::Any => {
                if matched {
                    self.count = 1;
                    self.done = true;
                }
            }
            FileReport::Lines | FileReport::Count => self.count += u64::from(matched),
        }
        self.long = Some(long);
        if self.done || self.paused.is_some() {
            return ControlFlow::Break(());
        }
        let scanned = next - self.start;
        if !piece.file_ends
            && self.items_wanted
            && self.search.budgets.spent_inside_file(scanned).is_some()
        {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Lists a chunk's matching lines: matched in `haystack` (as the
    /// matcher reads it), shown from `original`. Counts the chunk's lines
    /// on the way, for the next chunk. Pauses once the part holds
    /// `PART_LINES` lines or `PART_BYTES` bytes, unless the file ends
    /// there.
    fn lines(&mut self, haystack: &[u8], original: &[u8], from: usize, base: u64, last: bool) {
        let mut counted_to = from;
        let plan = &self.search.plan;
        let reach = plan.max_columns.unwrap_or(usize::MAX);
        let mut lines = MatchedLines::new(self.matcher, haystack, from, reach);
        while let Some((hit, spans)) = lines.next_line() {
            let at_end = hit.next >= haystack.len();
            let listed = self.listed + self.items.len();
            if plan.cap.is_some_and(|cap| listed >= cap) {
                if plan.count_rest {
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
            if self.items.is_unallocated() {
                self.items = self.search.spares.take();
            }
            self.items.push(
                &original[hit.start..hit.content_end],
                base + hit.start as u64,
                self.line_number,
                spans,
                plan.max_columns,
                base + hit.next as u64,
            );
            let full = self.items.len() >= PART_LINES || self.items.bytes() >= PART_BYTES;
            if full && !(at_end && last) {
                // The next part starts on the next line.
                self.paused = Some(base + hit.next as u64);
                self.line_number += 1;
                return;
            }
            if at_end {
                break;
            }
        }
        if !last {
            self.line_number += lines::count_ends(&haystack[counted_to..]);
        }
    }

    pub(super) fn finish(self) -> Hits {
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

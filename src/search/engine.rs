//! The search itself: what happens in one file, and the ordered stage that
//! turns per-file outcomes into a `Bounded` result.
//!
//! A corpus (in memory or on disk) hands the engine its files' outcomes in
//! path order (the tree does the per-file work in parallel and reorders).
//! The ordered stage offers items to a `Collector`, applies the work
//! budgets between files, and, when asked for an exact total, keeps
//! counting after the collection is full, through a cheaper per-file path
//! that builds no items.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::collect::{Collector, Finished};
use crate::error::Error;
use crate::search::matcher::{MatchedLines, Matcher};
use crate::search::reader::{AfterRead, BLOCK, Ended, Opened, visit_file, visit_memory};
use crate::search::{FileCount, LineCut, Match, Span};
use crate::{Budget, BudgetKind, Completeness, Cursor, Limits, Scope, SkippedInput, Total};

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
}

/// What one file yielded.
pub(crate) enum Hits {
    Lines {
        /// The matching lines, each with the offset to resume after it.
        items: PackedLines,
        /// Matching lines past the cap: counted when `exact`, else a lower
        /// bound.
        rest: u64,
        exact: bool,
    },
    Count(u64),
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
            let input = SkippedInput::new(path, reason);
            return FileOutcome::Skipped(match detail {
                Some(detail) => input.with_detail(detail),
                None => input,
            });
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

/// The place of a file that `max_files(0)` leaves unread: the ordered
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
    exact: bool,
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
            exact: true,
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
                self.line_number += memchr::memchr_iter(b'\n', chunk).count() as u64;
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
            self.line_number += memchr::memchr_iter(b'\n', &chunk[..from]).count() as u64;
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
                self.exact = false;
                self.done = true;
                return;
            }
            self.line_number +=
                memchr::memchr_iter(b'\n', &haystack[counted_to..hit.start]).count() as u64;
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
            self.line_number += memchr::memchr_iter(b'\n', &haystack[counted_to..]).count() as u64;
        }
    }

    pub(crate) fn finish(self) -> Hits {
        if self.items_wanted {
            Hits::Lines {
                items: self.items,
                rest: self.rest,
                exact: self.exact,
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

/// The matching lines of one file, packed: one text buffer and one span
/// list for all of them. A file costs a few allocations however many of
/// its lines match, and the items are unpacked by the thread that takes
/// them (so their memory is also freed there, not across threads).
#[derive(Default)]
pub(crate) struct PackedLines {
    /// The lines' shown text, one after the other.
    text: String,
    /// The lines' match spans, relative to each line's text.
    spans: Vec<Span>,
    lines: Vec<PackedLine>,
}

struct PackedLine {
    line_number: u64,
    byte_offset: u64,
    /// Where the line's text ends in `text`: it starts where the previous
    /// line's ends.
    text_end: usize,
    /// Where the line's spans end in `spans`.
    spans_end: usize,
    cut: Option<LineCut>,
    /// The offset to resume after this line.
    resume: u64,
}

impl PackedLines {
    /// Adds one matching line (its content, without the line ending).
    fn push(
        &mut self,
        raw: &[u8],
        line_start: u64,
        line_number: u64,
        spans: &[Span],
        max_columns: Option<usize>,
        resume: u64,
    ) {
        if self.lines.is_empty() {
            // Room for a typical file's matching lines at once, rather
            // than doubling up from nothing.
            self.lines.reserve(16);
            self.spans.reserve(16);
            self.text.reserve(1024);
        }
        let cut = show(raw, spans, max_columns, &mut self.text, &mut self.spans);
        self.lines.push(PackedLine {
            line_number,
            byte_offset: line_start,
            text_end: self.text.len(),
            spans_end: self.spans.len(),
            cut,
            resume,
        });
    }

    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The items, each with the offset to resume after it. Items from
    /// `spares` are reused (their strings and span lists keep their
    /// memory), so a stream allocates next to nothing per line.
    pub(crate) fn into_matches(self, path: &str, spares: &mut Vec<Match>) -> Vec<(Match, u64)> {
        let mut text_at = 0;
        let mut spans_at = 0;
        let mut items = Vec::with_capacity(self.lines.len());
        for line in self.lines {
            let text = &self.text[text_at..line.text_end];
            let spans = &self.spans[spans_at..line.spans_end];
            let m = match spares.pop() {
                Some(mut m) => {
                    m.path.clear();
                    m.path.push_str(path);
                    m.line.clear();
                    m.line.push_str(text);
                    m.matches.clear();
                    m.matches.extend_from_slice(spans);
                    m.line_number = line.line_number;
                    m.byte_offset = line.byte_offset;
                    m.line_cut = line.cut;
                    m
                }
                None => Match {
                    path: path.to_owned(),
                    line_number: line.line_number,
                    byte_offset: line.byte_offset,
                    line: text.to_owned(),
                    matches: spans.to_vec(),
                    line_cut: line.cut,
                },
            };
            text_at = line.text_end;
            spans_at = line.spans_end;
            items.push((m, line.resume));
        }
        items
    }
}

/// Appends how a line (its content, without the line ending) is shown to
/// `text`, and its spans, moved to match, to `out`: cut at the column
/// limit around its first match, and converted to (lossy) UTF-8. Returns
/// the cut, if any.
pub(crate) fn show(
    raw: &[u8],
    spans: &[Span],
    max_columns: Option<usize>,
    text: &mut String,
    out: &mut Vec<Span>,
) -> Option<LineCut> {
    let len = raw.len();
    let (from, to) = match max_columns {
        Some(max) if len > max => {
            let first = spans.first().copied().unwrap_or(Span { start: 0, end: 0 });
            let first_start = first.start.min(len);
            let first_len = first.end.min(len) - first_start;
            let margin = max.saturating_sub(first_len) / 2;
            let mut from = first_start.saturating_sub(margin).min(len - max);
            // Move forward to a character boundary: the window stays within
            // `max` bytes and still starts at or before the match.
            while from < first_start && is_continuation(raw[from]) {
                from += 1;
            }
            let mut to = (from + max).min(len);
            while to < len && to > from && is_continuation(raw[to]) {
                to -= 1;
            }
            (from, to)
        }
        _ => (0, len),
    };
    let clipped = spans
        .iter()
        .filter(move |s| s.start <= to && s.end >= from && (s.start < to || s.is_empty()))
        .filter(move |s| s.start >= from || s.end > from)
        .map(move |s| Span {
            start: s.start.clamp(from, to) - from,
            end: s.end.clamp(from, to) - from,
        });
    append_lossy(&raw[from..to], clipped, text, out);
    max_columns.filter(|&m| len > m).map(|_| LineCut {
        original_bytes: len as u64,
        kept_from: from as u64,
    })
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Appends `bytes` to `text`, replacing invalid UTF-8 like
/// `String::from_utf8_lossy`, and appends `spans` (offsets in `bytes`)
/// to `out`, moved to the matching offsets in the appended text.
fn append_lossy(
    bytes: &[u8],
    spans: impl Iterator<Item = Span>,
    text: &mut String,
    out: &mut Vec<Span>,
) {
    if let Ok(valid) = std::str::from_utf8(bytes) {
        text.push_str(valid);
        out.extend(spans);
        return;
    }
    // (raw start, raw len, new start, new len, valid), new offsets from
    // the start of the appended text.
    let mut segments: Vec<(usize, usize, usize, usize, bool)> = Vec::new();
    let base = text.len();
    let mut raw = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        if !valid.is_empty() {
            segments.push((raw, valid.len(), text.len() - base, valid.len(), true));
            text.push_str(valid);
            raw += valid.len();
        }
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            segments.push((raw, invalid.len(), text.len() - base, 3, false));
            text.push('\u{FFFD}');
            raw += invalid.len();
        }
    }
    let shown = text.len() - base;
    let map = |offset: usize, is_end: bool| -> usize {
        for &(rs, rl, ns, nl, valid) in &segments {
            if offset < rs + rl || (offset == rs + rl && is_end && offset > rs && !valid) {
                if valid {
                    return ns + (offset - rs);
                }
                return if is_end && offset > rs { ns + nl } else { ns };
            }
        }
        shown
    };
    out.extend(spans.map(|s| {
        let start = map(s.start, false);
        // An empty match stays empty wherever it falls.
        let end = if s.is_empty() {
            start
        } else {
            map(s.end, true).max(start)
        };
        Span { start, end }
    }));
}

/// Turns one file's hits into items, each with the offset to resume
/// after it. The third argument holds items already handed on (by a
/// stream), whose memory the new items may reuse.
pub(crate) type ToItems<T> = fn(&str, Hits, &mut Vec<T>) -> Vec<(T, u64)>;

/// An item a query produces, with the path that orders it.
pub(crate) trait Item: Serialize + Send + Sync + 'static {
    fn path(&self) -> &str;
}

impl Item for Match {
    fn path(&self) -> &str {
        &self.path
    }
}

impl Item for FileCount {
    fn path(&self) -> &str {
        &self.path
    }
}

impl Item for String {
    fn path(&self) -> &str {
        self
    }
}

/// The ordered stage: takes file outcomes in path order and collects items.
pub(crate) struct Ordered<'l, T: Item> {
    pub(crate) collector: Collector<T>,
    limits: &'l Limits,
    mode: Mode,
    /// For each kept item, the offset to resume after it in its file.
    resume_offsets: Vec<u64>,
    files: u64,
    scanned: u64,
    /// Items in the full answer seen so far (kept, probed and counted).
    answer: u64,
    answer_exact: bool,
    /// Set once the count past the collection finished or gave up.
    count_end: Option<Total>,
    /// Where the first unsearched file starts, after a work-budget stop.
    scan_resume: Option<(String, u64)>,
    /// Where this run began (the cursor's position), to tell whether a
    /// cursor would advance.
    began_at: Option<(String, u64)>,
    error: Option<Error>,
    stream: Option<&'l mut dyn FnMut(&T)>,
    /// Items a stream has handed on, kept for their memory.
    spares: Vec<T>,
}

impl<'l, T: Item> Ordered<'l, T> {
    pub(crate) fn new(limits: &'l Limits, mode: Mode, began_at: Option<(String, u64)>) -> Self {
        Ordered {
            collector: Collector::new(limits),
            limits,
            mode,
            resume_offsets: Vec::new(),
            files: 0,
            scanned: 0,
            answer: 0,
            answer_exact: true,
            count_end: None,
            scan_resume: None,
            began_at,
            error: None,
            stream: None,
            spares: Vec::new(),
        }
    }

    pub(crate) fn streaming(
        limits: &'l Limits,
        mode: Mode,
        began_at: Option<(String, u64)>,
        sink: &'l mut dyn FnMut(&T),
    ) -> Self {
        let mut o = Ordered::new(limits, mode, began_at);
        o.collector = Collector::streaming(limits);
        o.stream = Some(sink);
        o
    }

    /// Takes the next outcome in path order. `Break` when no more outcomes
    /// are wanted.
    pub(crate) fn take(
        &mut self,
        plan: &Plan<'_>,
        outcome: FileOutcome<'_>,
        to_items: ToItems<T>,
    ) -> ControlFlow<()> {
        if self.collector.is_stopped() {
            return self.count(outcome);
        }
        let path = match &outcome {
            FileOutcome::Searched { path, .. } => Some(path.as_ref()),
            FileOutcome::Skipped(s) => Some(s.path()),
            FileOutcome::Failed(_) => None,
        };
        // `max_files(0)` searches nothing: the first file stops it (the
        // walk's skips before it are recorded, and a cursor names a file).
        let no_files =
            self.limits.max_files == Some(0) && matches!(outcome, FileOutcome::Searched { .. });
        if let (Some(path), true) = (path, self.files > 0 || no_files) {
            if let Some(budget) = self.work_budget_spent() {
                self.scan_resume = Some((path.to_owned(), plan.offset_in(path)));
                self.collector.stop_with(Completeness::TruncatedByBudget {
                    budget,
                    clamp: None,
                });
                return ControlFlow::Break(());
            }
        }
        match outcome {
            FileOutcome::Failed(error) => {
                self.error = Some(error);
                ControlFlow::Break(())
            }
            FileOutcome::Skipped(input) => {
                self.collector.skip(input);
                ControlFlow::Continue(())
            }
            FileOutcome::Searched {
                path,
                scanned,
                hits,
                stopped_at,
            } => {
                self.files += 1;
                self.scanned += scanned;
                let (n, exact) = contribution(self.mode, &hits);
                self.answer += n;
                self.answer_exact &= exact && stopped_at.is_none();
                // The deadline stopped the search inside this file: its
                // items before the stop stand, and the next page resumes
                // at the stop (or after the last item kept).
                let stop = stopped_at.map(|at| ((path.to_string(), at), self.budget_inside_file()));
                for (item, resume) in to_items(&path, hits, &mut self.spares) {
                    let spares = self.stream.is_some().then_some(&mut self.spares);
                    if self.collector.offer_recycling(item, spares).is_break() {
                        return self.after_stop(plan);
                    }
                    if let (Some(sink), Some(last)) = (self.stream.as_mut(), self.collector.last())
                    {
                        sink(last);
                    }
                    if self.stream.is_some() {
                        self.resume_offsets.clear();
                    }
                    self.resume_offsets.push(resume);
                }
                if let Some((at, budget)) = stop {
                    self.scan_resume = Some(at);
                    self.collector.stop_with(Completeness::TruncatedByBudget {
                        budget,
                        clamp: None,
                    });
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            }
        }
    }

    /// The budget that stopped a file's search inside it: the scanned
    /// bytes if they are spent, else the deadline.
    fn budget_inside_file(&self) -> Budget {
        if let Some(max) = self.limits.max_scanned_bytes {
            if self.scanned >= max {
                return Budget::new(BudgetKind::ScannedBytes, max, self.scanned);
            }
        }
        self.collector.deadline_passed().unwrap_or_else(|| {
            let max = self
                .limits
                .deadline
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            Budget::new(BudgetKind::Deadline, max, max)
        })
    }

    fn work_budget_spent(&self) -> Option<Budget> {
        if let Some(max) = self.limits.max_files {
            if self.files >= max {
                return Some(Budget::new(BudgetKind::Files, max, self.files));
            }
        }
        if let Some(max) = self.limits.max_scanned_bytes {
            if self.scanned >= max {
                return Some(Budget::new(BudgetKind::ScannedBytes, max, self.scanned));
            }
        }
        self.collector.deadline_passed()
    }

    /// After the collection filled: count on if asked, else stop.
    fn after_stop(&mut self, plan: &Plan<'_>) -> ControlFlow<()> {
        if self.limits.count_total && self.collector.stop_proves_more() && self.answer_exact {
            plan.counting_only.store(true, Ordering::Relaxed);
            if self.count_budget_spent() {
                return ControlFlow::Break(());
            }
            return ControlFlow::Continue(());
        }
        ControlFlow::Break(())
    }

    fn count_budget_spent(&mut self) -> bool {
        if self
            .limits
            .max_counted
            .is_some_and(|max| self.answer >= max)
            || self.collector.deadline_passed().is_some()
        {
            self.count_end = Some(Total::AtLeast(self.answer));
            return true;
        }
        false
    }

    fn count(&mut self, outcome: FileOutcome<'_>) -> ControlFlow<()> {
        if self.count_end.is_some() || !self.answer_exact {
            return ControlFlow::Break(());
        }
        match outcome {
            FileOutcome::Searched {
                hits, stopped_at, ..
            } => {
                let (n, exact) = contribution(self.mode, &hits);
                self.answer += n;
                if !exact || stopped_at.is_some() {
                    self.count_end = Some(Total::AtLeast(self.answer));
                    return ControlFlow::Break(());
                }
            }
            FileOutcome::Skipped(input) => self.collector.skip(input),
            FileOutcome::Failed(_) => {
                self.count_end = Some(Total::AtLeast(self.answer));
                return ControlFlow::Break(());
            }
        }
        if self.count_budget_spent() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn total_hint(&self) -> Option<Total> {
        if let Some(end) = self.count_end {
            return Some(end);
        }
        let counting =
            self.limits.count_total && self.collector.stop_proves_more() && self.answer_exact;
        Some(if counting {
            // The producer ran out: every file was counted.
            Total::Exact(self.answer)
        } else {
            Total::AtLeast(self.answer)
        })
    }

    /// Finishes the collection: the items kept and their disclosure, and
    /// whether strict mode is on.
    fn finish_parts(self, scope: &Scope, stamp: Stamp<'_>) -> Result<(Finished<T>, bool), Error> {
        let hint = self.total_hint();
        let streaming = self.stream.is_some();
        let Ordered {
            collector,
            limits,
            resume_offsets,
            scan_resume,
            began_at,
            error,
            ..
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let cursor_for = CursorFor {
            scope,
            stamp,
            resume_offsets: &resume_offsets,
            scan_resume: scan_resume.as_ref(),
            began_at: began_at.as_ref(),
            streaming,
            seen: collector.seen(),
        };
        let finished = collector.finish_parts(|kept| cursor_for.cursor(kept), hint)?;
        Ok((finished, limits.strict))
    }

    /// Builds the result.
    pub(crate) fn finish(
        self,
        scope: &Scope,
        stamp: Stamp<'_>,
    ) -> Result<crate::Bounded<T>, Error> {
        let (finished, strict) = self.finish_parts(scope, stamp)?;
        finished.into_bounded(strict)
    }

    /// Ends a stream: the same disclosure as `finish`, without the items.
    pub(crate) fn finish_stream(
        self,
        scope: &Scope,
        stamp: Stamp<'_>,
    ) -> Result<crate::Streamed, Error> {
        let (f, strict) = self.finish_parts(scope, stamp)?;
        let streamed = crate::Streamed::new(f.kept, f.disclosure);
        if strict && !streamed.is_complete() {
            return Err(Error::incomplete_stream(streamed));
        }
        Ok(streamed)
    }
}

/// What a search cursor records of the input it points at, to notice on
/// resuming that it changed (see `Source::stamp`).
pub(crate) type Stamp<'a> = &'a dyn Fn(&str) -> u64;

/// A stamp as a cursor holds it: fixed width, so that a cursor's length
/// does not depend on the stamp's value (nor the response's size on it).
pub(crate) fn stamp_key(stamp: u64) -> Vec<u8> {
    stamp.to_le_bytes().to_vec()
}

/// Where the next page starts, after the items kept: a search cursor's
/// key is the input's path as the corpus writes it (its own position in
/// the corpus's order, read back without asking the file system), the
/// offset in it, and the input's stamp.
struct CursorFor<'a> {
    scope: &'a Scope,
    stamp: Stamp<'a>,
    resume_offsets: &'a [u64],
    scan_resume: Option<&'a (String, u64)>,
    began_at: Option<&'a (String, u64)>,
    streaming: bool,
    seen: u64,
}

impl CursorFor<'_> {
    fn cursor<T: Item>(&self, kept: &[T]) -> Option<Cursor> {
        if let Some(last) = kept.last() {
            let index = if self.streaming { 0 } else { kept.len() - 1 };
            let offset = self.resume_offsets.get(index).copied().unwrap_or(u64::MAX);
            let path = last.path();
            return Some(self.scope.cursor(&(
                path.to_owned(),
                offset,
                stamp_key((self.stamp)(path)),
            )));
        }
        // Nothing kept: resume where scanning stopped, if no item was found
        // before it and that is past where this run began.
        let at = self.scan_resume?;
        if self.seen > 0 || self.began_at == Some(at) {
            return None;
        }
        let (path, offset) = at;
        Some(
            self.scope
                .cursor(&(path.clone(), *offset, stamp_key((self.stamp)(path)))),
        )
    }
}

fn contribution(mode: Mode, hits: &Hits) -> (u64, bool) {
    match (mode, hits) {
        (Mode::Lines, Hits::Lines { items, rest, exact }) => (items.len() as u64 + rest, *exact),
        (Mode::Lines, Hits::Count(n)) => (*n, true),
        (Mode::Count | Mode::Any, Hits::Count(n)) => (u64::from(*n > 0), true),
        (Mode::Count | Mode::Any, Hits::Lines { items, rest, .. }) => {
            (u64::from(!items.is_empty() || *rest > 0), true)
        }
    }
}

//! The matching lines of one file, packed: built by the thread that
//! searches the file, unpacked into items by the thread that takes them.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::thread::ThreadId;

use crate::engine::long_line::LongLine;
use crate::engine::show::show;
use crate::engine::sink::ItemSink;
use crate::position::Place;
use crate::{LineCut, Match, Span};

/// The matching lines of one file, packed: one text buffer and one span
/// list for all of them. A file costs a few allocations however many of
/// its lines match, and the items are built by the thread that takes
/// them, one at a time (so their memory is also freed there, not across
/// threads).
#[derive(Default)]
pub(crate) struct PackedLines {
    /// The lines' shown text, one after the other.
    text: String,
    /// The lines' match spans, relative to each line's text.
    spans: Vec<Span>,
    lines: Vec<PackedLine>,
    /// The cuts of the lines that were cut, in order: few lines are, and
    /// a cut kept beside each line would make every line larger.
    cuts: Vec<LineCut>,
    /// The thread that filled them, once taken from `Spares`.
    pub(crate) owner: Option<ThreadId>,
}

struct PackedLine {
    line_number: u64,
    byte_offset: u64,
    /// Where the line's text ends in `text`: it starts where the previous
    /// line's ends.
    text_end: usize,
    /// Where the line's spans end in `spans`.
    spans_end: usize,
    /// Where to resume after this line: the next line's start.
    resume: u64,
    /// The line was cut: its cut is the next in `cuts`.
    cut: bool,
}

impl PackedLines {
    /// Adds one matching line (its content, without the line ending).
    pub(crate) fn push(
        &mut self,
        raw: &[u8],
        line_start: u64,
        line_number: u64,
        spans: &[Span],
        max_columns: Option<usize>,
        resume: u64,
    ) {
        self.reserve_first();
        let cut = show(raw, spans, max_columns, &mut self.text, &mut self.spans);
        self.push_shown(cut, line_start, line_number, resume);
    }

    /// Adds one matching line too long to be held (see `long_line.rs`):
    /// shown from the bytes it kept, as `push` shows a line.
    pub(crate) fn push_long(&mut self, line: &LongLine, line_number: u64, resume: u64) {
        self.reserve_first();
        let cut = line.show(&mut self.text, &mut self.spans);
        self.push_shown(cut, line.start, line_number, resume);
    }

    fn reserve_first(&mut self) {
        if self.lines.is_empty() {
            // Room for a typical file's matching lines at once, rather
            // than doubling up from nothing.
            self.lines.reserve(16);
            self.spans.reserve(16);
            self.text.reserve(1024);
        }
    }

    /// Adds the line just shown to `text` and `spans`, and its cut.
    fn push_shown(&mut self, cut: Option<LineCut>, line_start: u64, line_number: u64, resume: u64) {
        if let Some(cut) = cut {
            self.cuts.push(cut);
        }
        self.lines.push(PackedLine {
            line_number,
            byte_offset: line_start,
            text_end: self.text.len(),
            spans_end: self.spans.len(),
            resume,
            cut: cut.is_some(),
        });
    }

    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// The bytes the lines take: their text, their spans and what is
    /// kept of each line.
    pub(crate) fn bytes(&self) -> usize {
        self.text.len()
            + self.spans.len() * std::mem::size_of::<Span>()
            + self.lines.len() * std::mem::size_of::<PackedLine>()
            + self.cuts.len() * std::mem::size_of::<LineCut>()
    }

    /// The bytes the buffers hold room for.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.text.capacity()
            + self.spans.capacity() * std::mem::size_of::<Span>()
            + self.lines.capacity() * std::mem::size_of::<PackedLine>()
            + self.cuts.capacity() * std::mem::size_of::<LineCut>()
    }

    /// Returns true when no room was taken yet.
    pub(crate) fn is_unallocated(&self) -> bool {
        self.lines.capacity() == 0
    }

    /// Offers each line to `sink` as a `Match` built by the closure it is
    /// given (from an old item, whose strings and span list keep their
    /// memory, or anew), with the place to resume after it, until `sink`
    /// breaks. So a stream allocates next to nothing per line, and no
    /// list of items is built.
    pub(crate) fn offer_matches(
        &self,
        path: &str,
        sink: &mut dyn ItemSink<Match>,
    ) -> ControlFlow<()> {
        let mut text_at = 0;
        let mut spans_at = 0;
        let mut cuts = self.cuts.iter();
        // Once an item is built here, the old item the next build gets is
        // that one (the collector hands back the item it let go of, the
        // last one kept): it has the path.
        let path_set = Cell::new(false);
        for line in &self.lines {
            let text = &self.text[text_at..line.text_end];
            let spans = &self.spans[spans_at..line.spans_end];
            let cut = if line.cut { cuts.next().copied() } else { None };
            let build = |old: Option<Match>| match old {
                Some(mut m) => {
                    if path_set.replace(true) {
                        debug_assert_eq!(m.path, path, "the item built last is not this file's");
                    } else if m.path != path {
                        m.path.clear();
                        m.path.push_str(path);
                    }
                    m.line.clear();
                    m.line.push_str(text);
                    m.matches.clear();
                    m.matches.extend_from_slice(spans);
                    m.line_number = line.line_number;
                    m.byte_offset = line.byte_offset;
                    m.line_cut = cut;
                    m
                }
                None => {
                    path_set.set(true);
                    Match {
                        path: path.to_owned(),
                        line_number: line.line_number,
                        byte_offset: line.byte_offset,
                        line: text.to_owned(),
                        matches: spans.to_vec(),
                        line_cut: cut,
                    }
                }
            };
            let after = Place::Line {
                offset: line.resume,
                number: line.line_number.checked_add(1),
            };
            sink.offer(after, &build)?;
            text_at = line.text_end;
            spans_at = line.spans_end;
        }
        ControlFlow::Continue(())
    }

    /// Empties the lines, keeping their memory.
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
        self.lines.clear();
        self.cuts.clear();
    }
}

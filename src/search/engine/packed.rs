//! The matching lines of one file, packed: built by the thread that
//! searches the file, unpacked into items by the thread that takes them.

use crate::search::engine::show::show;
use crate::search::{LineCut, Match, Span};

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
    pub(crate) fn push(
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

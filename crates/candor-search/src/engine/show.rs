//! Line rendering: how a line is shown in an item, cut at the column
//! limit around its first match and converted to (lossy) UTF-8, with its
//! match spans moved to the shown text.

use crate::matcher::inside_character;
use crate::{LineCut, Span};

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
    show_part(raw, 0, raw.len(), spans, max_columns, text, out)
}

/// `show` for a line of `len` bytes of which only `part`, its bytes from
/// `part_at` on, is held (a line too long to hold whole, see
/// `long_line.rs`): the same text, spans and cut as `show` gives for the
/// whole line, provided `part` holds the shown window and the 3 bytes
/// before it and the byte after it (where its ends are moved to a
/// character boundary). With `part_at` 0 and `part` the whole line, it is
/// `show`.
pub(crate) fn show_part(
    part: &[u8],
    part_at: usize,
    len: usize,
    spans: &[Span],
    max_columns: Option<usize>,
    text: &mut String,
    out: &mut Vec<Span>,
) -> Option<LineCut> {
    let inside = |at: usize| inside_character(part, at - part_at);
    let (from, to) = match max_columns {
        Some(max) if len > max => {
            let first_start = spans.first().map_or(0, |s| s.start.min(len));
            let mut from = window_start(len, spans, max);
            // Move forward to a character boundary: the window stays within
            // `max` bytes and still starts at or before the match. A lone
            // continuation byte is a character of its own (see
            // `inside_character`).
            while from < first_start && inside(from) {
                from += 1;
            }
            let mut to = (from + max).min(len);
            while to < len && to > from && inside(to) {
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
    append_lossy(&part[from - part_at..to - part_at], clipped, text, out);
    max_columns.filter(|&m| len > m).map(|_| LineCut {
        original_bytes: len as u64,
        kept_from: from as u64,
    })
}

/// Where the window of a line of `len` bytes, longer than `max`, starts
/// before it is moved to a character boundary: around the first match,
/// half the room left on each side, within the line.
pub(crate) fn window_start(len: usize, spans: &[Span], max: usize) -> usize {
    let first = spans.first().copied().unwrap_or(Span { start: 0, end: 0 });
    let first_start = first.start.min(len);
    let first_len = first.end.min(len) - first_start;
    let margin = max.saturating_sub(first_len) / 2;
    first_start.saturating_sub(margin).min(len - max)
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
    // The segment an offset falls in: the first that ends after it (an
    // offset at a segment's end is where the next one starts). Found by
    // halving, not by a walk from the line's start: a line of many
    // matches among many invalid bytes costs a logarithm per span.
    let map = |offset: usize, is_end: bool| -> usize {
        let i = segments.partition_point(|&(rs, rl, ..)| rs + rl <= offset);
        match segments.get(i) {
            Some(&(rs, _, ns, _, true)) => ns + (offset - rs),
            Some(&(rs, _, ns, nl, false)) if is_end && offset > rs => ns + nl,
            Some(&(_, _, ns, ..)) => ns,
            None => shown,
        }
    };
    let first = out.len();
    for s in spans {
        let start = map(s.start, false);
        // An empty match stays empty wherever it falls.
        let end = if s.is_empty() {
            start
        } else {
            map(s.end, true).max(start)
        };
        let span = Span { start, end };
        // Two matches inside one invalid sequence land on its one
        // character: they become one span, so spans never overlap.
        let joins = out.len() > first;
        match out.last_mut() {
            Some(last) if joins && (start < last.end || span == *last) => {
                last.end = last.end.max(end);
            }
            _ => out.push(span),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The spans of `bytes` moved to its lossy text, found the slow way:
    /// each offset's character from the line's start.
    fn moved_naively(bytes: &[u8], spans: &[Span]) -> Vec<Span> {
        // Each byte offset's place in the lossy text, at the start and at
        // the end of the character it falls in.
        let mut starts = vec![0; bytes.len() + 1];
        let mut ends = vec![0; bytes.len() + 1];
        let (mut raw, mut shown) = (0, 0);
        for chunk in bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                for i in 0..c.len_utf8() {
                    starts[raw + i] = shown + i;
                    ends[raw + i + 1] = shown + i + 1;
                }
                raw += c.len_utf8();
                shown += c.len_utf8();
            }
            for i in 0..chunk.invalid().len() {
                starts[raw + i] = shown;
                ends[raw + i + 1] = shown + 3;
            }
            raw += chunk.invalid().len();
            shown += if chunk.invalid().is_empty() { 0 } else { 3 };
        }
        starts[raw] = shown;
        ends[0] = 0;
        let mut out: Vec<Span> = Vec::new();
        for s in spans {
            let start = starts[s.start];
            let end = if s.is_empty() {
                start
            } else {
                ends[s.end].max(start)
            };
            match out.last_mut() {
                Some(last) if start < last.end || (Span { start, end }) == *last => {
                    last.end = last.end.max(end);
                }
                _ => out.push(Span { start, end }),
            }
        }
        out
    }

    proptest! {
        #[test]
        fn spans_move_to_the_lossy_text_as_a_walk_from_the_start_would_move_them(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b'a'), Just(0x80u8), Just(0xC3), Just(0xA9), Just(0xE2), Just(0x82), Just(0xFF)],
                0..24,
            ),
            cuts in proptest::collection::vec((0usize..25, any::<bool>()), 0..12),
        ) {
            let len = bytes.len();
            let mut cuts: Vec<(usize, bool)> =
                cuts.into_iter().map(|(c, empty)| (c.min(len), empty)).collect();
            cuts.sort_unstable();
            cuts.dedup_by_key(|c| c.0);
            // Spans as a regex gives them: in order, not overlapping, an
            // empty one never where another starts or ends.
            let mut spans = Vec::new();
            let mut cuts = cuts.into_iter();
            while let Some((start, empty)) = cuts.next() {
                let end = if empty { start } else { cuts.next().map_or(start, |c| c.0) };
                spans.push(Span { start, end });
            }
            let (mut text, mut out) = (String::new(), Vec::new());
            append_lossy(&bytes, spans.iter().copied(), &mut text, &mut out);
            prop_assert_eq!(&text, &String::from_utf8_lossy(&bytes));
            prop_assert_eq!(out, moved_naively(&bytes, &spans));
        }
    }
}

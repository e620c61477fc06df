//! Line rendering: how a line is shown in an item, cut at the column
//! limit around its first match and converted to (lossy) UTF-8, with its
//! match spans moved to the shown text.

use crate::search::{LineCut, Span};

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

//! A document held in memory, handed on in chunks of whole lines under
//! the same rules as a file read from disk (a byte-order mark at its
//! start included).

use std::ops::ControlFlow;

use super::{BINARY_PREFIX, Ended, Known, VisitChunk, without_bom};
use crate::lines;

/// Hands a document's bytes from `from` (a line start) to `visit` in
/// chunks of whole lines of about `block` bytes, under the same binary
/// rule as a file's (see the module's docs), or `as_text`, with none (a
/// document the caller named). Where the first NUL is was found when the
/// document was added (`known`), so no block is scanned for it again.
pub(crate) fn visit_memory(
    haystack: &[u8],
    known: Known,
    block: usize,
    from: usize,
    as_text: bool,
    visit: &mut VisitChunk<'_>,
) -> Ended {
    debug_assert!(from > 0 || known == Known::of(haystack, known.utf8));
    let mut visit = without_bom(visit);
    let len = haystack.len();
    // Where the search of the document ends: its end, or the start of the
    // line of its first NUL.
    let mut cut = None;
    if let Some(nul) = known.first_nul.filter(|_| !as_text) {
        let line_start = lines::after_last_end(&haystack[..nul]).unwrap_or(0);
        match Ended::nul(nul as u64, line_start as u64, BINARY_PREFIX) {
            Ended::Cut { at, reason, detail } => cut = Some((at, reason, detail)),
            whole => return whole,
        }
    }
    let end_all = cut.as_ref().map_or(len, |(at, ..)| *at as usize);
    let mut at = from.min(end_all);
    loop {
        let mut end = at.saturating_add(block.max(1)).min(end_all);
        if end < end_all {
            end = match lines::after_last_end(&haystack[at..end]) {
                Some(i) => at + i,
                None => {
                    lines::after_first_end(&haystack[end..end_all]).map_or(end_all, |i| end + i)
                }
            };
        }
        let last = end == end_all;
        let flow = if at < end || cut.is_none() {
            visit(&haystack[at..end], at as u64, last)
        } else {
            ControlFlow::Continue(())
        };
        if flow.is_break() {
            return Ended::Stopped(end as u64);
        }
        if last {
            return match cut {
                Some((at, reason, detail)) => Ended::Cut { at, reason, detail },
                None => Ended::Whole(len as u64),
            };
        }
        at = end;
    }
}

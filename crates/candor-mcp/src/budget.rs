//! The byte budget of a whole tool result: the share of it the JSON of a
//! result gets, the size of a tool result as sent, and the cut of a text
//! that would not fit.

use std::io;

use rmcp::model::{CallToolResult, ContentBlock};

use candor::Enclosing;

/// Bytes kept for the frame of a tool result: its keys, the two text
/// blocks' own keys, `isError` and `resultType` (about 120 bytes; a test
/// measures them).
const FRAME: usize = 160;

/// Bytes kept for the disclosure line. A line is rarely above 300 bytes; a
/// longer one (a long noun, custom skip reasons) makes the tool result an
/// error only if the JSON leaves too little room for it.
const SUMMARY: usize = 512;

/// The most bytes of an error result whatever the budget: an error's text
/// quotes the value at fault, and a value can be as long as a request.
pub(crate) const ERROR_MAX: usize = 2048;

/// The least bytes an error result is cut to, whatever the budget, so that
/// it still says what is wrong.
pub(crate) const ERROR_FLOOR: usize = 256;

/// The tool result of `max_bytes` that encloses a result's JSON: what
/// [`Limits::enclosing`](candor::Limits::enclosing) takes, so that the
/// query runs with the JSON's share ([`json_budget`]) and states every
/// output-bytes figure (`max`, `used`, `needed`) in bytes of the whole
/// tool result, the units of the client's `max_bytes`.
///
/// A tool result sends the JSON twice: as `structuredContent`, and as the
/// text block that mirrors it, where each `"` and `\` takes two bytes. So
/// each byte of JSON takes at most 3 bytes of the result, and 672 bytes
/// are kept for the disclosure line (512) and the frame of the result
/// (160): the JSON gets `(max_bytes - 672) / 3` bytes, 776 of 3000.
/// [`PageArgs::limits`](super::PageArgs::limits) applies it.
///
/// # Example
///
/// ```
/// use candor::Limits;
/// use candor_mcp::{enclosing, tool_result};
/// let max_bytes = 3000;
/// assert_eq!(enclosing(max_bytes).json_budget(), 776);
/// let limits = Limits::new().enclosing(enclosing(max_bytes));
/// let b = candor::Bounded::collect((0..1000).map(|n| format!("item {n}")), &limits)?;
/// let budget = b.completeness().budget().expect("cut by the budget");
/// assert_eq!(budget.max(), 3000); // what the client asked for
/// let result = tool_result(&b, "items", max_bytes);
/// assert_eq!(result.is_error, Some(false));
/// assert!(serde_json::to_vec(&result)?.len() <= max_bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn enclosing(max_bytes: usize) -> Enclosing {
    // Three copies at most: never zero, which is the one refusal.
    Enclosing::new(max_bytes, 3, FRAME + SUMMARY).expect("the JSON is sent at most three times")
}

/// The byte budget of the JSON of a result (what
/// [`Limits::max_bytes`](candor::Limits::max_bytes) bounds) that makes the
/// whole tool result fit `max_bytes`: `(max_bytes - 672) / 3`, the share
/// [`enclosing`] gives it.
///
/// A tool result sends the JSON twice: as `structuredContent`, and as the
/// text block that mirrors it, where each `"` and `\` takes two bytes. So
/// the JSON gets a third of what is left once 672 bytes are kept for the
/// disclosure line (512) and the frame of the result (160); with it, the
/// whole result (every content block and `structuredContent`, as
/// serialized) fits `max_bytes` whatever the items hold, as long as the
/// disclosure line fits in its 512 bytes (a line is rarely above 300).
/// A query run with this budget alone states its figures in bytes of the
/// JSON; run it with [`Limits::enclosing`](candor::Limits::enclosing)`(`[`enclosing`]`(max_bytes))`,
/// as [`PageArgs::limits`](super::PageArgs::limits) does, so that they
/// are in bytes of the whole tool result, as the client's `max_bytes` is.
/// A result that does not fit is refused, never sent (see
/// [`tool_result`](super::tool_result)).
///
/// # Example
///
/// ```
/// use candor::Limits;
/// use candor_mcp::{json_budget, tool_result};
/// let max_bytes = 4096;
/// assert_eq!(json_budget(max_bytes), (4096 - 672) / 3);
/// let b = candor::Bounded::collect((0..1000).map(|n| format!("\"{n}\"")), &Limits::new().max_bytes(json_budget(max_bytes)))?;
/// assert!(b.completeness().is_truncated());
/// let result = tool_result(&b, "names", max_bytes);
/// assert_eq!(result.is_error, Some(false));
/// assert!(serde_json::to_vec(&result)?.len() <= max_bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn json_budget(max_bytes: usize) -> usize {
    enclosing(max_bytes).json_budget()
}

/// The least whole budget whose JSON share is `json_bytes`: the budget a
/// client should ask for when the JSON needs that much.
pub(crate) fn whole_budget(json_bytes: usize) -> usize {
    usize::try_from(enclosing(0).bytes_for(json_bytes)).unwrap_or(usize::MAX)
}

/// Counts the bytes written to it.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The size of a tool result as sent: its serialized JSON (the JSON-RPC
/// frame around it, with the request's id, is not counted).
pub(crate) fn size_of(result: &CallToolResult) -> usize {
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, result) {
        Ok(()) => counter.0,
        // Serializing `Value`s and strings does not fail; if it did,
        // nothing could be sent, which no budget is too small for.
        Err(_) => usize::MAX,
    }
}

/// The bytes `c` takes inside a JSON string, as serde_json writes it.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// An error result (`isError: true`) with one text block, `text` cut so
/// that the result is at most `max_bytes` (never cut below
/// [`ERROR_FLOOR`]); a cut text ends with how long it was.
pub(crate) fn error_within(text: &str, max_bytes: usize) -> CallToolResult {
    let max_bytes = max_bytes.max(ERROR_FLOOR);
    let whole = CallToolResult::error(vec![ContentBlock::text(text)]);
    if size_of(&whole) <= max_bytes {
        return whole;
    }
    let frame = size_of(&CallToolResult::error(vec![ContentBlock::text("")]));
    let tail = format!(" … (cut: {} bytes in all)", text.len());
    let room = max_bytes
        .saturating_sub(frame)
        .saturating_sub(tail.chars().map(escaped_len).sum());
    let mut used = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        used += escaped_len(c);
        if used > room {
            break;
        }
        end = at + c.len_utf8();
    }
    CallToolResult::error(vec![ContentBlock::text(format!("{}{tail}", &text[..end]))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_frame_kept_holds_the_frame_of_a_result() {
        let mut empty =
            CallToolResult::success(vec![ContentBlock::text(""), ContentBlock::text("")]);
        empty.structured_content = Some(Value::String(String::new()));
        // A result is this frame with the summary and the mirror inside
        // their quotes, and the JSON in place of `""`.
        assert!(size_of(&empty) - 2 <= FRAME, "{}", size_of(&empty));
    }

    #[test]
    fn escaped_lengths_are_serde_json_s() {
        for c in [
            '"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', '€', '😀', 'a', '\u{2028}',
        ] {
            let written = serde_json::to_string(&c.to_string()).expect("a string");
            assert_eq!(escaped_len(c), written.len() - 2, "{c:?}");
        }
    }

    #[test]
    fn an_error_is_cut_to_fit_and_says_how_long_it_was() {
        let text = format!("invalid pattern \"{}\"", "\"é\u{1}".repeat(10_000));
        for max_bytes in [0, 256, 300, 1000, 4096] {
            let cut = error_within(&text, max_bytes);
            let size = size_of(&cut);
            assert!(size <= max_bytes.max(ERROR_FLOOR), "{size} > {max_bytes}");
            let shown = &cut.content[0].as_text().expect("text").text;
            assert!(shown.starts_with("invalid pattern"), "{shown}");
            assert!(shown.ends_with(&format!("(cut: {} bytes in all)", text.len())));
        }
        let short = error_within("bad", 0);
        assert_eq!(short.content[0].as_text().expect("text").text, "bad");
    }
}

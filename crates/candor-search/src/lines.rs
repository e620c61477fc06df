//! Line bounds: where a line of a buffer starts and ends, and where its
//! content ends, without the `\r` of a `\r\n` ending. Every part of the
//! search that looks for line ends (the matcher, the reader's chunks, the
//! per-file search, the excerpt) finds them here.
//!
//! Lines end at `\n`. A `\r` before it is not part of the line's content
//! (it cannot be matched and is not shown); a `\r` elsewhere is an
//! ordinary byte.

/// One line of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineBounds {
    /// Where the line starts.
    pub(crate) start: usize,
    /// Where its content ends: before its `\r\n` or `\n` ending.
    pub(crate) content_end: usize,
    /// Where its `\n` is, or the buffer's length for a last line without
    /// one.
    pub(crate) end: usize,
}

impl LineBounds {
    /// Where the next line starts: after the `\n`, or the buffer's length
    /// `len` after the last line.
    pub(crate) fn next(&self, len: usize) -> usize {
        (self.end + 1).min(len)
    }

    /// Returns true when the line ends in `\r\n`.
    pub(crate) fn has_crlf(&self) -> bool {
        self.content_end != self.end
    }
}

/// The line of `haystack` that holds the byte at `at`, found looking back
/// no further than `from` (a line start at or before `at`). `at` may be
/// the buffer's length: the line is then the last one (empty if the
/// buffer ends in `\n`, with its start at the length).
pub(crate) fn around(haystack: &[u8], from: usize, at: usize) -> LineBounds {
    let start = memchr::memrchr(b'\n', &haystack[from..at]).map_or(from, |i| from + i + 1);
    let end = memchr::memchr(b'\n', &haystack[at..]).map_or(haystack.len(), |i| at + i);
    let content_end = if end > start && haystack[end - 1] == b'\r' {
        end - 1
    } else {
        end
    };
    LineBounds {
        start,
        content_end,
        end,
    }
}

/// The line of `haystack` that starts at `start`.
pub(crate) fn at(haystack: &[u8], start: usize) -> LineBounds {
    around(haystack, start, start)
}

/// How many lines end in `bytes`: its `\n` bytes.
pub(crate) fn count_ends(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Where the line after the last line end in `bytes` starts, if `bytes`
/// holds a line end.
pub(crate) fn after_last_end(bytes: &[u8]) -> Option<usize> {
    memchr::memrchr(b'\n', bytes).map(|i| i + 1)
}

/// Where the line after the first line end in `bytes` starts, if `bytes`
/// holds a line end.
pub(crate) fn after_first_end(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_s_content_leaves_out_only_the_cr_of_its_ending() {
        let text = b"a\r\nb\rc\n\r\nlast";
        let first = at(text, 0);
        assert_eq!((first.start, first.content_end, first.end), (0, 1, 2));
        assert!(first.has_crlf());
        let second = at(text, first.next(text.len()));
        assert_eq!(&text[second.start..second.content_end], b"b\rc");
        assert!(!second.has_crlf());
        let empty = at(text, second.next(text.len()));
        assert_eq!((empty.start, empty.content_end, empty.end), (7, 7, 8));
        let last = around(text, 0, text.len() - 1);
        assert_eq!(&text[last.start..last.content_end], b"last");
        assert_eq!(last.next(text.len()), text.len());
    }

    #[test]
    fn line_ends_are_counted_and_found() {
        assert_eq!(count_ends(b"a\nb\n\nc"), 3);
        assert_eq!(after_last_end(b"a\nb\nc"), Some(4));
        assert_eq!(after_first_end(b"a\nb\nc"), Some(2));
        assert_eq!(after_last_end(b"abc"), None);
    }
}

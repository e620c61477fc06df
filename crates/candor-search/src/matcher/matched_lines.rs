//! A buffer's matching lines with their matches: where one search over
//! the whole buffer lists every match, its matches are grouped by line;
//! otherwise lines are found and confirmed one by one.

use crate::matcher::{BufferMatches, LineHit, Matcher, Strategy};
use crate::{Span, lines};

/// The matching lines of a buffer, each with its matches.
///
/// For literals, and for a regex whose buffer-wide form is the line regex
/// (neither with whole words), one `find_iter` over the whole buffer
/// yields every match, grouped here by line: no second search per line.
/// Lines where the two could disagree (see `Matcher::buffer_agrees`) are
/// checked again on their content alone. Whole words go line by line with
/// `next_line_with`.
pub(crate) struct MatchedLines<'m, 'h> {
    matcher: &'m Matcher,
    haystack: &'h [u8],
    /// Where the next line starts.
    at: usize,
    /// The buffer-wide matches, from `base` on, when grouping them.
    matches: Option<BufferMatches<'m, 'h>>,
    base: usize,
    /// The first match of the next line, already taken from `matches`.
    pending: Option<(usize, usize)>,
    spans: Vec<Span>,
    /// How far past a line's first match its matches are kept (see
    /// `Matcher::spans`).
    reach: usize,
}

impl<'m, 'h> MatchedLines<'m, 'h> {
    /// The matching lines of `haystack` from `start` (a line start), each
    /// with its matches up to `reach` bytes past its first one's start.
    pub(crate) fn new(
        matcher: &'m Matcher,
        haystack: &'h [u8],
        start: usize,
        reach: usize,
    ) -> Self {
        MatchedLines {
            matcher,
            haystack,
            at: start,
            matches: buffer_matches(matcher, &haystack[start..]),
            base: start,
            pending: None,
            spans: Vec::new(),
            reach,
        }
    }

    /// Passes over the rest of the buffer-wide matches up to `next` (a
    /// line start): the matches again from there.
    fn restart_at(&mut self, next: usize) {
        self.pending = None;
        self.base = next;
        self.matches = buffer_matches(self.matcher, &self.haystack[next..]);
    }

    fn next_match(&mut self) -> Option<(usize, usize)> {
        if let Some(m) = self.pending.take() {
            return Some(m);
        }
        let (start, end) = self.matches.as_mut()?.next()?;
        Some((self.base + start, self.base + end))
    }

    /// The next matching line and its matches (offsets within the line).
    #[inline]
    pub(crate) fn next_line(&mut self) -> Option<(LineHit, &[Span])> {
        if self.matches.is_none() {
            let hit = self.matcher.next_line_with(
                self.haystack,
                self.at,
                Some(&mut self.spans),
                self.reach,
            )?;
            if !hit.spans_ready {
                let content = &self.haystack[hit.start..hit.content_end];
                self.matcher.spans(content, &mut self.spans, self.reach);
            }
            self.at = hit.next;
            return Some((hit, &self.spans));
        }
        let haystack = self.haystack;
        let len = haystack.len();
        loop {
            let (first_start, first_end) = self.next_match()?;
            let line = lines::around(haystack, self.at, first_start.min(len));
            if line.start >= len {
                // An empty match after the final newline: no line is there.
                return None;
            }
            let (line_start, line_end) = (line.start, line.end);
            self.spans.clear();
            self.spans.push(Span {
                start: first_start - line_start,
                end: first_end - line_start,
            });
            let last_start = first_start.saturating_add(self.reach);
            while let Some((start, end)) = self.next_match() {
                if start > line_end {
                    self.pending = Some((start, end));
                    break;
                }
                if start > last_start {
                    // The line's other matches are not kept: searched
                    // again from the next line, not listed one by one.
                    self.restart_at(line.next(len));
                    break;
                }
                self.spans.push(Span {
                    start: start - line_start,
                    end: end - line_start,
                });
            }
            let content_end = line.content_end;
            let content = &haystack[line_start..content_end];
            self.at = line.next(len);
            if !self.matcher.buffer_agrees(content, !line.has_crlf()) {
                self.matcher.spans(content, &mut self.spans, self.reach);
                if self.spans.is_empty() {
                    if self.at >= len || line_end >= len {
                        return None;
                    }
                    continue;
                }
            }
            let hit = LineHit {
                start: line_start,
                content_end,
                next: self.at,
                spans_ready: true,
            };
            return Some((hit, &self.spans));
        }
    }
}

/// Every match in `rest` from one search over it, where that search finds
/// exactly the lines' matches (see `MatchedLines`); otherwise none.
fn buffer_matches<'m, 'h>(matcher: &'m Matcher, rest: &'h [u8]) -> Option<BufferMatches<'m, 'h>> {
    // Literals never hold a `\n`, so their matches in the buffer are
    // those of its lines (a line with a `\r` is checked again).
    match &matcher.strategy {
        _ if matcher.widen => None,
        Strategy::Literals(literals) => Some(literals.matches(rest)),
        Strategy::Regex {
            buffer,
            candidate_is_match: true,
            ..
        } => Some(BufferMatches::Regex(
            buffer.find_iter(rest),
            rest,
            matcher.drop_splits,
        )),
        Strategy::Prefiltered(..) | Strategy::Regex { .. } => None,
    }
}

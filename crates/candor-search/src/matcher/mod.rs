//! Matchers: one literal (memchr's memmem), many literals (aho-corasick),
//! and regex (regex-automata's meta engine, the one behind the `regex`
//! crate), each answering "where is the next matching line" and "what
//! matches in this line".
//!
//! Matching is line-oriented: no match spans a line terminator. Regex
//! patterns are rewritten so that they cannot match `\n` (it is removed
//! from every class; a literal `\n` is refused), and `\A`/`\z` mean the
//! start and end of a line, like `^` and `$`. With that, a match found in
//! the whole buffer is a match of its line, and the buffer can be searched
//! in one pass.
//!
//! Every regex is compiled from its rewritten HIR, never from pattern text
//! printed from one: a printed HIR does not always parse back to itself
//! (regex-syntax prints the optional group `(?:\d+)?` as `\d+?`, a lazy
//! repetition that needs a digit).
//!
//! Spans fall on character boundaries: an empty match never splits a
//! character (as in the `regex` crate's `str` API), and a match of a
//! pattern that can match part of a character (`(?-u:\xA9)`) is widened
//! to the whole characters it touches. Inside invalid UTF-8 the shown
//! line decides (see `engine::show`).
//!
//! Here: the matcher and its strategy, and how it finds matching lines
//! and their matches. How one is built from a query is in `build.rs`, the
//! syntax-tree rewrites in `syntax.rs`, and the grouping of a buffer's
//! matches by line in `matched_lines.rs`.

// The index plans its queries from `build`'s syntax tree (see `seam.rs`).
pub(crate) mod build;
mod matched_lines;
mod syntax;

use aho_corasick::AhoCorasick;
use memchr::memmem;
use regex_automata::Input;
use regex_automata::meta::Regex;

use crate::{Span, lines};

pub(crate) use matched_lines::MatchedLines;

/// Finds the lines of a buffer that match a query, and their matches.
#[derive(Clone)]
pub(crate) struct Matcher {
    strategy: Strategy,
    /// Whole words: bytes that are not UTF-8 are read as NUL, a non-word
    /// character, so that a word beside them is whole (see `prepare`).
    nul_for_invalid: bool,
    /// The pattern can match part of a character (a byte class such as
    /// `(?-u:\xA9)`): spans are widened to whole characters.
    widen: bool,
    /// The pattern holds a Unicode word boundary (`\b`, `\B`). The regex
    /// engine decides one next to invalid UTF-8 by decoding the bytes
    /// before it, which for a line that starts inside a character reach
    /// into the line before: such a line is checked again on its own.
    unicode_words: bool,
    /// The pattern can match empty. Its engines then report every match,
    /// as the `regex` crate's bytes API does, and an empty match that
    /// splits a character (see `splits`) is left out here:
    /// an engine that leaves those out itself also refuses a non-empty
    /// match that ends before a lone continuation byte.
    drop_splits: bool,
    /// The longest match of the line regex, when it has one and the
    /// regex's look-around reads at most one byte on each side of a
    /// position (no Unicode word boundary): a long line can then be
    /// searched in pieces (see `piece_reach`).
    regex_longest: Option<usize>,
}

/// How candidate lines are found in the whole buffer, and how a candidate
/// is confirmed: only the combinations a query can make.
#[derive(Clone)]
enum Strategy {
    /// Case-sensitive literals, not whole words: what the literals find
    /// is a match, except on a line ending in `\r\n`, where it may lie in
    /// the `\r`.
    Literals(Literals),
    /// Literals find the candidate lines, and the line regex (compiled for
    /// one line's content) confirms them and finds their matches:
    /// whole-word literals, and a regex with a required inner literal.
    Prefiltered(Literals, Regex),
    /// The buffer-wide form of a regex (`$` also before `\r\n`) finds the
    /// candidate lines, and the line regex confirms them. With
    /// `candidate_is_match`, the buffer-wide form is the line regex itself
    /// (no whole words, no widening): on a line without `\r`, where the
    /// two agree, a candidate needs no second look.
    Regex {
        buffer: Regex,
        line: Regex,
        candidate_is_match: bool,
    },
}

impl Strategy {
    /// A position within the first line, at or after `start`, that holds
    /// a candidate (a match's start, or for a regex its end).
    fn find_candidate(&self, haystack: &[u8], start: usize) -> Option<usize> {
        match self {
            Strategy::Literals(literals) | Strategy::Prefiltered(literals, _) => {
                literals.find(haystack, start)
            }
            // Only the line matters, so the end of the shortest match will
            // do: it lies in the same line as the start (no match spans a
            // line), and finding it takes one forward scan, no reverse one.
            Strategy::Regex { buffer, .. } => buffer
                .search_half(&Input::new(haystack).range(start..).earliest(true))
                .map(|m| m.offset()),
        }
    }

    /// The regex that confirms a candidate line, if one does.
    fn line_regex(&self) -> Option<&Regex> {
        match self {
            Strategy::Literals(_) => None,
            Strategy::Prefiltered(_, line) | Strategy::Regex { line, .. } => Some(line),
        }
    }
}

/// One literal (memchr's memmem) or several (aho-corasick, the earlier
/// given winning at a position).
#[derive(Clone)]
enum Literals {
    One(Box<memmem::Finder<'static>>),
    Many(AhoCorasick),
}

impl Literals {
    /// Where the first literal at or after `start` begins.
    fn find(&self, haystack: &[u8], start: usize) -> Option<usize> {
        match self {
            Literals::One(f) => f.find(&haystack[start..]).map(|i| start + i),
            Literals::Many(ac) => ac
                .find(aho_corasick::Input::new(haystack).range(start..))
                .map(|m| m.start()),
        }
    }

    fn is_match(&self, haystack: &[u8]) -> bool {
        match self {
            Literals::One(f) => f.find(haystack).is_some(),
            Literals::Many(ac) => ac.is_match(haystack),
        }
    }

    /// Every literal in `haystack`, leftmost first, not overlapping.
    fn matches<'m, 'h>(&'m self, haystack: &'h [u8]) -> BufferMatches<'m, 'h> {
        match self {
            Literals::One(f) => BufferMatches::Literal(f.find_iter(haystack), f.needle().len()),
            Literals::Many(ac) => BufferMatches::Set(ac.find_iter(haystack)),
        }
    }
}

/// Every match in a buffer, in order, as (start, end), from one of the
/// engines that can list a buffer's matches: no match spans a line.
// One lives on the stack while a file is searched: its size costs nothing,
// where boxing the large variant would cost an allocation per file.
#[allow(clippy::large_enum_variant)]
enum BufferMatches<'m, 'h> {
    Literal(memmem::FindIter<'h, 'm>, usize),
    Set(aho_corasick::FindIter<'m, 'h>),
    /// A regex's matches, those that split a character left out when
    /// the flag says so (see `Matcher::drop_splits`).
    Regex(regex_automata::meta::FindMatches<'m, 'h>, &'h [u8], bool),
}

impl Iterator for BufferMatches<'_, '_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        match self {
            BufferMatches::Literal(it, len) => it.next().map(|s| (s, s + *len)),
            BufferMatches::Set(it) => it.next().map(|m| (m.start(), m.end())),
            BufferMatches::Regex(it, haystack, drop_splits) => loop {
                let m = it.next()?;
                if !(*drop_splits && splits(haystack, m.start(), m.end())) {
                    return Some((m.start(), m.end()));
                }
            },
        }
    }
}

/// A matching line: where it starts, where its content ends (before a
/// `\r\n` or `\n`), and where the next line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineHit {
    pub(crate) start: usize,
    pub(crate) content_end: usize,
    pub(crate) next: usize,
    /// The line's matches were found while confirming it.
    pub(crate) spans_ready: bool,
}

impl Matcher {
    /// Finds the next line, starting at or after `start` (a line start),
    /// that holds a match.
    pub(crate) fn next_line(&self, haystack: &[u8], start: usize) -> Option<LineHit> {
        self.next_line_with(haystack, start, None, usize::MAX)
    }

    /// Like `next_line`; with `spans`, a line that has to be confirmed by
    /// the line regex gets its matches found in the same pass, and the hit
    /// says so (`spans_ready`).
    pub(crate) fn next_line_with(
        &self,
        haystack: &[u8],
        mut start: usize,
        mut spans: Option<&mut Vec<Span>>,
        reach: usize,
    ) -> Option<LineHit> {
        let len = haystack.len();
        while start < len {
            let at = self.strategy.find_candidate(haystack, start)?.min(len);
            let line = lines::around(haystack, start, at);
            if line.start == len {
                // An empty match after the final newline: no line is there.
                return None;
            }
            let line_end = line.end;
            let mut hit = LineHit {
                start: line.start,
                content_end: line.content_end,
                next: line.next(len),
                spans_ready: false,
            };
            let content = &haystack[line.start..line.content_end];
            let plain = !line.has_crlf();
            if let (Some(_), Some(out)) = (self.strategy.line_regex(), spans.as_deref_mut()) {
                if !self.confirmed_by_candidate(content, plain) {
                    // Finding the matches confirms the line, or not.
                    self.spans(content, out, reach);
                    if !out.is_empty() {
                        hit.spans_ready = true;
                        return Some(hit);
                    }
                    if line_end >= len {
                        return None;
                    }
                    start = line_end + 1;
                    continue;
                }
            }
            if self.confirms(content, plain) {
                return Some(hit);
            }
            if line_end >= len {
                return None;
            }
            start = line_end + 1;
        }
        None
    }

    /// Returns true when the line `content` holds a match. `plain` says
    /// the line had no `\r\n` ending, so a candidate there is a match.
    fn confirms(&self, content: &[u8], plain: bool) -> bool {
        match &self.strategy {
            Strategy::Literals(_) if plain => true,
            Strategy::Literals(literals) => literals.is_match(content),
            _ if self.confirmed_by_candidate(content, plain) => true,
            Strategy::Prefiltered(_, line) | Strategy::Regex { line, .. } if self.drop_splits => {
                self.line_matches(line, content).next().is_some()
            }
            Strategy::Prefiltered(_, line) | Strategy::Regex { line, .. } => line.is_match(content),
        }
    }

    /// Returns true when the candidate found in this line is already a
    /// match: it came from the buffer-wide form of the line regex, the two
    /// forms agree on this line (`buffer_agrees`), and the candidate
    /// cannot be an empty match that splits a character (`drop_splits`).
    fn confirmed_by_candidate(&self, content: &[u8], plain: bool) -> bool {
        let from_the_line_regex = matches!(
            self.strategy,
            Strategy::Regex {
                candidate_is_match: true,
                ..
            }
        );
        from_the_line_regex && !self.drop_splits && self.buffer_agrees(content, plain)
    }

    /// Returns true when what the buffer-wide search finds in the line
    /// `content` is exactly the line's own matches. `plain` says the line
    /// does not end in `\r\n`, where a match may lie in the `\r`. For a
    /// regex, the line also holds no lone `\r` (a line terminator to the
    /// buffer-wide form), and does not start inside a character under a
    /// Unicode word boundary (the engine decides one next to invalid UTF-8
    /// by decoding the bytes before it, which there reach into the line
    /// before).
    pub(crate) fn buffer_agrees(&self, content: &[u8], plain: bool) -> bool {
        let starts_inside = || content.first().copied().is_some_and(is_continuation);
        plain
            && (matches!(self.strategy, Strategy::Literals(_))
                || (memchr::memchr(b'\r', content).is_none()
                    && !(self.unicode_words && starts_inside())))
    }

    /// The line regex's matches in `content`, without the empty ones that
    /// split a character when the engine reports those (see
    /// `drop_splits`).
    fn line_matches<'a>(
        &'a self,
        line: &'a Regex,
        content: &'a [u8],
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        line.find_iter(content)
            .map(|m| (m.start(), m.end()))
            .filter(move |&(start, end)| !(self.drop_splits && splits(content, start, end)))
    }

    /// Every match within a line's `content` that starts at most `reach`
    /// bytes after the first one's start, leftmost first, not overlapping.
    /// With a column limit, no match further on can be shown (see
    /// `engine::show`), and a line of millions of matches (`x*` matches
    /// empty at every character) costs no memory for them.
    pub(crate) fn spans(&self, content: &[u8], out: &mut Vec<Span>, reach: usize) {
        out.clear();
        match &self.strategy {
            Strategy::Literals(literals) => keep_within(out, literals.matches(content), reach),
            Strategy::Prefiltered(_, line) | Strategy::Regex { line, .. } => {
                keep_within(out, self.line_matches(line, content), reach);
                if self.widen {
                    widen_to_characters(content, out);
                }
            }
        }
    }

    /// The bytes this matcher searches for `haystack`: the haystack
    /// itself, or, for whole words in a file that is not all UTF-8, a copy
    /// with each invalid sequence (one U+FFFD in the line returned) read
    /// as one non-word character of its length: U+0000, U+0080 or U+FFFF
    /// (NUL itself never occurs, since a file holding one is binary and
    /// not searched). Offsets are unchanged, and an empty match inside
    /// such a sequence is inside a character (see `splits`).
    pub(crate) fn prepare<'h>(&self, haystack: &'h [u8]) -> std::borrow::Cow<'h, [u8]> {
        if !self.nul_for_invalid || std::str::from_utf8(haystack).is_ok() {
            return std::borrow::Cow::Borrowed(haystack);
        }
        let mut clean = Vec::with_capacity(haystack.len());
        for chunk in haystack.utf8_chunks() {
            clean.extend_from_slice(chunk.valid().as_bytes());
            // An invalid sequence is at most 3 bytes long.
            clean.extend_from_slice(match chunk.invalid().len() {
                0 => b"",
                1 => b"\0",
                2 => "\u{80}".as_bytes(),
                _ => "\u{FFFF}".as_bytes(),
            });
        }
        std::borrow::Cow::Owned(clean)
    }
}

/// The longest match a search of a line in pieces takes: what it carries
/// from one piece to the next, and keeps of the line, grows with it.
const PIECE_MATCH_MAX: usize = 64 * 1024;

/// What a search of a line in pieces needs (see `Matcher::piece_reach`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PieceReach {
    /// The longest match, in bytes.
    pub(crate) longest: usize,
    /// The bytes on each side of a position its look-around reads.
    pub(crate) context: usize,
}

/// Every match of a matcher with a `piece_reach` in a part of one line,
/// leftmost first, not overlapping, as (start, end) in the part.
pub(crate) struct PieceMatches<'m, 'h>(PieceEngine<'m, 'h>);

/// The engine behind `PieceMatches`: literals over the part's range (and
/// where it starts), or the line regex over the range of the part.
// As `BufferMatches`: on the stack, its size costs nothing.
#[allow(clippy::large_enum_variant)]
enum PieceEngine<'m, 'h> {
    Literals(BufferMatches<'m, 'h>, usize),
    Regex(regex_automata::meta::FindMatches<'m, 'h>),
}

impl Iterator for PieceMatches<'_, '_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        match &mut self.0 {
            PieceEngine::Literals(it, from) => it.next().map(|(s, e)| (s + *from, e + *from)),
            PieceEngine::Regex(it) => it.next().map(|m| (m.start(), m.end())),
        }
    }
}

impl Matcher {
    /// What a search of a line too long to hold, in pieces, needs: the
    /// longest match and the look-around's reach, when there is a
    /// longest match and the matches are decided by those bytes alone.
    /// A match starting at a position is then decided by the bytes from
    /// `context` before it to `longest + context` after it, so a search
    /// of a piece finds exactly the line's matches that start early
    /// enough in it. Literals (case-sensitive, not whole words), and a
    /// regex whose matches have a longest length and cannot be empty,
    /// with no whole words, no character widening and no Unicode word
    /// boundary; and a longest match of at most `PIECE_MATCH_MAX` bytes
    /// (the bytes carried from piece to piece). For another, `None` (a
    /// line too long to hold is skipped).
    pub(crate) fn piece_reach(&self) -> Option<PieceReach> {
        if self.nul_for_invalid || self.widen || self.drop_splits || self.unicode_words {
            return None;
        }
        let reach = match &self.strategy {
            Strategy::Literals(Literals::One(f)) => Some(PieceReach {
                longest: f.needle().len(),
                context: 0,
            }),
            Strategy::Literals(Literals::Many(ac)) => Some(PieceReach {
                longest: ac.max_pattern_len(),
                context: 0,
            }),
            Strategy::Prefiltered(..) | Strategy::Regex { .. } => {
                self.regex_longest.map(|longest| PieceReach {
                    longest,
                    context: 1,
                })
            }
        };
        reach.filter(|r| r.longest <= PIECE_MATCH_MAX)
    }

    /// The matches in `haystack[from..to]`, a part of one line whose
    /// bytes around that range are the line's (read by the look-around:
    /// `haystack`'s start is the line's start only when the part starts
    /// it, its end the line's end only when the part ends it), for a
    /// matcher with a `piece_reach`; none for another.
    pub(crate) fn piece_matches<'m, 'h>(
        &'m self,
        haystack: &'h [u8],
        from: usize,
        to: usize,
    ) -> PieceMatches<'m, 'h> {
        match &self.strategy {
            Strategy::Literals(literals) => PieceMatches(PieceEngine::Literals(
                literals.matches(&haystack[from..to]),
                from,
            )),
            Strategy::Prefiltered(_, line) | Strategy::Regex { line, .. } => PieceMatches(
                PieceEngine::Regex(line.find_iter(Input::new(haystack).range(from..to))),
            ),
        }
    }
}

/// Returns true for an empty match at `start` that splits a character,
/// which the `regex` crate's `str` API never reports: one strictly inside
/// a character of the lossy decoding (`String::from_utf8_lossy`), that
/// is, inside a valid character or inside one invalid sequence shown as
/// one U+FFFD. A lone continuation byte (0x80-0xBF) is a character of its
/// own: an empty match before it, as `^` at the start of its line, is
/// kept.
fn splits(haystack: &[u8], start: usize, end: usize) -> bool {
    start == end && inside_character(haystack, start)
}

/// Returns true when `at` lies strictly inside a character of the lossy
/// decoding of `haystack` (see `splits`).
pub(crate) fn inside_character(haystack: &[u8], at: usize) -> bool {
    if !haystack.get(at).copied().is_some_and(is_continuation) {
        return false;
    }
    // A character, or an invalid sequence, starts at each byte that is
    // not a continuation byte, and holds at most 4 bytes: the byte at
    // `at` is inside one only if the last such byte before it is at most
    // 3 bytes back, and the bytes from there to `at` begin a character.
    let from = at.saturating_sub(3);
    let Some(lead) = haystack[from..at]
        .iter()
        .rposition(|&b| !is_continuation(b))
    else {
        return false;
    };
    match std::str::from_utf8(&haystack[from + lead..=at]) {
        Ok(_) => true,
        // Cut short, not broken: a character's first bytes.
        Err(e) => e.valid_up_to() == 0 && e.error_len().is_none(),
    }
}

/// Returns true for a UTF-8 continuation byte (0x80-0xBF).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Appends `matches` to `out` as spans, up to the last one that starts at
/// most `reach` bytes after the first.
fn keep_within(out: &mut Vec<Span>, matches: impl Iterator<Item = (usize, usize)>, reach: usize) {
    let mut last_start = usize::MAX;
    for (start, end) in matches {
        if start > last_start {
            break;
        }
        if out.is_empty() {
            last_start = start.saturating_add(reach);
        }
        out.push(Span { start, end });
    }
}

/// Widens each span that starts or ends inside a valid multi-byte
/// character to that whole character, then joins the spans that come to
/// overlap. Offsets inside invalid UTF-8 stay: the shown line replaces the
/// sequence with one character, and `engine::show` maps them onto it.
fn widen_to_characters(content: &[u8], spans: &mut Vec<Span>) {
    // The character around `at`, as (start, end), when `at` is inside one.
    let around = |at: usize| -> Option<(usize, usize)> {
        (1..=at.min(3)).find_map(|back| {
            let start = at - back;
            let c = content[start..]
                .utf8_chunks()
                .next()?
                .valid()
                .chars()
                .next()?;
            (c.len_utf8() > back).then(|| (start, start + c.len_utf8()))
        })
    };
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans.drain(..) {
        let start = around(s.start).map_or(s.start, |(from, _)| from);
        let end = if s.end == s.start {
            start
        } else {
            around(s.end).map_or(s.end, |(_, to)| to)
        };
        match out.last_mut() {
            Some(last) if start < last.end || (start == last.start && end == last.end) => {
                last.end = last.end.max(end);
            }
            _ => out.push(Span { start, end }),
        }
    }
    *spans = out;
}

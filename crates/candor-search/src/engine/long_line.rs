//! A line longer than the reader holds whole (see `reader.rs`), taken in
//! pieces when a column window is asked for: its matches found piece by
//! piece, and only the bytes its window may show kept, so its memory is
//! bounded by the window, whatever the line's length.
//!
//! **Matches across pieces.** Only a matcher whose matches are at most a
//! known length long, and decided by those bytes and a byte of
//! look-around on each side, takes a line in pieces
//! (`Matcher::piece_reach`: literals, and regexes with a longest match).
//! A match starting at a position is then decided by the `need` bytes
//! from there (the longest match, the look-around's byte after it, and
//! one byte more: the line's last byte may be the `\r` of a `\r\n`
//! ending, not part of its content), and the byte before it. A piece is
//! searched as far as that decides; the undecided bytes at its end (fewer
//! than `need`), with the byte before them, are carried over and searched
//! again with the next piece's first bytes. Leftmost, non-overlapping
//! matches come out as a search of the whole line gives them: the search
//! of the next bytes starts where the last match ended, and a searched
//! range starts at the line's start, or ends at its end, only where the
//! line does (the regex engine's look-around reads the bytes outside a
//! range).
//!
//! **What is kept.** The shown window starts around the first match, or
//! ends at the line's end when the match is near it (`show::window_start`):
//! the bytes around the first match (half a window before it, a window
//! after it) and the line's last bytes cover both, each with the few bytes
//! past the window that its move to a character boundary reads. The spans
//! kept are those the window can show (see `Matcher::spans`).

use std::mem;

use crate::engine::show::{show_part, window_start};
use crate::matcher::{Matcher, PieceReach};
use crate::{LineCut, Span};

/// The bytes kept past a window's ends: a character's 3 bytes before its
/// start, the byte after its end, and a margin.
const EDGE: usize = 4;

/// One long line, as its pieces come.
pub(crate) struct LongLine {
    /// The window's width: the line's shown bytes.
    max: usize,
    /// The bytes from a position that decide a match there (see the
    /// module's docs); `0` when nothing is matched (an excerpt's line).
    need: usize,
    /// Every match the window can show is wanted, not only whether the
    /// line matches.
    spans_wanted: bool,
    /// Where the line starts in its file.
    pub(crate) start: u64,
    /// The line's bytes so far (its `\n` left out).
    len: usize,
    /// The bytes a match's look-around reads on each side of it.
    context: usize,
    /// Where the next match may start (line offsets).
    resume: usize,
    /// The line's bytes from `carry_at` (`context` bytes before `resume`,
    /// or the line's start) to `len`: not yet searched, or read by the
    /// look-around of the next search.
    carry: Vec<u8>,
    carry_at: usize,
    /// Nothing more is to be matched: the line is known to match and
    /// only that is wanted, or a match past what the window can show was
    /// found.
    settled: bool,
    /// The first match's start, or the line's start for an excerpt.
    anchor: Option<usize>,
    spans: Vec<Span>,
    /// The bytes around the anchor, from `head_at`.
    head: Vec<u8>,
    head_at: usize,
    /// The line's last bytes (at most `tail_len`).
    tail: Vec<u8>,
    tail_len: usize,
}

impl LongLine {
    /// A line at `start` shown `max` bytes wide; matched with a matcher
    /// whose `piece_reach` is `reach`, or, with `None`, not matched (an
    /// excerpt's line, shown from its start).
    pub(crate) fn new(
        start: u64,
        max: usize,
        reach: Option<PieceReach>,
        spans_wanted: bool,
    ) -> LongLine {
        let context = reach.map_or(0, |r| r.context);
        let need = reach.map_or(0, |r| r.longest + 1 + r.context);
        LongLine {
            max,
            need,
            spans_wanted,
            start,
            len: 0,
            context,
            resume: 0,
            carry: Vec::new(),
            carry_at: 0,
            settled: reach.is_none(),
            anchor: reach.is_none().then_some(0),
            spans: Vec::new(),
            head: Vec::new(),
            head_at: 0,
            tail: Vec::new(),
            tail_len: max + need + 2 * EDGE,
        }
    }

    /// Takes the line's next piece (`ends`: its last, the `\n` left out),
    /// matched with `matcher` (the one whose `piece_reach` the line was
    /// made with).
    pub(crate) fn feed(&mut self, matcher: Option<&Matcher>, piece: &[u8], ends: bool) {
        let at = self.len;
        if let (Some(matcher), false) = (matcher, self.settled) {
            self.find(matcher, piece, at, ends);
        }
        self.keep_head(piece, at);
        if piece.len() >= self.tail_len {
            self.tail.clear();
            self.tail
                .extend_from_slice(&piece[piece.len() - self.tail_len..]);
        } else {
            self.tail.extend_from_slice(piece);
            if self.tail.len() > self.tail_len {
                self.tail.drain(..self.tail.len() - self.tail_len);
            }
        }
        self.len += piece.len();
    }

    /// Returns true when the line holds a match (once its last piece is
    /// fed).
    pub(crate) fn matched(&self) -> bool {
        self.anchor.is_some()
    }

    /// The line's length with its `\n` (if `newline`): where the next
    /// line starts, from the line's start.
    pub(crate) fn len_with(&self, newline: bool) -> u64 {
        self.len as u64 + u64::from(newline)
    }

    /// The line's content length: without the `\r` of a `\r\n` ending
    /// (or one that ends the file).
    fn content_len(&self) -> usize {
        self.len - usize::from(self.tail.last() == Some(&b'\r'))
    }

    /// Appends the line as `show` shows it (cut to the window, with its
    /// spans) to `text` and `out`. The line is longer than the window.
    pub(crate) fn show(&self, text: &mut String, out: &mut Vec<Span>) -> Option<LineCut> {
        let len = self.content_len();
        let from = window_start(len, &self.spans, self.max);
        let (lo, hi) = (from.saturating_sub(EDGE), (from + self.max + 1).min(len));
        let tail_at = self.len - self.tail.len();
        let covers = |at: usize, held: usize| at <= lo && at + held >= hi;
        let (part, part_at) = if covers(self.head_at, self.head.len()) {
            (&self.head[..], self.head_at)
        } else {
            debug_assert!(covers(tail_at, self.tail.len()), "the window is held");
            (&self.tail[..], tail_at)
        };
        let part = &part[..part.len().min(len.saturating_sub(part_at))];
        show_part(part, part_at, len, &self.spans, Some(self.max), text, out)
    }

    /// Searches the piece at `at` of the line, with what was carried over.
    fn find(&mut self, matcher: &Matcher, piece: &[u8], at: usize, ends: bool) {
        let (need, context) = (self.need, self.context);
        if !self.carry.is_empty() {
            let mut hay = mem::take(&mut self.carry);
            let (hay_at, back) = (self.carry_at, self.resume - self.carry_at);
            if piece.len() <= need + context {
                hay.extend_from_slice(piece);
                self.search(matcher, &hay, hay_at, back, ends);
                hay.clear();
                if self.carry.is_empty() {
                    self.carry = hay;
                }
                return;
            }
            // The matches that start in the carried bytes or in the
            // piece's first `context` bytes (the piece is searched from
            // where its look-around has the bytes before): each is
            // decided by the piece's first `need + context` bytes.
            let carried = hay.len();
            hay.extend_from_slice(&piece[..need + context]);
            for (s, e) in matcher.piece_matches(&hay, back, hay.len()) {
                if s >= carried + context {
                    break;
                }
                self.resume = hay_at + e;
                if self.accept(hay_at + s, hay_at + e) {
                    break;
                }
            }
            self.resume = self.resume.max(at + context);
            hay.clear();
            self.carry = hay;
            if self.settled {
                return;
            }
        }
        self.search(matcher, piece, at, self.resume - at, ends);
    }

    /// Searches `hay`, the line's bytes from `hay_at`, from `from` (the
    /// bytes before are read only by the look-around): to its end when it
    /// ends the line, else as far as its bytes decide (the rest carried
    /// over, with the bytes the look-around reads before it).
    fn search(&mut self, matcher: &Matcher, hay: &[u8], hay_at: usize, from: usize, ends: bool) {
        let hay = if ends {
            // The line's content: a `\r` that ends it is not matched.
            &hay[..hay.len() - usize::from(hay.last() == Some(&b'\r'))]
        } else {
            hay
        };
        let to = hay.len().max(from);
        for (s, e) in matcher.piece_matches(hay, from, to) {
            if !ends && s + self.need > hay.len() {
                break;
            }
            self.resume = hay_at + e;
            if self.accept(hay_at + s, hay_at + e) {
                break;
            }
        }
        if !ends && !self.settled {
            let undecided = hay_at + hay.len().saturating_sub(self.need - 1);
            self.resume = self.resume.max(undecided);
            self.carry_at = self.resume.saturating_sub(self.context).max(hay_at);
            self.carry.clear();
            self.carry.extend_from_slice(&hay[self.carry_at - hay_at..]);
        }
    }

    /// Takes a match of the line; returns true when no more are wanted.
    fn accept(&mut self, start: usize, end: usize) -> bool {
        let first = *self.anchor.get_or_insert(start);
        if !self.spans_wanted || start > first.saturating_add(self.max) {
            // The window shows no match that starts further on (see
            // `Matcher::spans`).
            self.settled = true;
            self.carry.clear();
            return true;
        }
        self.spans.push(Span { start, end });
        false
    }

    /// Keeps the piece's bytes around the anchor, once there is one.
    fn keep_head(&mut self, piece: &[u8], at: usize) {
        let Some(anchor) = self.anchor else {
            return;
        };
        let end = anchor.saturating_add(self.max).saturating_add(EDGE);
        if self.head.is_empty() {
            // The anchor was found in this piece or in the bytes carried
            // into it, which the tail still holds.
            self.head_at = anchor.saturating_sub(self.max / 2 + EDGE);
            let tail_at = at - self.tail.len();
            debug_assert!(self.head_at >= tail_at, "the tail holds the bytes before");
            if self.head_at < at {
                let from = self.head_at.max(tail_at) - tail_at;
                self.head_at = tail_at + from;
                self.head.extend_from_slice(&self.tail[from..]);
            }
        }
        let held = self.head_at + self.head.len();
        if held < end && held >= at {
            let to = (end - at).min(piece.len());
            self.head
                .extend_from_slice(&piece[held - at..to.max(held - at)]);
        }
    }
}

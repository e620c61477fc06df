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

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;
use regex_automata::Input;
use regex_automata::meta::{self, Regex};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange};
use regex_syntax::hir::{Hir, HirKind, Look};

use crate::error::{Error, ErrorKind};
use crate::search::Span;
use crate::search::query::{PatternKind, Query};

/// The longest pattern accepted, in bytes (all literals together for a set).
pub(crate) const MAX_PATTERN_BYTES: usize = 1 << 20;
/// The most literals accepted in a set.
pub(crate) const MAX_LITERALS: usize = 100_000;
/// The size limit of a regex's compiled program (each NFA, and the
/// one-pass DFA), as in the `regex` crate. A pattern over it is refused:
/// past it, a counted repetition of a large class (`[\s\S]{65535}`) builds
/// a program that takes minutes to compile or to run.
const REGEX_SIZE_LIMIT: usize = 10 << 20;
/// The size limit for a set of literals, which grows with the literals
/// given (at most `MAX_PATTERN_BYTES`) and runs in linear time.
const LITERALS_SIZE_LIMIT: usize = 64 << 20;
/// The memory the lazy DFA may fill before it clears its cache; one cache
/// is made per searching thread.
const LAZY_DFA_CACHE: usize = 16 << 20;

#[derive(Clone)]
pub(crate) struct Matcher {
    /// Finds candidate matches in the whole buffer.
    candidates: Candidates,
    /// Confirms a candidate line and finds its matches.
    verify: Verify,
    /// Whole words: bytes that are not UTF-8 are read as NUL, a non-word
    /// character, so that a word beside them is whole (see `prepare`).
    nul_for_invalid: bool,
    /// The candidates come from the buffer-wide form of the very regex
    /// that confirms them: on a line without `\r`, where the two agree, a
    /// candidate needs no second look.
    candidates_confirm: bool,
    /// The pattern can match part of a character (a byte class such as
    /// `(?-u:\xA9)`): spans are widened to whole characters.
    widen: bool,
}

/// A buffer-wide finder: every line with a match holds a candidate.
#[derive(Clone)]
enum Candidates {
    Literal(Box<memmem::Finder<'static>>),
    Set(AhoCorasick),
    /// A regex compiled for the whole buffer (`$` also before `\r\n`).
    Regex(Regex),
}

impl Candidates {
    /// A position within the first line, at or after `start`, that holds
    /// a candidate (a match's start, or for a regex its end).
    fn find(&self, haystack: &[u8], start: usize) -> Option<usize> {
        match self {
            Candidates::Literal(f) => f.find(&haystack[start..]).map(|i| start + i),
            Candidates::Set(ac) => ac
                .find(aho_corasick::Input::new(haystack).range(start..))
                .map(|m| m.start()),
            // Only the line matters, so the end of the shortest match will
            // do: it lies in the same line as the start (no match spans a
            // line), and finding it takes one forward scan, no reverse one.
            Candidates::Regex(re) => re
                .search_half(&Input::new(haystack).range(start..).earliest(true))
                .map(|m| m.offset()),
        }
    }
}

/// How a candidate line is confirmed, and where its matches come from.
#[derive(Clone)]
enum Verify {
    /// The candidate engine itself: a candidate is a match, except on a
    /// line ending in `\r\n`, where the match may lie in the `\r`.
    Same,
    /// A regex compiled for one line's content.
    Regex(Regex),
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

fn invalid(query_pattern: &str, reason: impl Into<String>) -> Error {
    ErrorKind::InvalidPattern {
        pattern: query_pattern.to_owned(),
        reason: reason.into(),
    }
    .into()
}

/// Parses `pattern` into a line-local HIR (see the module docs). With
/// `crlf`, the line anchors also match around a `\r` (for the buffer-wide
/// search, which must find a superset of the lines); classes such as `.`
/// still match a `\r` either way.
fn parse(query: &Query, pattern: &str, crlf: bool) -> Result<Hir, Error> {
    let shown = query.pattern_text();
    let hir = regex_syntax::ParserBuilder::new()
        .case_insensitive(query.is_case_insensitive())
        .multi_line(true)
        .utf8(false)
        .build()
        .parse(pattern)
        .map_err(|e| invalid(&shown, one_line(&e.to_string())))?;
    line_local(hir, crlf).map_err(|reason| invalid(&shown, reason))
}

/// Compiles `hir` itself (never its printed form, which may not parse
/// back to the same regex), within `size_limit` bytes per compiled program.
fn compile(query: &Query, hir: &Hir, size_limit: usize) -> Result<Regex, Error> {
    let config = meta::Config::new()
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        // Empty matches never split a character, as in regex's str API.
        .utf8_empty(true)
        .which_captures(regex_automata::nfa::thompson::WhichCaptures::Implicit)
        .nfa_size_limit(Some(size_limit))
        .onepass_size_limit(Some(size_limit))
        .hybrid_cache_capacity(LAZY_DFA_CACHE);
    meta::Builder::new()
        .configure(config)
        .build_from_hir(hir)
        .map_err(|e| {
            let reason = match e.size_limit() {
                Some(limit) => format!(
                    "the compiled pattern is larger than the limit of {} MiB; \
                     use smaller repetition counts or narrower classes",
                    limit >> 20
                ),
                None => one_line(&e.to_string()),
            };
            invalid(&query.pattern_text(), reason)
        })
}

/// The HIR of one literal: its bytes, or, without case, each character
/// as the class of its simple case folds (what the parser makes of
/// `(?i)` and the escaped literal).
fn literal_hir(literal: &str, case_insensitive: bool) -> Result<Hir, String> {
    if !case_insensitive {
        return Ok(Hir::literal(literal.as_bytes()));
    }
    let mut parts = Vec::with_capacity(literal.len());
    for c in literal.chars() {
        let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
        class
            .try_case_fold_simple()
            .map_err(|_| "case folding is not available".to_owned())?;
        parts.push(match class.literal() {
            Some(bytes) => Hir::literal(bytes),
            None => Hir::class(Class::Unicode(class)),
        });
    }
    Ok(Hir::concat(parts))
}

/// The HIR of any of `literals`, the earlier given winning at a position.
fn literals_hir(literals: &[String], case_insensitive: bool) -> Result<Hir, String> {
    Ok(Hir::alternation(
        literals
            .iter()
            .map(|l| literal_hir(l, case_insensitive))
            .collect::<Result<Vec<_>, _>>()?,
    ))
}

fn whole_word(hir: Hir) -> Hir {
    Hir::concat(vec![
        Hir::look(Look::WordStartHalfUnicode),
        hir,
        Hir::look(Look::WordEndHalfUnicode),
    ])
}

impl Matcher {
    pub(crate) fn new(query: &Query) -> Result<Matcher, Error> {
        let shown = query.pattern_text();
        let total: usize = query.patterns().iter().map(String::len).sum();
        if total > MAX_PATTERN_BYTES {
            return Err(invalid(
                &shown.chars().take(80).collect::<String>(),
                format!("pattern is {total} bytes long, the most is {MAX_PATTERN_BYTES}"),
            ));
        }
        match query.kind() {
            PatternKind::Regex => Self::regex(query, &query.patterns()[0]),
            PatternKind::Literal | PatternKind::Literals => Self::literals(query),
        }
    }

    fn literals(query: &Query) -> Result<Matcher, Error> {
        let shown = query.pattern_text();
        let literals = query.patterns();
        if literals.is_empty() {
            return Err(invalid("", "no literal given"));
        }
        if literals.len() > MAX_LITERALS {
            return Err(invalid(
                &shown,
                format!(
                    "{} literals given, the most is {MAX_LITERALS}",
                    literals.len()
                ),
            ));
        }
        for lit in literals {
            if lit.is_empty() {
                return Err(invalid(
                    lit,
                    "an empty literal matches everywhere; use the regex ^ to list every line",
                ));
            }
            if lit.contains('\n') {
                return Err(invalid(
                    lit,
                    "a literal cannot contain a line terminator (\\n): matches are within single lines",
                ));
            }
        }
        if query.is_case_insensitive() {
            // The regex engine, not aho-corasick's ASCII folding: it folds
            // case the Unicode way (the Kelvin sign, the long s), and on
            // real text its prefilter is several times faster (aho-corasick's
            // rare-byte prefilter fires on common letters).
            let hir = literals_hir(literals, true).map_err(|reason| invalid(&shown, reason))?;
            return Self::regex_of(query, hir.clone(), hir, LITERALS_SIZE_LIMIT);
        }
        let candidates = if literals.len() == 1 {
            Candidates::Literal(Box::new(
                memmem::Finder::new(literals[0].as_bytes()).into_owned(),
            ))
        } else {
            Candidates::Set(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(literals)
                    .map_err(|e| invalid(&shown, e.to_string()))?,
            )
        };
        let verify = if query.is_whole_word() {
            let hir = literals_hir(literals, false).map_err(|reason| invalid(&shown, reason))?;
            Verify::Regex(compile(query, &whole_word(hir), LITERALS_SIZE_LIMIT)?)
        } else {
            Verify::Same
        };
        Ok(Matcher {
            candidates,
            verify,
            nul_for_invalid: query.is_whole_word(),
            candidates_confirm: false,
            widen: false,
        })
    }

    fn regex(query: &Query, pattern: &str) -> Result<Matcher, Error> {
        // The buffer-wide regex runs in CRLF mode, so `$` also matches
        // before a `\r\n` (and a lone `\r`): it finds a superset of the
        // lines, which the line regex, run on each line's content alone,
        // then confirms.
        let buffer_hir = parse(query, pattern, true)?;
        let line_hir = parse(query, pattern, false)?;
        Self::regex_of(query, buffer_hir, line_hir, REGEX_SIZE_LIMIT)
    }

    /// A regex matcher from the buffer-wide and the line form of a HIR.
    fn regex_of(
        query: &Query,
        buffer_hir: Hir,
        line_hir: Hir,
        size_limit: usize,
    ) -> Result<Matcher, Error> {
        let line_hir = if query.is_whole_word() {
            whole_word(line_hir)
        } else {
            line_hir
        };
        let widen = !line_hir.properties().is_utf8();
        let required = if has_literal_prefix(&buffer_hir) {
            None
        } else {
            required_literals(&buffer_hir).filter(|set| {
                !set.is_empty() && set.len() <= 64 && set.iter().all(|l| l.len() >= 2)
            })
        };
        let candidates = match required {
            Some(set) if set.len() == 1 => {
                Candidates::Literal(Box::new(memmem::Finder::new(&set[0]).into_owned()))
            }
            Some(set) => Candidates::Set(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(&set)
                    .map_err(|e| invalid(&query.pattern_text(), e.to_string()))?,
            ),
            None => Candidates::Regex(compile(query, &buffer_hir, size_limit)?),
        };
        let candidates_confirm =
            matches!(candidates, Candidates::Regex(_)) && !query.is_whole_word() && !widen;
        Ok(Matcher {
            candidates,
            verify: Verify::Regex(compile(query, &line_hir, size_limit)?),
            nul_for_invalid: query.is_whole_word(),
            candidates_confirm,
            widen,
        })
    }

    /// Finds the next line, starting at or after `start` (a line start),
    /// that holds a match.
    pub(crate) fn next_line(&self, haystack: &[u8], start: usize) -> Option<LineHit> {
        self.next_line_with(haystack, start, None)
    }

    /// Like `next_line`; with `spans`, a line that has to be confirmed by
    /// the line regex gets its matches found in the same pass, and the hit
    /// says so (`spans_ready`).
    pub(crate) fn next_line_with(
        &self,
        haystack: &[u8],
        mut start: usize,
        mut spans: Option<&mut Vec<Span>>,
    ) -> Option<LineHit> {
        let len = haystack.len();
        while start < len {
            let at = self.candidates.find(haystack, start)?.min(len);
            let line_start =
                memchr::memrchr(b'\n', &haystack[start..at]).map_or(start, |i| start + i + 1);
            if line_start == len {
                // An empty match after the final newline: no line is there.
                return None;
            }
            let line_end = memchr::memchr(b'\n', &haystack[at..]).map_or(len, |i| at + i);
            let content_end = if line_end > line_start && haystack[line_end - 1] == b'\r' {
                line_end - 1
            } else {
                line_end
            };
            let mut hit = LineHit {
                start: line_start,
                content_end,
                next: (line_end + 1).min(len),
                spans_ready: false,
            };
            let content = &haystack[line_start..content_end];
            let plain = content_end == line_end;
            if let (Verify::Regex(_), Some(out)) = (&self.verify, spans.as_deref_mut()) {
                if !self.confirmed_by_candidate(content, plain) {
                    // Finding the matches confirms the line, or not.
                    self.spans(content, out);
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
        match &self.verify {
            Verify::Same if plain => true,
            Verify::Same => match &self.candidates {
                Candidates::Literal(f) => f.find(content).is_some(),
                Candidates::Set(ac) => ac.is_match(content),
                Candidates::Regex(re) => re.is_match(content),
            },
            Verify::Regex(_) if self.confirmed_by_candidate(content, plain) => true,
            Verify::Regex(regex) => regex.is_match(content),
        }
    }

    /// Returns true when the candidate found in this line is already a
    /// match: it came from the buffer-wide form of the line regex, and the
    /// line has no `\r` where the two forms could disagree.
    fn confirmed_by_candidate(&self, content: &[u8], plain: bool) -> bool {
        self.candidates_confirm && plain && memchr::memchr(b'\r', content).is_none()
    }

    /// Every match within a line's `content`, leftmost first, not
    /// overlapping.
    pub(crate) fn spans(&self, content: &[u8], out: &mut Vec<Span>) {
        out.clear();
        let span = |start: usize, end: usize| Span { start, end };
        match &self.verify {
            Verify::Regex(regex) => {
                out.extend(regex.find_iter(content).map(|m| span(m.start(), m.end())));
                if self.widen {
                    widen_to_characters(content, out);
                }
            }
            Verify::Same => match &self.candidates {
                Candidates::Literal(f) => {
                    let n = f.needle().len();
                    out.extend(f.find_iter(content).map(|s| span(s, s + n)));
                }
                Candidates::Set(ac) => {
                    out.extend(ac.find_iter(content).map(|m| span(m.start(), m.end())))
                }
                Candidates::Regex(re) => {
                    out.extend(re.find_iter(content).map(|m| span(m.start(), m.end())))
                }
            },
        }
    }
}

/// The matching lines of a buffer, each with its matches.
///
/// For literals, and for a regex whose buffer-wide form is the line regex
/// (neither with whole words), one `find_iter` over the whole buffer
/// yields every match, grouped here by line: no second search per line.
/// Lines holding a `\r` are checked again on their content alone, where
/// the two could disagree. Whole words go line by line with
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
}

/// Every match in a buffer, in order, from one of the matchers that can
/// list a buffer's matches by line: no match spans a line.
// One lives on the stack while a file is searched: its size costs nothing,
// where boxing the large variant would cost an allocation per file.
#[allow(clippy::large_enum_variant)]
enum BufferMatches<'m, 'h> {
    Literal(memmem::FindIter<'h, 'm>, usize),
    Set(aho_corasick::FindIter<'m, 'h>),
    Regex(meta::FindMatches<'m, 'h>),
}

impl Iterator for BufferMatches<'_, '_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        match self {
            BufferMatches::Literal(it, len) => it.next().map(|s| (s, s + *len)),
            BufferMatches::Set(it) => it.next().map(|m| (m.start(), m.end())),
            BufferMatches::Regex(it) => it.next().map(|m| (m.start(), m.end())),
        }
    }
}

impl<'m, 'h> MatchedLines<'m, 'h> {
    pub(crate) fn new(matcher: &'m Matcher, haystack: &'h [u8], start: usize) -> Self {
        let rest = &haystack[start..];
        // Literals never hold a `\n`, so their matches in the buffer are
        // those of its lines (a line with a `\r` is checked again below).
        let matches = match (&matcher.candidates, &matcher.verify) {
            _ if matcher.widen => None,
            (Candidates::Regex(re), _) if matcher.candidates_confirm => {
                Some(BufferMatches::Regex(re.find_iter(rest)))
            }
            (Candidates::Literal(f), Verify::Same) => {
                Some(BufferMatches::Literal(f.find_iter(rest), f.needle().len()))
            }
            (Candidates::Set(ac), Verify::Same) => Some(BufferMatches::Set(ac.find_iter(rest))),
            _ => None,
        };
        MatchedLines {
            matcher,
            haystack,
            at: start,
            matches,
            base: start,
            pending: None,
            spans: Vec::new(),
        }
    }

    fn next_match(&mut self) -> Option<(usize, usize)> {
        if let Some(m) = self.pending.take() {
            return Some(m);
        }
        let (start, end) = self.matches.as_mut()?.next()?;
        Some((self.base + start, self.base + end))
    }

    /// The next matching line and its matches (offsets within the line).
    pub(crate) fn next_line(&mut self) -> Option<(LineHit, &[Span])> {
        if self.matches.is_none() {
            let hit = self
                .matcher
                .next_line_with(self.haystack, self.at, Some(&mut self.spans))?;
            if !hit.spans_ready {
                self.matcher
                    .spans(&self.haystack[hit.start..hit.content_end], &mut self.spans);
            }
            self.at = hit.next;
            return Some((hit, &self.spans));
        }
        let haystack = self.haystack;
        let len = haystack.len();
        loop {
            let (first_start, first_end) = self.next_match()?;
            let line_start = memchr::memrchr(b'\n', &haystack[self.at..first_start.min(len)])
                .map_or(self.at, |i| self.at + i + 1);
            if line_start >= len {
                // An empty match after the final newline: no line is there.
                return None;
            }
            let line_end = memchr::memchr(b'\n', &haystack[first_start.min(len)..])
                .map_or(len, |i| first_start + i);
            self.spans.clear();
            self.spans.push(Span {
                start: first_start - line_start,
                end: first_end - line_start,
            });
            while let Some((start, end)) = self.next_match() {
                if start > line_end {
                    self.pending = Some((start, end));
                    break;
                }
                self.spans.push(Span {
                    start: start - line_start,
                    end: end - line_start,
                });
            }
            let content_end = if line_end > line_start && haystack[line_end - 1] == b'\r' {
                line_end - 1
            } else {
                line_end
            };
            let content = &haystack[line_start..content_end];
            self.at = (line_end + 1).min(len);
            if content_end != line_end || memchr::memchr(b'\r', content).is_some() {
                self.matcher.spans(content, &mut self.spans);
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

impl Matcher {
    /// The bytes this matcher searches for `haystack`: the haystack
    /// itself, or, for whole words in a file that is not all UTF-8, a copy
    /// with every byte of an invalid sequence read as NUL (a non-word
    /// character; NUL itself never occurs, since a file holding one is
    /// binary and not searched). Offsets are unchanged.
    pub(crate) fn prepare<'h>(&self, haystack: &'h [u8]) -> std::borrow::Cow<'h, [u8]> {
        if !self.nul_for_invalid || std::str::from_utf8(haystack).is_ok() {
            return std::borrow::Cow::Borrowed(haystack);
        }
        let mut clean = Vec::with_capacity(haystack.len());
        for chunk in haystack.utf8_chunks() {
            clean.extend_from_slice(chunk.valid().as_bytes());
            clean.extend(std::iter::repeat_n(0u8, chunk.invalid().len()));
        }
        std::borrow::Cow::Owned(clean)
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

fn one_line(message: &str) -> String {
    // regex-syntax errors draw the pattern with a caret on several lines;
    // keep the last line, which says what is wrong.
    message
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("error:"))
        .map(|l| {
            l.trim_start()
                .trim_start_matches("error:")
                .trim()
                .to_owned()
        })
        .unwrap_or_else(|| message.replace('\n', " "))
}

/// Rewrites `hir` so it can match only within a line: removes `\n` from
/// every class, refuses a literal `\n`, and turns text anchors into line
/// anchors.
fn line_local(hir: Hir, crlf: bool) -> Result<Hir, String> {
    Ok(match hir.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => {
            if lit.0.contains(&b'\n') {
                return Err(
                    "the pattern can only match a line terminator (\\n) here; matches are within single lines"
                        .to_owned(),
                );
            }
            Hir::literal(lit.0)
        }
        HirKind::Class(Class::Unicode(mut class)) => {
            class.difference(&ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]));
            Hir::class(Class::Unicode(class))
        }
        HirKind::Class(Class::Bytes(mut class)) => {
            class.difference(&ClassBytes::new([ClassBytesRange::new(b'\n', b'\n')]));
            Hir::class(Class::Bytes(class))
        }
        HirKind::Look(look) => Hir::look(match look {
            Look::Start | Look::StartLF | Look::StartCRLF if crlf => Look::StartCRLF,
            Look::End | Look::EndLF | Look::EndCRLF if crlf => Look::EndCRLF,
            Look::Start | Look::StartLF | Look::StartCRLF => Look::StartLF,
            Look::End | Look::EndLF | Look::EndCRLF => Look::EndLF,
            other => other,
        }),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(line_local(*rep.sub, crlf)?);
            Hir::repetition(rep)
        }
        HirKind::Capture(mut cap) => {
            cap.sub = Box::new(line_local(*cap.sub, crlf)?);
            Hir::capture(cap)
        }
        HirKind::Concat(subs) => Hir::concat(
            subs.into_iter()
                .map(|h| line_local(h, crlf))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        HirKind::Alternation(subs) => Hir::alternation(
            subs.into_iter()
                .map(|h| line_local(h, crlf))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    })
}

/// Returns true when every match starts with one of a small set of
/// literals, which the regex engine already uses to skip ahead.
fn has_literal_prefix(hir: &Hir) -> bool {
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    seq.literals().is_some_and(|lits| {
        !lits.is_empty() && lits.len() <= 64 && lits.iter().all(|l| l.len() >= 2)
    })
}

/// A set of literals at least one of which every match contains, if one
/// is known; the longest such set is preferred.
fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(lit) => Some(vec![lit.0.to_vec()]),
        HirKind::Capture(cap) => required_literals(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => required_literals(&rep.sub),
        HirKind::Concat(subs) => {
            // Adjacent literals form one longer literal.
            let mut best: Option<Vec<Vec<u8>>> = None;
            let mut run: Vec<u8> = Vec::new();
            let consider = |cand: Option<Vec<Vec<u8>>>, best: &mut Option<Vec<Vec<u8>>>| {
                if let Some(cand) = cand {
                    let score = |s: &Vec<Vec<u8>>| s.iter().map(Vec::len).min().unwrap_or(0);
                    if best.as_ref().is_none_or(|b| score(&cand) > score(b)) {
                        *best = Some(cand);
                    }
                }
            };
            for sub in subs {
                if let HirKind::Literal(lit) = sub.kind() {
                    run.extend_from_slice(&lit.0);
                    continue;
                }
                if !run.is_empty() {
                    consider(Some(vec![std::mem::take(&mut run)]), &mut best);
                }
                consider(required_literals(sub), &mut best);
            }
            if !run.is_empty() {
                consider(Some(vec![run]), &mut best);
            }
            best
        }
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(required_literals(sub)?);
            }
            all.sort();
            all.dedup();
            Some(all)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hir(pattern: &str) -> Hir {
        regex_syntax::parse(pattern).unwrap()
    }

    #[test]
    fn required_literal_of_a_leading_repetition_is_the_inner_word() {
        assert_eq!(
            required_literals(&hir(r"\w+Typography\w*")),
            Some(vec![b"Typography".to_vec()])
        );
        assert!(!has_literal_prefix(&hir(r"\w+Typography\w*")));
        assert!(has_literal_prefix(&hir(r"fn\s+\w+")));
    }

    #[test]
    fn oversized_patterns_are_refused_with_the_reason() {
        for pattern in [r"[\s\S]{65535}", r"\w{100}{100}", r"(?:.{1000}){1000}"] {
            let err = Matcher::new(&Query::regex(pattern)).err().expect("refused");
            match err.kind() {
                ErrorKind::InvalidPattern {
                    pattern: shown,
                    reason,
                } => {
                    assert_eq!(shown, pattern);
                    assert!(reason.contains("larger than the limit"), "{reason}");
                }
                other => panic!("{pattern}: {other:?}"),
            }
        }
    }

    #[test]
    fn alternation_needs_a_literal_in_every_branch() {
        assert_eq!(
            required_literals(&hir(r"\d+(foo|bar)")),
            Some(vec![b"bar".to_vec(), b"foo".to_vec()])
        );
        assert_eq!(required_literals(&hir(r"\d+(foo|\w)")), None);
    }
}

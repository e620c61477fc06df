//! Matchers: one literal (memchr's memmem), many literals (aho-corasick),
//! and regex (regex's bytes API), each answering "where is the next
//! matching line" and "what matches in this line".
//!
//! Matching is line-oriented: no match spans a line terminator. Regex
//! patterns are rewritten so that they cannot match `\n` (it is removed
//! from every class; a literal `\n` is refused), and `\A`/`\z` mean the
//! start and end of a line, like `^` and `$`. With that, a match found in
//! the whole buffer is a match of its line, and the buffer can be searched
//! in one pass.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};
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
/// The compiled size limit for a regex.
const REGEX_SIZE_LIMIT: usize = 64 << 20;

pub(crate) struct Matcher {
    engine: Engine,
    /// For regexes without a literal prefix: literals every match
    /// contains, found first so that the regex runs only on candidate
    /// lines.
    required: Option<Finder>,
}

enum Engine {
    Literal(Box<memmem::Finder<'static>>),
    Set(AhoCorasick),
    Regex(Regex),
}

enum Finder {
    One(Box<memmem::Finder<'static>>),
    Many(AhoCorasick),
}

impl Finder {
    fn find(&self, haystack: &[u8], start: usize) -> Option<usize> {
        match self {
            Finder::One(f) => f.find(&haystack[start..]).map(|i| start + i),
            Finder::Many(ac) => ac
                .find(aho_corasick::Input::new(haystack).range(start..))
                .map(|m| m.start()),
        }
    }
}

fn invalid(query_pattern: &str, reason: impl Into<String>) -> Error {
    ErrorKind::InvalidPattern {
        pattern: query_pattern.to_owned(),
        reason: reason.into(),
    }
    .into()
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
            PatternKind::Literal | PatternKind::Literals => {
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
                let simple_case = !query.is_case_insensitive()
                    || literals.iter().all(|l| ascii_fold_is_unicode_fold(l));
                if query.is_whole_word() || !simple_case {
                    let alternation = literals
                        .iter()
                        .map(|l| regex_syntax::escape(l))
                        .collect::<Vec<_>>()
                        .join("|");
                    return Self::regex(query, &alternation);
                }
                if literals.len() == 1 && !query.is_case_insensitive() {
                    let finder = Box::new(memmem::Finder::new(literals[0].as_bytes()).into_owned());
                    return Ok(Matcher {
                        engine: Engine::Literal(finder),
                        required: None,
                    });
                }
                let ac = AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .ascii_case_insensitive(query.is_case_insensitive())
                    .build(literals)
                    .map_err(|e| invalid(&shown, e.to_string()))?;
                Ok(Matcher {
                    engine: Engine::Set(ac),
                    required: None,
                })
            }
        }
    }

    fn regex(query: &Query, pattern: &str) -> Result<Matcher, Error> {
        let shown = query.pattern_text();
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(query.is_case_insensitive())
            .multi_line(true)
            .crlf(true)
            .utf8(false)
            .build()
            .parse(pattern)
            .map_err(|e| invalid(&shown, one_line(&e.to_string())))?;
        let hir = line_local(hir).map_err(|reason| invalid(&shown, reason))?;
        let hir = if query.is_whole_word() {
            Hir::concat(vec![
                Hir::look(Look::WordStartHalfUnicode),
                hir,
                Hir::look(Look::WordEndHalfUnicode),
            ])
        } else {
            hir
        };
        let regex = RegexBuilder::new(&hir.to_string())
            .unicode(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| invalid(&shown, one_line(&e.to_string())))?;
        let required = if has_literal_prefix(&hir) {
            None
        } else {
            required_literals(&hir)
                .filter(|set| {
                    set.len() <= 64 && set.iter().all(|l| l.len() >= 2) && !set.is_empty()
                })
                .map(|set| {
                    if set.len() == 1 {
                        Finder::One(Box::new(memmem::Finder::new(&set[0]).into_owned()))
                    } else {
                        Finder::Many(
                            AhoCorasickBuilder::new()
                                .match_kind(MatchKind::LeftmostFirst)
                                .build(&set)
                                .expect("a small literal set always builds"),
                        )
                    }
                })
        };
        Ok(Matcher {
            engine: Engine::Regex(regex),
            required,
        })
    }

    /// The start of the leftmost match at or after `start`, in the whole
    /// buffer. With a required-literal finder this is only a candidate.
    fn candidate(&self, haystack: &[u8], start: usize) -> Option<usize> {
        if let Some(required) = &self.required {
            return required.find(haystack, start);
        }
        match &self.engine {
            Engine::Literal(f) => f.find(&haystack[start..]).map(|i| start + i),
            Engine::Set(ac) => ac
                .find(aho_corasick::Input::new(haystack).range(start..))
                .map(|m| m.start()),
            Engine::Regex(re) => re.find_at(haystack, start).map(|m| m.start()),
        }
    }

    /// Returns true when the engine's candidates are always matches, so a
    /// line needs no second look to be counted.
    fn candidates_are_matches(&self) -> bool {
        self.required.is_none()
    }

    /// Finds the next line, starting at or after `start` (a line start),
    /// that holds a match, as `start..end` without its `\n`.
    pub(crate) fn next_line(&self, haystack: &[u8], mut start: usize) -> Option<(usize, usize)> {
        while start < haystack.len() {
            let at = self.candidate(haystack, start)?;
            if at >= haystack.len() {
                // An empty match at the very end: past the last line.
                return None;
            }
            let line_start =
                memchr::memrchr(b'\n', &haystack[start..at]).map_or(start, |i| start + i + 1);
            let line_end =
                memchr::memchr(b'\n', &haystack[at..]).map_or(haystack.len(), |i| at + i);
            if self.candidates_are_matches() || self.is_match(&haystack[line_start..line_end]) {
                return Some((line_start, line_end));
            }
            start = line_end + 1;
        }
        None
    }

    fn is_match(&self, line: &[u8]) -> bool {
        match &self.engine {
            Engine::Literal(f) => f.find(line).is_some(),
            Engine::Set(ac) => ac.is_match(line),
            Engine::Regex(re) => re.is_match(line),
        }
    }

    /// Every match within `line` (without its terminator), leftmost first,
    /// not overlapping.
    pub(crate) fn spans(&self, line: &[u8], out: &mut Vec<Span>) {
        out.clear();
        match &self.engine {
            Engine::Literal(f) => {
                let n = f.needle().len();
                out.extend(f.find_iter(line).map(|s| Span {
                    start: s,
                    end: s + n,
                }));
            }
            Engine::Set(ac) => out.extend(ac.find_iter(line).map(|m| Span {
                start: m.start(),
                end: m.end(),
            })),
            Engine::Regex(re) => out.extend(re.find_iter(line).map(|m| Span {
                start: m.start(),
                end: m.end(),
            })),
        }
    }
}

/// Returns true when ASCII case folding of `literal` is the same as
/// Unicode simple case folding: the literal is ASCII and has no `k` or `s`
/// (which also fold to the Kelvin sign and the long s).
fn ascii_fold_is_unicode_fold(literal: &str) -> bool {
    literal.is_ascii() && !literal.bytes().any(|b| matches!(b | 0x20, b'k' | b's'))
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
fn line_local(hir: Hir) -> Result<Hir, String> {
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
            Look::Start => Look::StartCRLF,
            Look::End => Look::EndCRLF,
            other => other,
        }),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(line_local(*rep.sub)?);
            Hir::repetition(rep)
        }
        HirKind::Capture(mut cap) => {
            cap.sub = Box::new(line_local(*cap.sub)?);
            Hir::capture(cap)
        }
        HirKind::Concat(subs) => Hir::concat(
            subs.into_iter()
                .map(line_local)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        HirKind::Alternation(subs) => Hir::alternation(
            subs.into_iter()
                .map(line_local)
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
    fn alternation_needs_a_literal_in_every_branch() {
        assert_eq!(
            required_literals(&hir(r"\d+(foo|bar)")),
            Some(vec![b"bar".to_vec(), b"foo".to_vec()])
        );
        assert_eq!(required_literals(&hir(r"\d+(foo|\w)")), None);
    }

    #[test]
    fn kelvin_and_long_s_rule_out_ascii_folding() {
        assert!(ascii_fold_is_unicode_fold("fn main"));
        assert!(!ascii_fold_is_unicode_fold("task"));
        assert!(!ascii_fold_is_unicode_fold("naïve"));
    }
}

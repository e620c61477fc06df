//! Building a matcher from a query: the limits on patterns, the choice of
//! strategy (see `Strategy`), and compiling each regex from its rewritten
//! syntax tree.

use aho_corasick::{AhoCorasickBuilder, MatchKind};
use memchr::memmem;
use regex_automata::meta::{self, Regex};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, Look};

use crate::matcher::syntax::{has_literal_prefix, line_local, required_literals};
use crate::matcher::{Literals, Matcher, Strategy};
use crate::query::{PatternKind, Query};
use crate::{Error, ErrorKind};

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
pub(crate) fn parse(query: &Query, pattern: &str, crlf: bool) -> Result<Hir, Error> {
    let shown = query.pattern_text();
    let hir = regex_syntax::ParserBuilder::new()
        .case_insensitive(query.get_case_insensitive())
        .multi_line(true)
        .utf8(false)
        .build()
        .parse(pattern)
        .map_err(|e| invalid(&shown, one_line(&e.to_string())))?;
    line_local(hir, crlf).map_err(|reason| invalid(&shown, reason))
}

/// Compiles `hir` itself (never its printed form, which may not parse
/// back to the same regex), within `size_limit` bytes per compiled program.
/// With `drop_splits`, the engine reports every match, and the matcher
/// leaves out the empty ones that split a character (see
/// `Matcher::drop_splits`); otherwise the engine reports none of those.
fn compile(query: &Query, hir: &Hir, size_limit: usize, drop_splits: bool) -> Result<Regex, Error> {
    let config = meta::Config::new()
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        .utf8_empty(!drop_splits)
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
pub(crate) fn literals_hir(literals: &[String], case_insensitive: bool) -> Result<Hir, String> {
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
    /// The matcher of `query`.
    ///
    /// # Errors
    ///
    /// [`InvalidPattern`](crate::ErrorKind::InvalidPattern) for a pattern
    /// refused or too large.
    pub(crate) fn new(query: &Query) -> Result<Matcher, Error> {
        let shown = query.pattern_text();
        let total: usize = query.get_patterns().iter().map(String::len).sum();
        if total > MAX_PATTERN_BYTES {
            return Err(invalid(
                &shown.chars().take(80).collect::<String>(),
                format!("pattern is {total} bytes long, the most is {MAX_PATTERN_BYTES}"),
            ));
        }
        match query.get_kind() {
            PatternKind::Regex => Self::regex(query, &query.get_patterns()[0]),
            PatternKind::Literal | PatternKind::Literals => Self::literals(query),
        }
    }

    fn literals(query: &Query) -> Result<Matcher, Error> {
        let shown = query.pattern_text();
        let literals = query.get_patterns();
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
        if query.get_case_insensitive() {
            // The regex engine, not aho-corasick's ASCII folding: it folds
            // case the Unicode way (the Kelvin sign, the long s), and on
            // real text its prefilter is several times faster (aho-corasick's
            // rare-byte prefilter fires on common letters).
            let hir = literals_hir(literals, true).map_err(|reason| invalid(&shown, reason))?;
            return Self::regex_of(query, hir.clone(), hir, LITERALS_SIZE_LIMIT);
        }
        let found = finder(query, literals)?;
        let strategy = if query.get_whole_word() {
            let hir = literals_hir(literals, false).map_err(|reason| invalid(&shown, reason))?;
            let line = compile(query, &whole_word(hir), LITERALS_SIZE_LIMIT, false)?;
            Strategy::Prefiltered(found, line)
        } else {
            Strategy::Literals(found)
        };
        Ok(Matcher {
            strategy,
            nul_for_invalid: query.get_whole_word(),
            widen: false,
            unicode_words: false,
            drop_splits: false,
            regex_longest: None,
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
        let line_hir = if query.get_whole_word() {
            whole_word(line_hir)
        } else {
            line_hir
        };
        let widen = !line_hir.properties().is_utf8();
        let unicode_words = line_hir.properties().look_set().contains_word_unicode();
        let can_be_empty = |hir: &Hir| hir.properties().minimum_len() == Some(0);
        let drop_splits = can_be_empty(&line_hir) || can_be_empty(&buffer_hir);
        let required = if has_literal_prefix(&buffer_hir) {
            None
        } else {
            required_literals(&buffer_hir).filter(|set| {
                !set.is_empty() && set.len() <= 64 && set.iter().all(|l| l.len() >= 2)
            })
        };
        let strategy = match required {
            Some(set) => {
                let line = compile(query, &line_hir, size_limit, drop_splits)?;
                Strategy::Prefiltered(finder(query, &set)?, line)
            }
            None => Strategy::Regex {
                buffer: compile(query, &buffer_hir, size_limit, drop_splits)?,
                line: compile(query, &line_hir, size_limit, drop_splits)?,
                candidate_is_match: !query.get_whole_word() && !widen,
            },
        };
        Ok(Matcher {
            strategy,
            nul_for_invalid: query.get_whole_word(),
            widen,
            unicode_words,
            drop_splits,
            regex_longest: line_hir.properties().maximum_len(),
        })
    }
}

/// A finder of any of `literals` (none empty), one or several.
fn finder<L: AsRef<[u8]>>(query: &Query, literals: &[L]) -> Result<Literals, Error> {
    Ok(match literals {
        [one] => Literals::One(Box::new(memmem::Finder::new(one.as_ref()).into_owned())),
        many => Literals::Many(
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostFirst)
                .build(many)
                .map_err(|e| invalid(&query.pattern_text(), e.to_string()))?,
        ),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

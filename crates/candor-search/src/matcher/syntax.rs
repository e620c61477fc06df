//! Rewrites and readings of a pattern's syntax tree: making it
//! line-local (no match spans a line), and finding the literals every
//! match starts with or contains, which pick the strategy.

use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange};
use regex_syntax::hir::{Hir, HirKind, Look};

/// Rewrites `hir` so it can match only within a line: removes `\n` from
/// every class, refuses a literal `\n`, and turns text anchors into line
/// anchors.
pub(super) fn line_local(hir: Hir, crlf: bool) -> Result<Hir, String> {
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
pub(super) fn has_literal_prefix(hir: &Hir) -> bool {
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    seq.literals().is_some_and(|lits| {
        !lits.is_empty() && lits.len() <= 64 && lits.iter().all(|l| l.len() >= 2)
    })
}

/// A set of literals at least one of which every match contains, if one
/// is known; the longest such set is preferred.
pub(super) fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
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
}

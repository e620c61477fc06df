//! The analysis of a syntax tree into a trigram plan, after codesearch's
//! `regexp.go`: each node is summed up by an `Info` (the exact strings it
//! matches when they are few; otherwise strings every match starts with
//! and ends with), and a condition every match satisfies. Concatenations
//! cross the exact sets and the ends; alternations take the union and OR
//! their conditions; a repetition that may be absent (`{0,..}`) knows
//! nothing but an optional part (`?`) keeps its strings; one of at least
//! one (`{1,..}`) keeps its body's ends. Sets are kept small by turning
//! them into conditions and trimming them to their last two bytes, so a
//! trigram across the boundary with the next node can still be formed.

use std::collections::BTreeSet;

use regex_syntax::hir::{Class, Hir, HirKind};

use super::need::{MAX_ANY_OF, Need, flatten};

/// Byte strings, ordered (so plans are deterministic).
type Set = BTreeSet<Vec<u8>>;

/// The most exact strings kept before they become a condition.
const MAX_EXACT: usize = 7;
/// The most prefixes (or suffixes) kept after trimming.
const MAX_SET: usize = 20;
/// The most characters (or bytes) of a class expanded into strings; a
/// larger class is any character.
const MAX_CLASS: usize = 16;
/// An exact string this long becomes a condition at once.
const MAX_EXACT_LEN: usize = 16;

/// What is known of the strings a node of the syntax tree matches.
#[derive(Debug, Clone)]
struct Info {
    /// It can match the empty string.
    can_empty: bool,
    /// Every string it matches, when that set is known and small.
    exact: Option<Set>,
    /// Without `exact`: every match starts with one of these.
    prefix: Set,
    /// Without `exact`: every match ends with one of these.
    suffix: Set,
    /// A condition on the trigrams of every match.
    need: Need,
}

/// The plan of `hir`. With `whole_word`, the matcher's stand-ins for
/// invalid UTF-8 are not taken as the file's own bytes (see
/// `reliable_pieces`).
pub(super) fn plan(hir: &Hir, whole_word: bool) -> Need {
    let mut info = analyze(hir, whole_word);
    info.simplify(true);
    info.add_exact();
    info.need
}

/// The stand-ins for invalid UTF-8 under whole words (see
/// `Matcher::prepare`): a match may hold one where the file holds other
/// bytes.
const STAND_INS: [char; 3] = ['\u{0}', '\u{80}', '\u{FFFF}'];

/// The parts of a literal that, under whole words, are the file's own
/// bytes: split at each stand-in character. The text searched then is
/// all UTF-8, so a literal that is UTF-8 matches whole characters of it;
/// one that is not may match part of a stand-in, and is split at every
/// byte a stand-in is made of.
fn reliable_pieces(literal: &[u8]) -> Vec<&[u8]> {
    match std::str::from_utf8(literal) {
        Ok(text) => text.split(STAND_INS).map(str::as_bytes).collect(),
        Err(_) => literal
            .split(|b| matches!(b, 0x00 | 0x80 | 0xBF | 0xC2 | 0xEF))
            .collect(),
    }
}

/// What is known of the strings `hir` matches (see `plan` for
/// `whole_word`).
fn analyze(hir: &Hir, whole_word: bool) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact([Vec::new()].into()),
        HirKind::Literal(lit) => {
            let pieces = if whole_word {
                reliable_pieces(&lit.0)
            } else {
                vec![&lit.0[..]]
            };
            // Between two pieces, one unknown character.
            let mut info = Info::exact([Vec::new()].into());
            for (i, piece) in pieces.into_iter().enumerate() {
                if i > 0 {
                    info = concat(info, Info::any_char(false));
                }
                info = concat(info, Info::exact([piece.to_vec()].into()));
            }
            info
        }
        HirKind::Class(class) => match expand(class) {
            Some(set) if !(whole_word && set.iter().any(|s| reliable_pieces(s).len() != 1)) => {
                Info::exact(set)
            }
            _ => Info::any_char(false),
        },
        HirKind::Capture(cap) => analyze(&cap.sub, whole_word),
        HirKind::Repetition(rep) => {
            let sub = analyze(&rep.sub, whole_word);
            match (rep.min, rep.max) {
                (0, Some(1)) => alternate(sub, Info::exact([Vec::new()].into())),
                (0, _) => Info::any_char(true),
                _ => plus(sub),
            }
        }
        HirKind::Concat(subs) => subs
            .iter()
            .fold(Info::exact([Vec::new()].into()), |acc, s| {
                concat(acc, analyze(s, whole_word))
            }),
        HirKind::Alternation(subs) => {
            let mut parts = subs.iter().map(|s| analyze(s, whole_word));
            let first = parts.next().unwrap_or_else(|| Info::exact(Set::new()));
            parts.fold(first, alternate)
        }
    }
}

/// The strings a small class matches (each character's UTF-8 encoding,
/// or each byte), or `None` for a large one.
fn expand(class: &Class) -> Option<Set> {
    let mut out = Set::new();
    match class {
        Class::Unicode(c) => {
            let count: u64 = c
                .iter()
                .map(|r| u64::from(r.end() as u32 - r.start() as u32) + 1)
                .sum();
            if count > MAX_CLASS as u64 {
                return None;
            }
            for r in c.iter() {
                for ch in r.start()..=r.end() {
                    out.insert(ch.to_string().into_bytes());
                }
            }
        }
        Class::Bytes(c) => {
            let count: usize = c.iter().map(|r| usize::from(r.end() - r.start()) + 1).sum();
            if count > MAX_CLASS {
                return None;
            }
            for r in c.iter() {
                for b in r.start()..=r.end() {
                    out.insert(vec![b]);
                }
            }
        }
    }
    Some(out)
}

impl Info {
    /// A node that matches exactly the strings of `set`.
    fn exact(set: Set) -> Info {
        Info {
            can_empty: set.contains(&Vec::new()),
            exact: Some(set),
            prefix: Set::new(),
            suffix: Set::new(),
            need: Need::Any,
        }
    }

    /// A node of which nothing is known: any one character, or with
    /// `can_empty` any string.
    fn any_char(can_empty: bool) -> Info {
        Info {
            can_empty,
            exact: None,
            prefix: [Vec::new()].into(),
            suffix: [Vec::new()].into(),
            need: Need::Any,
        }
    }

    /// Strings every match starts with.
    fn prefixes(&self) -> &Set {
        self.exact.as_ref().unwrap_or(&self.prefix)
    }

    /// Strings every match ends with.
    fn suffixes(&self) -> &Set {
        self.exact.as_ref().unwrap_or(&self.suffix)
    }

    /// Adds the exact set, if any, to the condition (every match is one
    /// of those strings, so holds the trigrams of one of them).
    fn add_exact(&mut self) {
        if let Some(exact) = &self.exact {
            let need = std::mem::replace(&mut self.need, Need::Any);
            self.need = need.and(any_of_trigrams(exact));
        }
    }

    /// The condition with the exact set added, and the exact set gone
    /// into the prefixes and suffixes.
    fn into_inexact(mut self) -> Info {
        if let Some(exact) = self.exact.take() {
            let need = std::mem::replace(&mut self.need, Need::Any);
            self.need = need.and(any_of_trigrams(&exact));
            self.prefix = exact.clone();
            self.suffix = exact;
        }
        self
    }

    /// Keeps the sets small: a large or long exact set becomes a
    /// condition and two-byte ends; with `force`, so does any exact set
    /// whose strings all hold a trigram. Prefix and suffix sets are
    /// added to the condition and trimmed.
    fn simplify(&mut self, force: bool) {
        if let Some(exact) = &self.exact {
            let min = min_len(exact);
            if exact.len() > MAX_EXACT || (force && min >= 3) || min >= MAX_EXACT_LEN {
                self.add_exact();
                let exact = self.exact.take().unwrap_or_default();
                for s in exact {
                    let n = s.len();
                    if n < 3 {
                        self.prefix.insert(s.clone());
                        self.suffix.insert(s);
                    } else {
                        self.prefix.insert(s[..2].to_vec());
                        self.suffix.insert(s[n - 2..].to_vec());
                    }
                }
            }
        }
        if self.exact.is_none() {
            let need = std::mem::replace(&mut self.need, Need::Any);
            let need = need.and(any_of_trigrams(&self.prefix));
            self.need = need.and(any_of_trigrams(&self.suffix));
            self.prefix = trim(std::mem::take(&mut self.prefix), false);
            self.suffix = trim(std::mem::take(&mut self.suffix), true);
        }
    }
}

/// `x` then `y`.
fn concat(x: Info, y: Info) -> Info {
    let mut xy = Info {
        can_empty: x.can_empty && y.can_empty,
        exact: None,
        prefix: Set::new(),
        suffix: Set::new(),
        need: x.need.clone().and(y.need.clone()),
    };
    if let (Some(xe), Some(ye)) = (&x.exact, &y.exact) {
        xy.exact = Some(cross(xe, ye));
    } else {
        xy.prefix = if x.exact.is_some() {
            cross(x.prefixes(), y.prefixes())
        } else if x.can_empty {
            x.prefix.union(y.prefixes()).cloned().collect()
        } else {
            x.prefix.clone()
        };
        xy.suffix = if y.exact.is_some() {
            cross(x.suffixes(), y.suffixes())
        } else if y.can_empty {
            y.suffix.union(x.suffixes()).cloned().collect()
        } else {
            y.suffix.clone()
        };
    }
    // Where neither side is exact, the strings across the boundary are
    // known only here.
    if x.exact.is_none()
        && y.exact.is_none()
        && x.suffix.len() <= MAX_SET
        && y.prefix.len() <= MAX_SET
        && min_len(&x.suffix) + min_len(&y.prefix) >= 3
    {
        let across = cross(&x.suffix, &y.prefix);
        xy.need = xy.need.and(any_of_trigrams(&across));
    }
    xy.simplify(false);
    xy
}

/// `x` or `y`.
fn alternate(x: Info, y: Info) -> Info {
    let mut xy = match (&x.exact, &y.exact) {
        (Some(xe), Some(ye)) => Info {
            can_empty: x.can_empty || y.can_empty,
            exact: Some(xe.union(ye).cloned().collect()),
            prefix: Set::new(),
            suffix: Set::new(),
            need: x.need.clone().or(y.need.clone()),
        },
        _ => {
            let (x, y) = (x.into_inexact(), y.into_inexact());
            Info {
                can_empty: x.can_empty || y.can_empty,
                exact: None,
                prefix: x.prefix.union(&y.prefix).cloned().collect(),
                suffix: x.suffix.union(&y.suffix).cloned().collect(),
                need: x.need.or(y.need),
            }
        }
    };
    xy.simplify(false);
    xy
}

/// At least one `x`: its ends stay, its exact strings become ends.
fn plus(x: Info) -> Info {
    let mut info = match x.exact {
        Some(exact) => Info {
            can_empty: x.can_empty,
            exact: None,
            prefix: exact.clone(),
            suffix: exact,
            need: x.need,
        },
        None => x,
    };
    info.simplify(false);
    info
}

/// Every `a` followed by every `b`.
fn cross(a: &Set, b: &Set) -> Set {
    let mut out = Set::new();
    for x in a {
        for y in b {
            let mut s = Vec::with_capacity(x.len() + y.len());
            s.extend_from_slice(x);
            s.extend_from_slice(y);
            out.insert(s);
        }
    }
    out
}

/// The length of the shortest string of `set` (0 for an empty set, which
/// then tells nothing).
fn min_len(set: &Set) -> usize {
    set.iter().map(Vec::len).min().unwrap_or(0)
}

/// The condition that a match holds every trigram of one of `set`'s
/// strings; `Any` when one is shorter than a trigram, or there are too
/// many.
fn any_of_trigrams(set: &Set) -> Need {
    if min_len(set) < 3 || set.len() > MAX_ANY_OF {
        return Need::Any;
    }
    let mut any = Vec::with_capacity(set.len());
    for s in set {
        let all: Vec<Need> = s
            .windows(3)
            .map(|w| Need::Gram([w[0], w[1], w[2]]))
            .collect();
        any.push(Need::All(all));
    }
    flatten(Need::AnyOf(any))
}

/// The set's strings cut to their first (or, for `suffix`, last) two
/// bytes, and shorter while there are more than `MAX_SET`; a string
/// that another one starts (ends) with is dropped, since the shorter one
/// already says as much.
fn trim(set: Set, suffix: bool) -> Set {
    let mut set = set;
    let mut n = 2;
    loop {
        set = set
            .into_iter()
            .map(|s| {
                if s.len() <= n {
                    s
                } else if suffix {
                    s[s.len() - n..].to_vec()
                } else {
                    s[..n].to_vec()
                }
            })
            .collect();
        set = clean(set, suffix);
        if set.len() <= MAX_SET || n == 0 {
            return set;
        }
        n -= 1;
    }
}

/// Drops the strings that another string of the set starts (for
/// `suffix`, ends) with.
fn clean(set: Set, suffix: bool) -> Set {
    let all: Vec<Vec<u8>> = set.into_iter().collect();
    all.iter()
        .filter(|s| {
            !all.iter().any(|t| {
                t.len() < s.len()
                    && if suffix {
                        s.ends_with(t)
                    } else {
                        s.starts_with(t)
                    }
            })
        })
        .cloned()
        .collect()
}

//! The condition a plan states on a file's trigrams, and its
//! simplification: flattened, deduplicated, and bounded in size by
//! weakening it (a condition dropped from an `All`, an `AnyOf` that does
//! not fit replaced by `Any`), which keeps it true for every file that
//! can match.

/// A trigram: three consecutive bytes of a file, as they are on disk
/// (no decoding, no case folding).
pub(crate) type Gram = [u8; 3];

/// The most children an `AnyOf` keeps; a wider one becomes `Any`.
pub(super) const MAX_ANY_OF: usize = 64;
/// The most nodes a whole plan keeps; past that, conditions of an `All`
/// are dropped, last first.
pub(super) const MAX_NODES: usize = 512;

/// What a file's bytes must contain for the query to match in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Need {
    /// Nothing is known: every file may match.
    Any,
    /// The file holds this trigram.
    Gram(Gram),
    /// Every one of these holds (an empty list is `Any`).
    All(Vec<Need>),
    /// At least one of these holds (an empty list: no file can match).
    AnyOf(Vec<Need>),
}

impl Need {
    /// Both conditions, simplified.
    pub(crate) fn and(self, other: Need) -> Need {
        match (self, other) {
            (Need::Any, x) | (x, Need::Any) => x,
            (a, b) => flatten(Need::All(vec![a, b])),
        }
    }

    /// Either condition, simplified.
    pub(crate) fn or(self, other: Need) -> Need {
        match (self, other) {
            (Need::Any, _) | (_, Need::Any) => Need::Any,
            (a, b) => flatten(Need::AnyOf(vec![a, b])),
        }
    }

    /// Returns true when this plan holds for a file whose trigrams
    /// `has` tells.
    // Used by the corpus built on these postings (and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn holds(&self, has: &impl Fn(&Gram) -> bool) -> bool {
        match self {
            Need::Any => true,
            Need::Gram(g) => has(g),
            Need::All(needs) => needs.iter().all(|n| n.holds(has)),
            Need::AnyOf(needs) => needs.iter().any(|n| n.holds(has)),
        }
    }

    /// The number of nodes in this plan.
    pub(crate) fn size(&self) -> usize {
        match self {
            Need::Any | Need::Gram(_) => 1,
            Need::All(needs) | Need::AnyOf(needs) => {
                1 + needs.iter().map(Need::size).sum::<usize>()
            }
        }
    }
}

/// Flattens nested `All`s and `AnyOf`s, sorts and dedups their children,
/// and folds the trivial cases (`Any` inside an `All` or an `AnyOf`, one
/// child, too many alternatives).
pub(super) fn flatten(need: Need) -> Need {
    match need {
        Need::All(needs) => {
            let mut out = Vec::with_capacity(needs.len());
            for n in needs.into_iter().map(flatten) {
                match n {
                    Need::Any => {}
                    Need::All(inner) => out.extend(inner),
                    other => out.push(other),
                }
            }
            out.sort();
            out.dedup();
            if out
                .iter()
                .any(|n| matches!(n, Need::AnyOf(v) if v.is_empty()))
            {
                return Need::AnyOf(Vec::new());
            }
            match out.len() {
                0 => Need::Any,
                1 => out.pop().unwrap_or(Need::Any),
                _ => Need::All(out),
            }
        }
        Need::AnyOf(needs) => {
            let mut out = Vec::with_capacity(needs.len());
            for n in needs.into_iter().map(flatten) {
                match n {
                    Need::Any => return Need::Any,
                    Need::AnyOf(inner) => out.extend(inner),
                    other => out.push(other),
                }
            }
            out.sort();
            out.dedup();
            if out.len() > MAX_ANY_OF {
                return Need::Any;
            }
            match out.len() {
                1 => out.pop().unwrap_or(Need::Any),
                _ => Need::AnyOf(out),
            }
        }
        other => other,
    }
}

/// Cuts `need` down to at most `budget` nodes by weakening it: an `All`
/// keeps the conditions that fit, an `AnyOf` that does not fit whole is
/// `Any`.
pub(super) fn bound(need: Need, budget: &mut usize) -> Need {
    if *budget == 0 {
        return Need::Any;
    }
    match need {
        Need::All(needs) => {
            *budget -= 1;
            let mut out = Vec::new();
            for n in needs {
                if *budget == 0 {
                    break;
                }
                match bound(n, budget) {
                    Need::Any => {}
                    kept => out.push(kept),
                }
            }
            flatten(Need::All(out))
        }
        Need::AnyOf(needs) => {
            let size = 1 + needs.iter().map(Need::size).sum::<usize>();
            if size > *budget {
                return Need::Any;
            }
            *budget -= size;
            Need::AnyOf(needs)
        }
        leaf => {
            *budget -= 1;
            leaf
        }
    }
}

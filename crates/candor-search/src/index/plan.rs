//! The query planner: what a file's bytes must contain for a query to
//! match in it, as a condition on the file's trigrams.
//!
//! The plan is read from the syntax tree the matcher compiles (never from
//! a printed pattern), after Russ Cox's codesearch (`index/regexp.go`):
//! each part of the tree is summed up by the exact strings it matches
//! when they are few, or else by the strings its matches start and end
//! with and a condition every match satisfies (see `analyze`). A plan is
//! only ever weakened, never strengthened, when it grows too large: a
//! condition dropped from an `All`, or an `AnyOf` replaced by `Any`,
//! still holds for every file that can match.

mod analyze;
mod need;
#[cfg(test)]
mod tests;

pub(crate) use need::{Gram, Need};
use need::{MAX_NODES, bound, flatten};

use crate::{PatternKind, Query};

/// What a file's bytes must contain for `query` to match in it: planned
/// from the syntax tree the matcher compiles for the query (literals,
/// several literals, a regex; with case folding and whole words as the
/// matcher applies them). A query the matcher refuses, or one without a
/// usable trigram, plans as `Any`.
pub(crate) fn need(query: &Query) -> Need {
    let hir = match query.get_kind() {
        PatternKind::Regex => query
            .get_patterns()
            .first()
            .and_then(|p| crate::seam::parse(query, p, false).ok()),
        PatternKind::Literal | PatternKind::Literals => {
            let literals = query.get_patterns();
            if literals.is_empty() || literals.iter().any(String::is_empty) {
                None
            } else {
                crate::seam::literals_hir(literals, query.get_case_insensitive()).ok()
            }
        }
    };
    let Some(hir) = hir else {
        return Need::Any;
    };
    // Whole words: the matcher searches a copy of a file that is not
    // UTF-8 with each invalid sequence read as U+0000, U+0080 or U+FFFF,
    // so the bytes of those characters in a match need not be the file's.
    let planned = analyze::plan(&hir, query.get_whole_word());
    let mut budget = MAX_NODES;
    bound(flatten(planned), &mut budget)
}

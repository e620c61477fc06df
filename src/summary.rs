//! The one-line summary of a page, for channels that carry text beside
//! the JSON.

use std::fmt::Write as _;

use crate::note::{either, remedies};
use crate::{Budget, BudgetKind, Completeness, Disclosure, Skipped};

/// The one-line disclosure of a page of `count` items.
pub(crate) fn summary_line(disclosure: &Disclosure, count: usize, noun: &str) -> String {
    let completeness = disclosure.completeness();
    let total = disclosure.total();
    let skipped = disclosure.skipped();
    let start = disclosure.start();
    let mut line = String::new();
    // Which items of how many: "matches 11-20 of 25". A subset's items
    // are not numbers 11 to 20 of the answer: only how many, of how many.
    let span = match count {
        // The noun is the caller's plural, used as given: a guessed
        // singular is wrong too often ("indices", "entries", "bus").
        0 => format!("no {noun} of {total}"),
        _ if disclosure.is_subset() => format!("{count} {noun} of {total}"),
        1 => format!("{noun} {n}-{n} of {total}", n = start + 1),
        _ => format!("{noun} {}-{} of {total}", start + 1, start + count as u64),
    };
    match completeness {
        Completeness::Exact if start == 0 && count != 1 && !skipped.has_errors() => {
            let _ = write!(line, "Complete: {count} {noun}.");
        }
        Completeness::Exact if start == 0 && !skipped.has_errors() => {
            let _ = write!(line, "Complete: {span}.");
        }
        Completeness::Exact if !skipped.has_errors() => {
            let _ = write!(line, "Complete: {span} (the last page).");
        }
        Completeness::Exact => {
            let found = if start == 0 {
                format!("{count} {noun}")
            } else {
                span
            };
            let _ = write!(
                line,
                "Incomplete: {found} found, but {} could not be searched because of errors ({}).",
                plural(skipped.error_total(), "input"),
                reasons(skipped, true)
            );
        }
        Completeness::TruncatedByLimit { limit, requested } => {
            let _ = write!(line, "Incomplete: {span} (limit {limit}");
            if let Some(requested) = requested {
                let _ = write!(line, "; {requested} requested, above the ceiling");
            }
            line.push_str(").");
        }
        Completeness::TruncatedByBudget { budget, clamp } => {
            let _ = write!(line, "Incomplete: {span} ({}", budget_text(budget));
            if let Some(clamp) = clamp {
                let _ = write!(
                    line,
                    "; limit {}, {} requested, above the ceiling",
                    clamp.limit(),
                    clamp.requested()
                );
            }
            if let Some(limit) = disclosure.limit_reached() {
                let _ = write!(line, "; limit {limit} reached as well");
            }
            if let Some(needed) = budget.needed() {
                let _ = write!(
                    line,
                    "; a page holding the next item needs max_bytes of {needed}"
                );
                if crate::note::needs_retry(disclosure) {
                    line.push_str(", asked with the cursor that led to this page");
                }
            }
            line.push_str(").");
        }
    }
    if disclosure.is_subset() {
        let plural = noun;
        if start == 0 {
            let _ = write!(line, " A subset: some of the {plural}, not the first ones.");
        } else {
            let _ = write!(
                line,
                " A subset: some of the {plural} after the first {start}, not the next ones in order."
            );
        }
    }
    if completeness.is_truncated() {
        if disclosure.next_cursor().is_some() {
            line.push_str(" Resume with next_cursor.");
        } else {
            let options = either(&remedies(disclosure));
            let mut chars = options.chars();
            if let Some(first) = chars.next() {
                let _ = write!(
                    line,
                    " {}{} to see the rest.",
                    first.to_uppercase(),
                    chars.as_str()
                );
            }
        }
    }
    let policy = skipped.total() - skipped.error_total();
    if policy > 0 {
        let _ = write!(
            line,
            " {} skipped by policy ({}).",
            plural(policy, "input"),
            reasons(skipped, false)
        );
    }
    if let Some(as_of) = disclosure.as_of() {
        let _ = write!(
            line,
            " As of {as_of}: from an index, not checked against the inputs since."
        );
    }
    if completeness.is_truncated() && skipped.has_errors() {
        let _ = write!(
            line,
            " {} could not be searched because of errors ({}).",
            plural(skipped.error_total(), "input"),
            reasons(skipped, true)
        );
    }
    line
}

/// The reasons of the error skips, or of the policy skips, with their
/// counts.
fn reasons(skipped: &Skipped, errors: bool) -> String {
    let error_count = |reason| {
        skipped
            .errors_by_reason()
            .find(|(r, _)| *r == reason)
            .map_or(0, |(_, n)| n)
    };
    skipped
        .by_reason()
        .map(|(r, n)| {
            let e = error_count(r);
            (r, if errors { e } else { n - e })
        })
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| format!("{r}: {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The text of an incomplete result, in
/// [`Incomplete`](crate::Incomplete)'s message.
pub(crate) fn incomplete_summary(disclosure: &Disclosure, len: usize) -> String {
    let total = disclosure.total();
    let start = disclosure.start();
    let span = match len {
        0 => format!("no items of {total}"),
        1 => format!("item {} of {total}", start + 1),
        _ => format!("items {}-{} of {total}", start + 1, start + len as u64),
    };
    match disclosure.completeness() {
        Completeness::Exact => {
            format!("{span} returned, but some inputs were skipped because of errors")
        }
        Completeness::TruncatedByLimit { limit, .. } => format!("{span} (limit {limit})"),
        Completeness::TruncatedByBudget { budget, .. } => {
            format!("{span} ({})", budget_text(budget))
        }
    }
}

/// What stopped a result, in words: "deadline budget of 500 ms ran out",
/// or "cancelled" (a cancellation has no budget that could run out).
fn budget_text(budget: &Budget) -> String {
    match budget.kind() {
        BudgetKind::Cancelled => "cancelled".to_owned(),
        BudgetKind::Shard => format!("a shard stopped after {} items", budget.used()),
        kind => format!("{kind} budget of {} {} ran out", budget.max(), kind.unit()),
    }
}

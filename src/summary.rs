//! The one-line summary of a page, for channels that carry text beside
//! the JSON.

use std::fmt::Write as _;

use crate::note::{count_remedy, counts_only, either, reads_nothing, remedies};
use crate::{Budget, BudgetKind, Clamp, Completeness, Disclosure, SkipReason, Skipped, Total};

/// The one-line disclosure of a page of `count` items.
pub(crate) fn summary_line(disclosure: &Disclosure, count: usize, noun: &str) -> String {
    let completeness = disclosure.completeness();
    let start = disclosure.start();
    let span = span(disclosure, count, noun);
    let mut line = match completeness {
        Completeness::Exact => exact_sentence(disclosure, count, noun, span),
        _ if counts_only(disclosure) => count_sentence(disclosure, noun),
        Completeness::TruncatedByLimit { limit, requested } => {
            let mut line = format!("Incomplete: {span} (limit {limit}");
            if let Some(requested) = requested {
                let _ = write!(line, "; {requested} requested, above the ceiling");
            }
            count_cut_clause(&mut line, disclosure);
            line.push_str(").");
            line
        }
        Completeness::TruncatedByBudget { budget, clamp } => {
            budget_sentence(disclosure, budget, clamp.as_ref(), span)
        }
    };
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
    if completeness.is_truncated() && !counts_only(disclosure) {
        if disclosure.next_cursor().is_some() && reads_nothing(disclosure) {
            line.push_str(" Raise the file budget, then resume with next_cursor.");
        } else if disclosure.next_cursor().is_some() {
            line.push_str(" Resume with next_cursor.");
        } else {
            let options = either(&remedies(disclosure));
            let _ = write!(line, " {} to see the rest.", capitalized(&options));
        }
    }
    skips_text(&mut line, disclosure);
    line
}

/// Which items of how many: "matches 11-20 of 25". A subset's items are
/// not numbers 11 to 20 of the answer: only how many, of how many.
fn span(disclosure: &Disclosure, count: usize, noun: &str) -> String {
    let total = disclosure.total();
    let start = disclosure.start();
    match count {
        // The noun is the caller's plural, used as given: a guessed
        // singular is wrong too often ("indices", "entries", "bus").
        0 => format!("no {noun} of {total}"),
        _ if disclosure.is_subset() => format!("{count} {noun} of {total}"),
        1 => format!("{noun} {n}-{n} of {total}", n = start + 1),
        _ => format!("{noun} {}-{} of {total}", start + 1, start + count as u64),
    }
}

/// The sentence of an exact page: complete, unless inputs were skipped
/// because of errors.
fn exact_sentence(disclosure: &Disclosure, count: usize, noun: &str, span: String) -> String {
    let skipped = disclosure.skipped();
    let start = disclosure.start();
    if skipped.has_errors() {
        let found = if start == 0 {
            format!("{count} {noun}")
        } else {
            span
        };
        format!(
            "Incomplete: {found} found, but {} could not be searched because of errors ({}).",
            plural(skipped.error_total(), "input"),
            reasons(skipped, true)
        )
    } else if start > 0 {
        format!("Complete: {span} (the last page).")
    } else if count == 1 {
        format!("Complete: 1 of 1 {noun}.")
    } else {
        format!("Complete: {count} {noun}.")
    }
}

/// The sentence of a count (limit 0): how many, and that none are shown
/// on purpose.
fn count_sentence(disclosure: &Disclosure, noun: &str) -> String {
    match (disclosure.total(), disclosure.total_cut_by()) {
        (Total::Exact(n), _) => {
            format!("Counted {n} {noun} (exact); none shown: limit 0. Raise the limit to see them.")
        }
        (Total::AtLeast(n), Some(cut)) => format!(
            "Counted at least {n} {noun}; none shown: limit 0. {}: {} for the exact total. Raise the limit to see them.",
            capitalized(&count_cut_text(&cut)),
            count_remedy(&cut)
        ),
        (Total::AtLeast(n), None) => format!(
            "{} exist (at least {n}); none shown: limit 0. Ask with count_total for the exact total, or raise the limit to see them.",
            capitalized(noun)
        ),
    }
}

/// The sentence of a page a budget stopped: the budget, the limit it
/// stood under or reached as well, the bytes the next item needs.
fn budget_sentence(
    disclosure: &Disclosure,
    budget: &Budget,
    clamp: Option<&Clamp>,
    span: String,
) -> String {
    let mut line = format!("Incomplete: {span} ({}", budget_text(budget));
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
    count_cut_clause(&mut line, disclosure);
    line.push_str(").");
    line
}

/// The count's cut, inside the parentheses of a truncated page: what cut
/// it and what gives the exact total.
fn count_cut_clause(line: &mut String, disclosure: &Disclosure) {
    if let Some(cut) = disclosure.total_cut_by() {
        let _ = write!(
            line,
            "; {}: {} for the exact total",
            count_cut_text(&cut),
            count_remedy(&cut)
        );
    }
}

/// What cut the count of the total, in a few words: "the count of the
/// total stopped at the 500 ms deadline".
fn count_cut_text(budget: &Budget) -> String {
    let max = budget.max();
    match budget.kind() {
        BudgetKind::Counted => {
            format!("the count of the total stopped at the count budget of {max} items")
        }
        BudgetKind::Deadline => format!("the count of the total stopped at the {max} ms deadline"),
        BudgetKind::Cancelled => "the count of the total was cancelled".to_owned(),
        BudgetKind::ScannedBytes => {
            format!("the count of the total stopped at the scan budget of {max} bytes")
        }
        BudgetKind::Files => {
            format!("the count of the total stopped at the file budget of {max} files")
        }
        kind => format!("the count of the total stopped at the {kind} budget of {max}"),
    }
}

/// What was skipped, after the rest of the line: this page's policy
/// skips (errors are said with what they leave incomplete), and, after
/// earlier pages that skipped inputs, what the walk skipped so far.
fn skips_text(line: &mut String, disclosure: &Disclosure) {
    let skipped = disclosure.skipped();
    let completeness = disclosure.completeness();
    let before = disclosure.skipped_before();
    let so_far = disclosure.skipped_so_far();
    let policy = skipped.total() - skipped.error_total();
    if policy > 0 {
        let _ = write!(
            line,
            " {} skipped by policy ({})",
            plural(policy, "input"),
            reasons(skipped, false)
        );
        if !before.is_empty() {
            let _ = write!(line, "; {} in all so far", so_far.policy());
        }
        line.push('.');
    } else if before.policy() > 0 {
        let _ = write!(
            line,
            " {} skipped by policy in all so far, none on this page.",
            plural(before.policy(), "input")
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
    if before.errors() > 0 {
        let _ = write!(
            line,
            " Earlier pages could not search {} because of errors.",
            plural(before.errors(), "input")
        );
    }
    // Folders left out by policy are not searched at all: a reader who
    // sees "12 inputs" must not take them for 12 files.
    let folders = skipped.by_reason().any(|(reason, _)| {
        matches!(
            reason,
            SkipReason::Hidden
                | SkipReason::Ignored
                | SkipReason::Symlink
                | SkipReason::SymlinkLoop
                | SkipReason::OutsideRoot
        )
    });
    if folders {
        line.push_str(
            " A hidden, ignored or linked input can be a whole folder, none of it searched.",
        );
    }
}

/// `text` with its first letter in upper case.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
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
        Completeness::TruncatedByLimit { limit, .. } => {
            format!("{span} (limit {limit}{})", cut_of(disclosure))
        }
        Completeness::TruncatedByBudget { budget, .. } => {
            format!("{span} ({}{})", budget_text(budget), cut_of(disclosure))
        }
    }
}

/// The count's cut, for the text of an incomplete result.
fn cut_of(disclosure: &Disclosure) -> String {
    disclosure
        .total_cut_by()
        .map(|cut| format!("; {}", count_cut_text(&cut)))
        .unwrap_or_default()
}

/// What stopped a result, in words: "deadline budget of 500 ms ran out",
/// or "cancelled" (a cancellation has no budget that could run out).
fn budget_text(budget: &Budget) -> String {
    match budget.kind() {
        BudgetKind::Cancelled => "cancelled".to_owned(),
        BudgetKind::Shard => format!("a shard stopped after {} items", budget.used()),
        BudgetKind::OutputBytes => format!("max_bytes {} reached", budget.max()),
        kind => format!("{kind} budget of {} {} ran out", budget.max(), kind.unit()),
    }
}

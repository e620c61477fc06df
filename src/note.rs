//! The truncation note: the sentence in `truncation.note` that says what
//! stopped a result, how to get the rest and what will not help, its short
//! form for a tight byte budget, and which form a response carries.

use crate::{Budget, BudgetKind, Completeness, Disclosure, Total};

pub(crate) use crate::disclosure::NoteForm;

/// What stopped a result, in words, without the advice.
fn what_happened(completeness: &Completeness) -> String {
    match completeness {
        Completeness::Exact => String::new(),
        Completeness::TruncatedByLimit {
            limit,
            requested: Some(requested),
        } => format!(
            "Stopped at the limit of {limit} items (the {requested} asked for is above this server's ceiling) and more exist"
        ),
        Completeness::TruncatedByLimit {
            limit,
            requested: None,
        } => format!("Stopped at the limit of {limit} items and more exist"),
        Completeness::TruncatedByBudget { budget, clamp } => {
            let (max, used) = (budget.max(), budget.used());
            let clamped = match clamp {
                Some(c) => format!(
                    " (the limit of {} asked for was also lowered to this server's ceiling of {})",
                    c.requested(),
                    c.limit()
                ),
                None => String::new(),
            };
            let happened = match budget.kind() {
                // `used` is the least max_bytes that holds the page, in the
                // units of the max_bytes asked for (the JSON's, or those of
                // the response that encloses it).
                BudgetKind::OutputBytes => match budget.needed() {
                    Some(needed) => format!(
                        "Stopped at max_bytes {max} (this page needs {used} of it) with no room for the next item: a page holding it needs max_bytes of {needed}"
                    ),
                    None => format!(
                        "Stopped at max_bytes {max} (this page needs {used} of it) and more items exist"
                    ),
                },
                BudgetKind::ScannedBytes => format!(
                    "Stopped after scanning {used} bytes of input (budget {max}) before the search finished, so more items may exist"
                ),
                BudgetKind::Files => format!(
                    "Stopped after searching {used} files (budget {max}) before the search finished, so more items may exist"
                ),
                BudgetKind::Deadline => format!(
                    "Stopped after {used} ms by the {max} ms deadline before the search finished, so more items may exist"
                ),
                BudgetKind::Shard => format!(
                    "Stopped where a shard stopped after {used} of its items, by its own limit or response budget, and more items exist"
                ),
                BudgetKind::Cancelled => {
                    "Stopped because the query was cancelled before it finished, so more items may exist".to_owned()
                }
                BudgetKind::Counted => format!(
                    "Stopped by the count budget of {max} items, so more items may exist"
                ),
            };
            happened + &clamped
        }
    }
}

/// Returns true for a page that only counts: cut by a limit of 0 the
/// caller asked for, it holds no item and states how many exist.
pub(crate) fn counts_only(disclosure: &Disclosure) -> bool {
    matches!(
        disclosure.completeness(),
        Completeness::TruncatedByLimit {
            limit: 0,
            requested: None
        }
    )
}

/// What a page that only counts says it found.
fn counted(disclosure: &Disclosure) -> String {
    match disclosure.total() {
        Total::Exact(n) => {
            format!("Counted {n} items (exact) and returned none, at the limit of 0")
        }
        Total::AtLeast(n) if disclosure.total_cut_by().is_some() => {
            format!("Counted at least {n} items and returned none, at the limit of 0")
        }
        Total::AtLeast(n) => format!("Returned no items at the limit of 0; at least {n} exist"),
    }
}

/// How the count of the total was cut, for the note: "counting the total
/// stopped after 503 ms by the 500 ms deadline".
fn count_cut(budget: &Budget) -> String {
    let (max, used) = (budget.max(), budget.used());
    match budget.kind() {
        BudgetKind::Counted => {
            format!("counting the total stopped at the count budget of {max} items")
        }
        BudgetKind::Deadline => {
            format!("counting the total stopped after {used} ms by the {max} ms deadline")
        }
        BudgetKind::Cancelled => "counting the total stopped when the query was cancelled".into(),
        BudgetKind::ScannedBytes => format!(
            "counting the total stopped after scanning {used} bytes of input (budget {max})"
        ),
        BudgetKind::Files => {
            format!("counting the total stopped after searching {used} files (budget {max})")
        }
        kind => format!("counting the total stopped at the {kind} budget of {max}"),
    }
}

/// What gives the exact total when `budget` cut its count: more of that
/// budget, never a narrower query alone.
pub(crate) fn count_remedy(budget: &Budget) -> &'static str {
    match budget.kind() {
        BudgetKind::Counted => "raise the count budget",
        BudgetKind::Deadline => "allow more time",
        BudgetKind::Cancelled => "ask again",
        BudgetKind::ScannedBytes => "raise the scan budget",
        BudgetKind::Files => "raise the file budget",
        _ => "raise that budget",
    }
}

/// Returns true for a page cut by a files budget of 0, which reads
/// nothing: its cursor resumes where the page began, and gets further
/// only with more of the budget.
pub(crate) fn reads_nothing(disclosure: &Disclosure) -> bool {
    matches!(
        disclosure.completeness(),
        Completeness::TruncatedByBudget { budget, .. }
            if budget.kind() == BudgetKind::Files && budget.max() == 0
    )
}

/// The ways to get the rest of a truncated result, best first.
pub(crate) fn remedies(disclosure: &Disclosure) -> Vec<&'static str> {
    let completeness = disclosure.completeness();
    if counts_only(disclosure) {
        // Resuming with a limit of 0 again returns nothing again.
        let mut options = vec!["raise the limit to see them"];
        if disclosure.total().is_lower_bound() && disclosure.total_cut_by().is_none() {
            options.push("ask with count_total for the exact total");
        }
        return options;
    }
    let mut options = Vec::new();
    if disclosure.next_cursor().is_some() && !reads_nothing(disclosure) {
        options.push("resume with next_cursor");
    }
    match completeness {
        Completeness::Exact => return Vec::new(),
        Completeness::TruncatedByLimit {
            requested: Some(_), ..
        } => {}
        Completeness::TruncatedByLimit {
            requested: None, ..
        } => options.push("raise the limit"),
        Completeness::TruncatedByBudget { budget, .. } => options.push(match budget.kind() {
            BudgetKind::OutputBytes => "raise max_bytes",
            BudgetKind::ScannedBytes => "raise the scan budget",
            BudgetKind::Files => "raise the file budget",
            BudgetKind::Deadline => "allow more time",
            BudgetKind::Cancelled => "ask again",
            BudgetKind::Shard => "ask the shards for more items each",
            BudgetKind::Counted => "raise the count budget",
        }),
    }
    options.push("narrow the query");
    options
}

/// What will not help, when a reader might think it would.
fn futile(completeness: &Completeness) -> Option<&'static str> {
    match completeness {
        Completeness::Exact => None,
        Completeness::TruncatedByLimit {
            requested: Some(_), ..
        } => Some("asking for a larger limit will not help"),
        Completeness::TruncatedByLimit {
            requested: None, ..
        } => None,
        Completeness::TruncatedByBudget { .. } => Some("a larger limit will not help"),
    }
}

/// Joins options as "a, b or c".
pub(crate) fn either(options: &[&str]) -> String {
    match options {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The sentence in `truncation.note`: what the numbers mean, how to get
/// the rest, and what will not help; the source's own when it wrote one.
pub(crate) fn truncation_note(disclosure: &Disclosure) -> String {
    let completeness = disclosure.completeness();
    if completeness.is_exact() {
        return String::new();
    }
    if let Some(text) = disclosure.note_text() {
        return text.to_owned();
    }
    let mut note = if counts_only(disclosure) {
        counted(disclosure)
    } else {
        what_happened(completeness)
    };
    if let Some(limit) = disclosure.limit_reached() {
        note.push_str(&format!(
            "; the limit of {limit} items was reached as well, so more items exist"
        ));
    }
    if needs_retry(disclosure) {
        note.push_str(
            "; ask again with the cursor that led to this page and that max_bytes, since this page has none",
        );
    }
    if disclosure.is_subset() {
        note.push_str(
            "; the items are some of those after the page's start, not the first ones, so no cursor resumes from them",
        );
    }
    if let Some(cut) = disclosure.total_cut_by() {
        note.push_str("; ");
        note.push_str(&count_cut(&cut));
        note.push_str(", so the total is a lower bound");
    }
    note.push_str(": ");
    note.push_str(&either(&remedies(disclosure)));
    if let Some(cut) = disclosure.total_cut_by() {
        note.push_str("; for the exact total, ");
        note.push_str(count_remedy(&cut));
    }
    if let Some(futile) = futile(completeness) {
        note.push_str("; ");
        note.push_str(futile);
    }
    note.push('.');
    note
}

/// A page that holds no item, says what one needs, and has no cursor of
/// its own, after earlier pages: the retry goes from the cursor that led
/// here.
pub(crate) fn needs_retry(disclosure: &Disclosure) -> bool {
    disclosure.start() > 0
        && disclosure.next_cursor().is_none()
        && disclosure
            .completeness()
            .budget()
            .is_some_and(|b| b.needed().is_some())
}

/// The short form of the note, for a tight byte budget: whether more items
/// exist, and the cursor when there is one.
pub(crate) fn short_note(disclosure: &Disclosure) -> &'static str {
    if disclosure.is_subset() {
        return if disclosure.proves_more() {
            "Some of the items, not the first ones; more exist."
        } else {
            "Some of the items, not the first ones; more may exist."
        };
    }
    match (disclosure.proves_more(), disclosure.next_cursor().is_some()) {
        (true, true) => "More items exist: resume with next_cursor.",
        (true, false) => "More items exist.",
        (false, true) => "More items may exist: resume with next_cursor.",
        (false, false) => "More items may exist.",
    }
}

//! The truncation note: the sentence in `truncation.note` that says what
//! stopped a result, how to get the rest and what will not help, its short
//! form for a tight byte budget, and which form a response carries.

use crate::{BudgetKind, Completeness, Disclosure};

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
                BudgetKind::OutputBytes => match budget.needed() {
                    Some(needed) => format!(
                        "Stopped because the response may not exceed {max} bytes (this one is {used}) and the next item does not fit: a page holding it needs max_bytes of at least {needed}"
                    ),
                    None => format!(
                        "Stopped because the response may not exceed {max} bytes (this one is {used}) and more items exist"
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
            };
            happened + &clamped
        }
    }
}

/// The ways to get the rest of a truncated result, best first.
pub(crate) fn remedies(disclosure: &Disclosure) -> Vec<&'static str> {
    let completeness = disclosure.completeness();
    let mut options = Vec::new();
    if disclosure.next_cursor().is_some() {
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
    let mut note = what_happened(completeness);
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
    note.push_str(": ");
    note.push_str(&either(&remedies(disclosure)));
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

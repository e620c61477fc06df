//! The truncation note: the sentence in `truncation.note` that says what
//! stopped a result, how to get the rest and what will not help, its short
//! form for a tight byte budget, and which form a response carries.

use crate::{BudgetKind, Completeness};

/// Which form of `truncation.note` a response carries. A tight byte budget
/// shortens the note, then leaves it out, before it drops the last item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum NoteForm {
    /// The full sentence: what stopped, how to get the rest, what will not help.
    Full,
    /// A few words: whether more exist, and the cursor.
    Short,
    /// No note.
    Omitted,
}

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
                BudgetKind::OutputBytes => format!(
                    "Stopped because the response may not exceed {max} bytes (this one is {used}) and more items exist"
                ),
                BudgetKind::ScannedBytes => format!(
                    "Stopped after scanning {used} bytes of input (budget {max}) before the search finished, so more items may exist"
                ),
                BudgetKind::Files => format!(
                    "Stopped after searching {used} files (budget {max}) before the search finished, so more items may exist"
                ),
                BudgetKind::Deadline => format!(
                    "Stopped after {used} ms by the {max} ms deadline before the search finished, so more items may exist"
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
pub(crate) fn remedies(completeness: &Completeness, has_cursor: bool) -> Vec<&'static str> {
    let mut options = Vec::new();
    if has_cursor {
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
/// the rest, and what will not help.
pub(crate) fn truncation_note(completeness: &Completeness, has_cursor: bool) -> String {
    if completeness.is_exact() {
        return String::new();
    }
    let mut note = format!(
        "{}: {}",
        what_happened(completeness),
        either(&remedies(completeness, has_cursor))
    );
    if let Some(futile) = futile(completeness) {
        note.push_str("; ");
        note.push_str(futile);
    }
    note.push('.');
    note
}

/// The short form of the note, for a tight byte budget: whether more items
/// exist, and the cursor when there is one.
pub(crate) fn short_note(completeness: &Completeness, has_cursor: bool) -> &'static str {
    match (completeness.proves_more(), has_cursor) {
        (true, true) => "More items exist: resume with next_cursor.",
        (true, false) => "More items exist.",
        (false, true) => "More items may exist: resume with next_cursor.",
        (false, false) => "More items may exist.",
    }
}

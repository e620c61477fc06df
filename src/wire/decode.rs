//! The decoder of the wire shape: unknown fields are refused, then the
//! disclosure is checked with the rules every result obeys.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::note::{NoteForm, short_note};
use crate::{
    Bounded, Budget, BudgetKind, Clamp, Completeness, Disclosure, SkipReason, Skipped,
    SkippedInput, Total,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoundedIn<T> {
    complete: bool,
    #[serde(default)]
    truncation: Option<TruncationIn>,
    #[serde(default)]
    start: u64,
    count: usize,
    total: TotalIn,
    #[serde(default)]
    next_cursor: Option<crate::Cursor>,
    #[serde(default)]
    skipped: Option<SkippedIn>,
    items: Vec<T>,
}

#[derive(Deserialize)]
#[serde(tag = "by", rename_all = "snake_case", deny_unknown_fields)]
enum TruncationIn {
    Limit {
        limit: usize,
        #[serde(default)]
        requested: Option<usize>,
        #[serde(default)]
        note: Option<String>,
    },
    Budget {
        budget: String,
        max: u64,
        used: u64,
        #[serde(default)]
        limit: Option<usize>,
        #[serde(default)]
        requested: Option<usize>,
        #[serde(default)]
        note: Option<String>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TotalIn {
    value: u64,
    relation: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkippedIn {
    total: u64,
    by_reason: BTreeMap<String, u64>,
    #[serde(default)]
    sample: Vec<SampleIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SampleIn {
    path: String,
    reason: String,
    #[serde(default)]
    detail: Option<String>,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Bounded<T> {
    /// Decodes the wire shape, refusing unknown fields, and checks its
    /// disclosure with the rules every result obeys (those of
    /// [`Bounded::from_parts`]), and that `count` is the number of items
    /// and `complete` agrees with the rest.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = BoundedIn::<T>::deserialize(deserializer)?;
        if wire.count != wire.items.len() {
            return Err(de::Error::custom(format!(
                "count is {} but {} items were sent",
                wire.count,
                wire.items.len()
            )));
        }
        let (completeness, note) = match wire.truncation {
            None => (Completeness::Exact, None),
            Some(TruncationIn::Limit {
                limit,
                requested,
                note,
            }) => (Completeness::TruncatedByLimit { limit, requested }, note),
            Some(TruncationIn::Budget {
                budget,
                max,
                used,
                limit,
                requested,
                note,
            }) => {
                let kind = budget.parse::<BudgetKind>().map_err(de::Error::custom)?;
                let clamp = match (limit, requested) {
                    (None, None) => None,
                    (Some(limit), Some(requested)) => Some(Clamp::new(limit, requested)),
                    _ => {
                        return Err(de::Error::custom(
                            "a budget truncation carries limit and requested together, or neither",
                        ));
                    }
                };
                let budget = Budget::new(kind, max, used);
                (Completeness::TruncatedByBudget { budget, clamp }, note)
            }
        };
        let total = match wire.total.relation.as_str() {
            "eq" => Total::Exact(wire.total.value),
            "gte" => Total::AtLeast(wire.total.value),
            other => {
                return Err(de::Error::custom(format!(
                    "total relation {other:?} is neither \"eq\" nor \"gte\""
                )));
            }
        };
        let skipped = match wire.skipped {
            None => Skipped::new(),
            Some(s) => Skipped::from_parts(
                s.total,
                s.by_reason
                    .into_iter()
                    .map(|(r, n)| (SkipReason::from_wire(&r), n))
                    .collect(),
                s.sample
                    .into_iter()
                    .map(|x| {
                        let input = SkippedInput::new(x.path, SkipReason::from_wire(&x.reason));
                        match x.detail {
                            Some(d) => input.with_detail(d),
                            None => input,
                        }
                    })
                    .collect(),
            ),
        };
        let has_cursor = wire.next_cursor.is_some();
        let note_form = match note {
            None => NoteForm::Omitted,
            Some(n) if n == short_note(&completeness, has_cursor) => NoteForm::Short,
            // The note is text for the reader: any other wording is kept
            // as the full note of this disclosure.
            Some(_) => NoteForm::Full,
        };
        let mut disclosure = Disclosure::new(completeness, total)
            .with_start(wire.start)
            .with_skipped(skipped);
        disclosure.set_next_cursor(wire.next_cursor);
        if disclosure.completeness().is_truncated() {
            disclosure.set_note(note_form);
        }
        if disclosure.is_complete() != wire.complete {
            return Err(de::Error::custom(format!(
                "complete is {} but the disclosure says {}",
                wire.complete,
                disclosure.is_complete()
            )));
        }
        Bounded::from_parts(wire.items, disclosure).map_err(de::Error::custom)
    }
}

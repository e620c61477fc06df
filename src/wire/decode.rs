//! The decoder of the wire shape: unknown fields are refused, then the
//! disclosure is checked with the rules every result obeys.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::note::{NoteForm, short_note, truncation_note};
use crate::{
    Bounded, Budget, BudgetKind, Clamp, Completeness, Disclosure, SkipReason, SkipTally, Skipped,
    SkippedInput, Total,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoundedIn<T> {
    complete: bool,
    #[serde(default)]
    as_of: Option<String>,
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
        subset: bool,
        #[serde(default)]
        note: Option<String>,
    },
    Budget {
        budget: String,
        max: u64,
        used: u64,
        #[serde(default)]
        needed: Option<u64>,
        #[serde(default)]
        limit: Option<usize>,
        #[serde(default)]
        requested: Option<usize>,
        #[serde(default)]
        limit_reached: bool,
        #[serde(default)]
        subset: bool,
        #[serde(default)]
        note: Option<String>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TotalIn {
    value: u64,
    relation: String,
    #[serde(default)]
    cut_by: Option<CutIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CutIn {
    budget: String,
    max: u64,
    used: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SoFarIn {
    total: u64,
    #[serde(default)]
    errors: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkippedIn {
    total: u64,
    by_reason: BTreeMap<String, u64>,
    #[serde(default)]
    errors: Option<BTreeMap<String, u64>>,
    #[serde(default)]
    sample: Vec<SampleIn>,
    #[serde(default)]
    so_far: Option<SoFarIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SampleIn {
    path: String,
    reason: String,
    #[serde(default)]
    error: Option<bool>,
    #[serde(default)]
    detail: Option<String>,
}

/// What `truncation` says: the stop, and what a disclosure states
/// beside it.
struct Truncation {
    completeness: Completeness,
    limit_reached: Option<usize>,
    subset: bool,
    note: Option<String>,
}

impl Truncation {
    /// Decodes `truncation` (`None`: an exact result).
    fn decode(truncation: Option<TruncationIn>) -> Result<Truncation, String> {
        Ok(match truncation {
            None => Truncation {
                completeness: Completeness::Exact,
                limit_reached: None,
                subset: false,
                note: None,
            },
            Some(TruncationIn::Limit {
                limit,
                requested,
                subset,
                note,
            }) => Truncation {
                completeness: Completeness::TruncatedByLimit { limit, requested },
                limit_reached: None,
                subset,
                note,
            },
            Some(TruncationIn::Budget {
                budget,
                max,
                used,
                needed,
                limit,
                requested,
                limit_reached,
                subset,
                note,
            }) => {
                let kind = budget.parse::<BudgetKind>().map_err(|e| e.to_string())?;
                let (clamp, limit_reached) = budget_limits(limit, requested, limit_reached)?;
                let mut budget = Budget::new(kind, max, used);
                if let Some(needed) = needed {
                    budget = budget.with_needed(needed);
                }
                Truncation {
                    completeness: Completeness::TruncatedByBudget { budget, clamp },
                    limit_reached,
                    subset,
                    note,
                }
            }
        })
    }
}

/// The limit a budget truncation states: the clamp (with `requested`),
/// the limit reached as well (with `reached`), or none.
fn budget_limits(
    limit: Option<usize>,
    requested: Option<usize>,
    reached: bool,
) -> Result<(Option<Clamp>, Option<usize>), String> {
    let clamp = match (limit, requested) {
        (Some(limit), Some(requested)) => Some(Clamp::new(limit, requested)),
        (_, None) => None,
        (None, Some(_)) => {
            return Err("a budget truncation carries requested only with the limit".into());
        }
    };
    let limit_reached = match (limit, reached) {
        (Some(limit), true) => Some(limit),
        (None, true) => {
            return Err("limit_reached is stated with the limit that was reached".into());
        }
        (Some(_), false) if clamp.is_none() => {
            return Err(
                "a budget truncation carries a limit only when it was clamped or reached".into(),
            );
        }
        _ => None,
    };
    Ok((clamp, limit_reached))
}

/// A truncated `disclosure` with its `note`, kept as text for the reader:
/// candor's own full or short sentence, or the source's own words, kept
/// as they are.
fn with_note(mut disclosure: Disclosure, note: Option<String>) -> Disclosure {
    let form = match note {
        None => NoteForm::Omitted,
        Some(n) if n == short_note(&disclosure) => NoteForm::Short,
        Some(n) if n == truncation_note(&disclosure) => NoteForm::Full,
        Some(n) => {
            disclosure = disclosure.with_note(n);
            NoteForm::Full
        }
    };
    disclosure.set_note(form);
    disclosure
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
        let Truncation {
            completeness,
            limit_reached,
            subset,
            note,
        } = Truncation::decode(wire.truncation).map_err(de::Error::custom)?;
        let total = match wire.total.relation.as_str() {
            "eq" => Total::Exact(wire.total.value),
            "gte" => Total::AtLeast(wire.total.value),
            other => {
                return Err(de::Error::custom(format!(
                    "total relation {other:?} is neither \"eq\" nor \"gte\""
                )));
            }
        };
        let (skipped, skipped_before) = match wire.skipped {
            None => (Skipped::new(), SkipTally::default()),
            Some(s) => decode_skipped(s).map_err(de::Error::custom)?,
        };
        let mut disclosure = Disclosure::new(completeness, total)
            .with_start(wire.start)
            .with_skipped(skipped)
            .with_skipped_before(skipped_before);
        if let Some(cut) = wire.total.cut_by {
            let kind = cut
                .budget
                .parse::<BudgetKind>()
                .map_err(de::Error::custom)?;
            disclosure = disclosure.with_total_cut_by(Budget::new(kind, cut.max, cut.used));
        }
        if let Some(as_of) = wire.as_of {
            disclosure = disclosure.with_as_of(as_of.parse().map_err(de::Error::custom)?);
        }
        disclosure.set_next_cursor(wire.next_cursor);
        if subset {
            disclosure = disclosure.with_subset();
        }
        if let Some(limit) = limit_reached {
            disclosure = disclosure.with_limit_reached(limit);
        }
        if disclosure.completeness().is_truncated() {
            disclosure = with_note(disclosure, note);
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

/// Rebuilds a `Skipped` from the wire, and what the pages before it
/// skipped (`so_far`, less this page's). Where `errors` or a sample's
/// `error` is left out, the reasons candor defines keep their own kind and
/// a reason named by another tool counts as policy: a writer that counts
/// it as an error says so.
fn decode_skipped(s: SkippedIn) -> Result<(Skipped, SkipTally), String> {
    let by_reason: BTreeMap<SkipReason, u64> = s
        .by_reason
        .into_iter()
        .map(|(r, n)| (SkipReason::from_wire(&r), n))
        .collect();
    let errors = match s.errors {
        Some(errors) => errors
            .into_iter()
            .map(|(r, n)| (SkipReason::from_wire(&r), n))
            .collect(),
        None => by_reason
            .iter()
            .filter(|(r, _)| r.is_built_in() && r.is_error())
            .map(|(r, n)| (r.clone(), *n))
            .collect(),
    };
    let sample = s
        .sample
        .into_iter()
        .map(|x| {
            let reason = SkipReason::from_wire(&x.reason);
            let error = x
                .error
                .unwrap_or_else(|| reason.is_built_in() && reason.is_error());
            let input = SkippedInput::from_wire(x.path, reason, error);
            match x.detail {
                Some(d) => input.with_detail(d),
                None => input,
            }
        })
        .collect();
    let skipped = Skipped::from_parts(s.total, by_reason, errors, sample);
    let before = match s.so_far {
        None => SkipTally::default(),
        Some(so_far) => {
            let page = skipped.tally();
            if so_far.errors > so_far.total {
                return Err(format!(
                    "skipped.so_far counts {} errors of {} skips",
                    so_far.errors, so_far.total
                ));
            }
            match (
                so_far.total.checked_sub(page.total()),
                so_far.errors.checked_sub(page.errors()),
            ) {
                (Some(total), Some(errors)) if errors <= total => SkipTally::new(total, errors),
                _ => {
                    return Err(format!(
                        "skipped.so_far ({} skips, {} errors) counts fewer than this page's ({}, {})",
                        so_far.total,
                        so_far.errors,
                        page.total(),
                        page.errors()
                    ));
                }
            }
        }
    };
    Ok((skipped, before))
}

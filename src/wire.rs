//! The wire shape: serde for `Bounded<T>`, its JSON Schema, and the texts
//! written for the reader (an LLM, often) of a truncated answer.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{
    Bounded, Budget, BudgetKind, Completeness, Cursor, SkipReason, Skipped, SkippedInput, Total,
};

/// A short text that explains the wire shape's fields to an LLM client, to
/// put in a tool's description.
///
/// # Example
///
/// ```
/// assert!(candor::LLM_GUIDE.contains("complete"));
/// assert!(candor::LLM_GUIDE.contains("next_cursor"));
/// ```
pub const LLM_GUIDE: &str = "Results are bounded and say so. `complete` is true only when `items` \
holds the whole answer and nothing was left unsearched because of an error; when it is false, \
never describe the items as all of them. `count` is the number of items in this response, never \
the total. `total.value` is how many items the full answer holds: exact when `total.relation` is \
\"eq\", a lower bound when it is \"gte\". `truncation` (present only when something is missing) \
says what stopped the result (`by`: \"limit\" or \"budget\") and its `note` says how to get the \
rest. `next_cursor`, when present, fetches the next page: pass it back unchanged with the same \
query. `skipped` counts inputs that were not searched, by reason.";

/// The JSON Schema (draft 2020-12) of the wire shape, with `item_schema`
/// as the schema of each item. Suits an MCP tool's `outputSchema`.
///
/// # Example
///
/// ```
/// let schema = candor::envelope_schema(serde_json::json!({ "type": "integer" }));
/// assert_eq!(schema["properties"]["items"]["items"]["type"], "integer");
/// assert_eq!(schema["required"][0], "complete");
/// ```
#[must_use]
pub fn envelope_schema(item_schema: Value) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Bounded result",
        "description": "A result that discloses whether it is complete. Disclosure first, items last.",
        "type": "object",
        "required": ["complete", "count", "total", "items"],
        "additionalProperties": false,
        "properties": {
            "complete": {
                "type": "boolean",
                "description": "True only when items hold the whole answer and no input was skipped because of an error."
            },
            "truncation": {
                "description": "Present only when items of the full answer are missing: what stopped the result.",
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["by", "limit", "note"],
                        "additionalProperties": false,
                        "properties": {
                            "by": { "const": "limit" },
                            "limit": { "type": "integer", "minimum": 0, "description": "The item limit applied." },
                            "requested": { "type": "integer", "minimum": 0, "description": "The limit asked for, when it was clamped to the ceiling." },
                            "note": { "type": "string" }
                        }
                    },
                    {
                        "type": "object",
                        "required": ["by", "budget", "max", "used", "note"],
                        "additionalProperties": false,
                        "properties": {
                            "by": { "const": "budget" },
                            "budget": { "enum": ["output_bytes", "scanned_bytes", "files", "deadline", "cancelled"] },
                            "max": { "type": "integer", "minimum": 0 },
                            "used": { "type": "integer", "minimum": 0 },
                            "note": { "type": "string" }
                        }
                    }
                ]
            },
            "count": {
                "type": "integer",
                "minimum": 0,
                "description": "The number of items in this response. Never the total."
            },
            "total": {
                "type": "object",
                "required": ["value", "relation"],
                "additionalProperties": false,
                "description": "How many items the full answer holds.",
                "properties": {
                    "value": { "type": "integer", "minimum": 0 },
                    "relation": { "enum": ["eq", "gte"], "description": "eq: exact; gte: a lower bound." }
                }
            },
            "next_cursor": {
                "type": "string",
                "description": "Pass back unchanged, with the same query, to get the next page. Absent when there is none."
            },
            "skipped": {
                "type": "object",
                "required": ["total", "by_reason", "sample"],
                "additionalProperties": false,
                "description": "Inputs that were not searched, counted by reason.",
                "properties": {
                    "total": { "type": "integer", "minimum": 0 },
                    "by_reason": { "type": "object", "additionalProperties": { "type": "integer", "minimum": 0 } },
                    "sample": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["path", "reason"],
                            "additionalProperties": false,
                            "properties": {
                                "path": { "type": "string" },
                                "reason": { "type": "string" },
                                "detail": { "type": "string" }
                            }
                        }
                    }
                }
            },
            "items": { "type": "array", "items": item_schema }
        }
    })
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
        Completeness::TruncatedByBudget { budget } => {
            let (max, used) = (budget.max(), budget.used());
            match budget.kind() {
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
            }
        }
    }
}

/// The ways to get the rest of a truncated result, best first.
fn remedies(completeness: &Completeness, has_cursor: bool) -> Vec<&'static str> {
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
        Completeness::TruncatedByBudget { budget } => options.push(match budget.kind() {
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
fn either(options: &[&str]) -> String {
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

/// `noun` (a plural) for a count of `n`: naively singular for 1.
fn noun_for(n: u64, noun: &str) -> String {
    if n != 1 {
        return noun.to_owned();
    }
    for suffix in ["ches", "shes", "sses", "xes"] {
        if noun.ends_with(suffix) {
            return noun[..noun.len() - 2].to_owned();
        }
    }
    noun.strip_suffix('s').unwrap_or(noun).to_owned()
}

pub(crate) fn disclosure_line<T>(bounded: &Bounded<T>, noun: &str) -> String {
    let (completeness, total, cursor, skipped) = bounded.parts_ref();
    disclosure_of(bounded.len(), completeness, total, cursor, skipped, noun)
}

pub(crate) fn disclosure_of(
    len: usize,
    completeness: &Completeness,
    total: Total,
    cursor: Option<&Cursor>,
    skipped: &Skipped,
    noun: &str,
) -> String {
    let mut line = String::new();
    let of_total = noun_for(total.value(), noun);
    match completeness {
        Completeness::Exact if !skipped.has_errors() => {
            let _ = write!(line, "Complete: {len} {}.", noun_for(len as u64, noun));
        }
        Completeness::Exact => {
            let _ = write!(
                line,
                "Incomplete: {len} {} found, but {} could not be searched because of errors ({}).",
                noun_for(len as u64, noun),
                plural(error_skips(skipped), "input"),
                reasons(skipped, true)
            );
        }
        Completeness::TruncatedByLimit { limit, requested } => {
            let _ = write!(
                line,
                "Incomplete: {len} of {total} {of_total} (limit {limit}"
            );
            if let Some(requested) = requested {
                let _ = write!(line, "; {requested} requested, above the ceiling");
            }
            line.push_str(").");
        }
        Completeness::TruncatedByBudget { budget } => {
            let _ = write!(
                line,
                "Incomplete: {len} of {total} {of_total} ({} budget of {} {} ran out).",
                budget.kind(),
                budget.max(),
                budget.kind().unit()
            );
        }
    }
    if completeness.is_truncated() {
        if cursor.is_some() {
            line.push_str(" Resume with next_cursor.");
        } else {
            let options = either(&remedies(completeness, false));
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
    let policy = skipped.total() - error_skips(skipped);
    if policy > 0 {
        let _ = write!(
            line,
            " {} skipped by policy ({}).",
            plural(policy, "input"),
            reasons(skipped, false)
        );
    }
    if completeness.is_truncated() && skipped.has_errors() {
        let _ = write!(
            line,
            " {} could not be searched because of errors ({}).",
            plural(error_skips(skipped), "input"),
            reasons(skipped, true)
        );
    }
    line
}

fn error_skips(skipped: &Skipped) -> u64 {
    skipped
        .by_reason()
        .filter(|(r, _)| r.is_error())
        .map(|(_, n)| n)
        .sum()
}

fn reasons(skipped: &Skipped, errors: bool) -> String {
    skipped
        .by_reason()
        .filter(|(r, _)| r.is_error() == errors)
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

/// The envelope of a result, with `items` standing for whatever serializes
/// the item list: the real items, or an empty list when only the envelope's
/// size is wanted.
pub(crate) struct Envelope<'a, I> {
    pub(crate) completeness: &'a Completeness,
    pub(crate) count: usize,
    pub(crate) total: Total,
    pub(crate) next_cursor: Option<&'a Cursor>,
    pub(crate) skipped: &'a Skipped,
    pub(crate) items: I,
}

impl<I: Serialize> Serialize for Envelope<'_, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let complete = self.completeness.is_exact() && !self.skipped.has_errors();
        let mut s = serializer.serialize_struct("Bounded", 7)?;
        s.serialize_field("complete", &complete)?;
        if self.completeness.is_truncated() {
            s.serialize_field(
                "truncation",
                &TruncationOut {
                    completeness: self.completeness,
                    has_cursor: self.next_cursor.is_some(),
                },
            )?;
        } else {
            s.skip_field("truncation")?;
        }
        s.serialize_field("count", &self.count)?;
        s.serialize_field("total", &TotalOut(self.total))?;
        match self.next_cursor {
            Some(cursor) => s.serialize_field("next_cursor", cursor)?,
            None => s.skip_field("next_cursor")?,
        }
        if self.skipped.is_empty() {
            s.skip_field("skipped")?;
        } else {
            s.serialize_field("skipped", &SkippedOut(self.skipped))?;
        }
        s.serialize_field("items", &self.items)?;
        s.end()
    }
}

/// Serializes as `[]`: the item list when only the envelope is measured.
pub(crate) struct NoItems;

impl Serialize for NoItems {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(std::iter::empty::<()>())
    }
}

struct TruncationOut<'a> {
    completeness: &'a Completeness,
    has_cursor: bool,
}

impl Serialize for TruncationOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        match self.completeness {
            Completeness::Exact => {}
            Completeness::TruncatedByLimit { limit, requested } => {
                m.serialize_entry("by", "limit")?;
                m.serialize_entry("limit", limit)?;
                if let Some(requested) = requested {
                    m.serialize_entry("requested", requested)?;
                }
            }
            Completeness::TruncatedByBudget { budget } => {
                m.serialize_entry("by", "budget")?;
                m.serialize_entry("budget", budget.kind().as_str())?;
                m.serialize_entry("max", &budget.max())?;
                m.serialize_entry("used", &budget.used())?;
            }
        }
        m.serialize_entry("note", &truncation_note(self.completeness, self.has_cursor))?;
        m.end()
    }
}

struct TotalOut(Total);

impl Serialize for TotalOut {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Total", 2)?;
        s.serialize_field("value", &self.0.value())?;
        s.serialize_field("relation", self.0.relation())?;
        s.end()
    }
}

struct SkippedOut<'a>(&'a Skipped);

impl Serialize for SkippedOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct ByReason<'a>(&'a Skipped);
        impl Serialize for ByReason<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self.0.by_reason().map(|(r, n)| (r.as_str(), n)))
            }
        }
        struct Sample<'a>(&'a SkippedInput);
        impl Serialize for Sample<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut m = serializer.serialize_map(None)?;
                m.serialize_entry("path", self.0.path())?;
                m.serialize_entry("reason", self.0.reason().as_str())?;
                if let Some(detail) = self.0.detail() {
                    m.serialize_entry("detail", detail)?;
                }
                m.end()
            }
        }
        let mut s = serializer.serialize_struct("Skipped", 3)?;
        s.serialize_field("total", &self.0.total())?;
        s.serialize_field("by_reason", &ByReason(self.0))?;
        s.serialize_field(
            "sample",
            &self.0.sample().iter().map(Sample).collect::<Vec<_>>(),
        )?;
        s.end()
    }
}

impl<T: Serialize> Serialize for Bounded<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (completeness, total, next_cursor, skipped) = self.parts_ref();
        Envelope {
            completeness,
            count: self.len(),
            total,
            next_cursor,
            skipped,
            items: self.items(),
        }
        .serialize(serializer)
    }
}

#[derive(Deserialize)]
struct BoundedIn<T> {
    complete: bool,
    #[serde(default)]
    truncation: Option<TruncationIn>,
    count: usize,
    total: TotalIn,
    #[serde(default)]
    next_cursor: Option<Cursor>,
    #[serde(default)]
    skipped: Option<SkippedIn>,
    items: Vec<T>,
}

#[derive(Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
enum TruncationIn {
    Limit {
        limit: usize,
        #[serde(default)]
        requested: Option<usize>,
    },
    Budget {
        budget: String,
        max: u64,
        used: u64,
    },
}

#[derive(Deserialize)]
struct TotalIn {
    value: u64,
    relation: String,
}

#[derive(Deserialize)]
struct SkippedIn {
    total: u64,
    by_reason: BTreeMap<String, u64>,
    #[serde(default)]
    sample: Vec<SampleIn>,
}

#[derive(Deserialize)]
struct SampleIn {
    path: String,
    reason: String,
    #[serde(default)]
    detail: Option<String>,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Bounded<T> {
    /// Decodes the wire shape and checks that its disclosure is consistent:
    /// `count` is the number of items, `complete` agrees with the rest, and
    /// an exact result's total is its count.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = BoundedIn::<T>::deserialize(deserializer)?;
        if wire.count != wire.items.len() {
            return Err(de::Error::custom(format!(
                "count is {} but {} items were sent",
                wire.count,
                wire.items.len()
            )));
        }
        let completeness = match wire.truncation {
            None => Completeness::Exact,
            Some(TruncationIn::Limit { limit, requested }) => {
                Completeness::TruncatedByLimit { limit, requested }
            }
            Some(TruncationIn::Budget { budget, max, used }) => {
                let kind = budget.parse::<BudgetKind>().map_err(de::Error::custom)?;
                Completeness::TruncatedByBudget {
                    budget: Budget::new(kind, max, used),
                }
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
        if completeness.is_exact() && total != Total::Exact(wire.items.len() as u64) {
            return Err(de::Error::custom(
                "a result without truncation must have an exact total equal to its count",
            ));
        }
        if total.value() < wire.items.len() as u64 {
            return Err(de::Error::custom("total is below count"));
        }
        if completeness.proves_more() && total.value() <= wire.items.len() as u64 {
            return Err(de::Error::custom(
                "a result cut by its limit or output budget must have a total above its count",
            ));
        }
        match &completeness {
            Completeness::TruncatedByLimit { limit, requested } => {
                if wire.items.len() > *limit {
                    return Err(de::Error::custom(format!(
                        "count {} is above the limit {limit}",
                        wire.items.len()
                    )));
                }
                if requested.is_some_and(|r| r <= *limit) {
                    return Err(de::Error::custom(
                        "requested is only present when it is above the limit applied",
                    ));
                }
            }
            Completeness::TruncatedByBudget { budget }
                if budget.kind() == BudgetKind::OutputBytes && budget.used() > budget.max() =>
            {
                return Err(de::Error::custom(
                    "an output-bytes budget cannot have used more than its max",
                ));
            }
            _ => {}
        }
        if completeness.is_exact() && wire.next_cursor.is_some() {
            return Err(de::Error::custom(
                "an exact result has no next_cursor: nothing is left to resume",
            ));
        }
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
        let complete = completeness.is_exact() && !skipped.has_errors();
        if complete != wire.complete {
            return Err(de::Error::custom(format!(
                "complete is {} but the disclosure says {}",
                wire.complete, complete
            )));
        }
        Ok(Bounded::from_parts(
            wire.items,
            completeness,
            total,
            wire.next_cursor,
            skipped,
        ))
    }
}

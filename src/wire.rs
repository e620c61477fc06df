//! The wire shape: serde for `Bounded<T>`, its JSON Schema, and the texts
//! written for the reader (an LLM, often) of a truncated answer.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{
    Bounded, Budget, BudgetKind, Clamp, Completeness, Disclosure, SkipReason, Skipped,
    SkippedInput, Total,
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
the total. `start` (absent on a first page) is how many items of the full answer came before this \
page: it holds items `start`+1 to `start`+`count`. `total.value` is how many items the full answer \
holds, counting every page: exact when `total.relation` is \"eq\", a lower bound when it is \
\"gte\". `truncation` (present only when something is missing) \
says what stopped the result (`by`: \"limit\" or \"budget\"; `requested` when the limit asked for \
was lowered to this server's ceiling) and its `note`, when present, says how to get the rest. `next_cursor`, when present, fetches the next page: pass it back unchanged with the same \
query. `skipped` counts inputs that were not searched, by reason.";

/// The JSON Schema (draft 2020-12) of the wire shape, with `item_schema`
/// as the schema of each item. Suits an MCP tool's `outputSchema`.
///
/// Definitions the item schema carries in `$defs` (or the older
/// `definitions`) move to the envelope's `$defs`, and its `$ref`s to them
/// are rewritten, so that they still resolve from the envelope's root.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// let schema = candor::envelope_schema(json!({ "type": "integer" }));
/// assert_eq!(schema["properties"]["items"]["items"]["type"], "integer");
/// assert_eq!(schema["required"][0], "complete");
///
/// let with_defs = candor::envelope_schema(json!({
///     "$ref": "#/$defs/Span",
///     "$defs": { "Span": { "type": "object" } }
/// }));
/// assert_eq!(with_defs["$defs"]["Span"]["type"], "object");
/// assert_eq!(with_defs["properties"]["items"]["items"]["$ref"], "#/$defs/Span");
/// ```
#[must_use]
pub fn envelope_schema(item_schema: Value) -> Value {
    let (item_schema, defs) = hoist_defs(item_schema);
    let mut schema = envelope_schema_with(item_schema);
    if !defs.is_empty() {
        schema["$defs"] = Value::Object(defs);
    }
    schema
}

/// Takes the definitions out of an item schema and rewrites its references
/// to them (`#/definitions/X` becomes `#/$defs/X`; `#/$defs/X` stays).
fn hoist_defs(mut item_schema: Value) -> (Value, serde_json::Map<String, Value>) {
    let mut defs = serde_json::Map::new();
    if let Value::Object(map) = &mut item_schema {
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = map.remove(key) {
                defs.extend(d);
            }
        }
        // A `$schema` inside a subschema is not allowed by every validator.
        map.remove("$schema");
    }
    rewrite_refs(&mut item_schema);
    for def in defs.values_mut() {
        rewrite_refs(def);
    }
    (item_schema, defs)
}

fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(r) if key == "$ref" => {
                        if let Some(name) = r.strip_prefix("#/definitions/") {
                            *r = format!("#/$defs/{name}");
                        } else if r == "#" || (r.starts_with("#/") && !r.starts_with("#/$defs/")) {
                            // The item schema's own root is now the items'
                            // schema, inside the envelope.
                            *r = format!("#/properties/items/items{}", &r[1..]);
                        }
                    }
                    _ => rewrite_refs(v),
                }
            }
        }
        Value::Array(values) => values.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

fn envelope_schema_with(item_schema: Value) -> Value {
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
                        "required": ["by", "limit"],
                        "additionalProperties": false,
                        "properties": {
                            "by": { "const": "limit" },
                            "limit": { "type": "integer", "minimum": 0, "description": "The item limit applied." },
                            "requested": { "type": "integer", "minimum": 0, "description": "The limit asked for, when it was clamped to the ceiling." },
                            "note": { "type": "string", "description": "What the numbers mean and how to get the rest. Shortened or left out under a tight max_bytes." }
                        }
                    },
                    {
                        "type": "object",
                        "required": ["by", "budget", "max", "used"],
                        "additionalProperties": false,
                        "properties": {
                            "by": { "const": "budget" },
                            "budget": { "enum": ["output_bytes", "scanned_bytes", "files", "deadline", "cancelled"] },
                            "max": { "type": "integer", "minimum": 0 },
                            "used": { "type": "integer", "minimum": 0 },
                            "limit": { "type": "integer", "minimum": 0, "description": "With requested: the item limit applied after the clamp to the ceiling." },
                            "requested": { "type": "integer", "minimum": 0, "description": "With limit: the limit asked for, above the ceiling." },
                            "note": { "type": "string", "description": "What the numbers mean and how to get the rest. Shortened or left out under a tight max_bytes." }
                        },
                        "dependentRequired": { "limit": ["requested"], "requested": ["limit"] }
                    }
                ]
            },
            "start": {
                "type": "integer",
                "minimum": 0,
                "description": "How many items of the full answer come before this page; absent on a first page. This page holds items start+1 to start+count."
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
                "description": "How many items the full answer holds, counting every page (not only the rest after a cursor).",
                "properties": {
                    "value": { "type": "integer", "minimum": 0 },
                    "relation": { "enum": ["eq", "gte"], "description": "eq: exact; gte: a lower bound." }
                }
            },
            "next_cursor": {
                "type": "string",
                "minLength": 1,
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
                        "maxItems": crate::SKIPPED_SAMPLE_LEN,
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

/// The one-line disclosure of a page of `count` items.
pub(crate) fn summary_line(disclosure: &Disclosure, count: usize, noun: &str) -> String {
    let completeness = disclosure.completeness();
    let total = disclosure.total();
    let skipped = disclosure.skipped();
    let start = disclosure.start();
    let mut line = String::new();
    // Which items of how many: "matches 11-20 of 25".
    let span = match count {
        0 => format!("no {} of {total}", noun_for(2, noun)),
        1 => format!("{} {} of {total}", noun_for(1, noun), start + 1),
        _ => format!("{noun} {}-{} of {total}", start + 1, start + count as u64),
    };
    match completeness {
        Completeness::Exact if start == 0 && !skipped.has_errors() => {
            let _ = write!(line, "Complete: {count} {}.", noun_for(count as u64, noun));
        }
        Completeness::Exact if !skipped.has_errors() => {
            let _ = write!(line, "Complete: {span} (the last page).");
        }
        Completeness::Exact => {
            let found = if start == 0 {
                format!("{count} {}", noun_for(count as u64, noun))
            } else {
                span
            };
            let _ = write!(
                line,
                "Incomplete: {found} found, but {} could not be searched because of errors ({}).",
                plural(error_skips(skipped), "input"),
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
            let _ = write!(
                line,
                "Incomplete: {span} ({} budget of {} {} ran out",
                budget.kind(),
                budget.max(),
                budget.kind().unit()
            );
            if let Some(clamp) = clamp {
                let _ = write!(
                    line,
                    "; limit {}, {} requested, above the ceiling",
                    clamp.limit(),
                    clamp.requested()
                );
            }
            line.push_str(").");
        }
    }
    if completeness.is_truncated() {
        if disclosure.next_cursor().is_some() {
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

/// The envelope of a result, with `items` standing for whatever serializes
/// the item list: the real items, or an empty list when only the envelope's
/// size is wanted.
pub(crate) struct Envelope<'a, I> {
    pub(crate) disclosure: &'a Disclosure,
    pub(crate) count: usize,
    pub(crate) items: I,
}

impl<I: Serialize> Serialize for Envelope<'_, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let d = self.disclosure;
        let mut s = serializer.serialize_struct("Bounded", 8)?;
        s.serialize_field("complete", &d.is_complete())?;
        if d.completeness().is_truncated() {
            s.serialize_field("truncation", &TruncationOut(d))?;
        } else {
            s.skip_field("truncation")?;
        }
        if d.start() > 0 {
            s.serialize_field("start", &d.start())?;
        } else {
            s.skip_field("start")?;
        }
        s.serialize_field("count", &self.count)?;
        s.serialize_field("total", &TotalOut(d.total()))?;
        match d.next_cursor() {
            Some(cursor) => s.serialize_field("next_cursor", cursor)?,
            None => s.skip_field("next_cursor")?,
        }
        if d.skipped().is_empty() {
            s.skip_field("skipped")?;
        } else {
            s.serialize_field("skipped", &SkippedOut(d.skipped()))?;
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

struct TruncationOut<'a>(&'a Disclosure);

impl Serialize for TruncationOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let completeness = self.0.completeness();
        let has_cursor = self.0.next_cursor().is_some();
        let mut m = serializer.serialize_map(None)?;
        match completeness {
            Completeness::Exact => {}
            Completeness::TruncatedByLimit { limit, requested } => {
                m.serialize_entry("by", "limit")?;
                m.serialize_entry("limit", limit)?;
                if let Some(requested) = requested {
                    m.serialize_entry("requested", requested)?;
                }
            }
            Completeness::TruncatedByBudget { budget, clamp } => {
                m.serialize_entry("by", "budget")?;
                m.serialize_entry("budget", budget.kind().as_str())?;
                m.serialize_entry("max", &budget.max())?;
                m.serialize_entry("used", &budget.used())?;
                if let Some(clamp) = clamp {
                    m.serialize_entry("limit", &clamp.limit())?;
                    m.serialize_entry("requested", &clamp.requested())?;
                }
            }
        }
        match self.0.note() {
            NoteForm::Full => {
                m.serialize_entry("note", &truncation_note(completeness, has_cursor))?;
            }
            NoteForm::Short => m.serialize_entry("note", short_note(completeness, has_cursor))?,
            NoteForm::Omitted => {}
        }
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
        Envelope {
            disclosure: self.disclosure(),
            count: self.len(),
            items: self.items(),
        }
        .serialize(serializer)
    }
}

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

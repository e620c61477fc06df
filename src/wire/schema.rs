//! What the wire shape's fields mean: its JSON Schema, for validators and
//! MCP `outputSchema`, and the guide to its fields, for LLM clients.

use serde_json::{Value, json};

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
the total. `start` (on every page, 0 on a first one) is how many items of the full answer came \
before this page: it holds items `start`+1 to `start`+`count`. `total.value` is how many items the \
full answer holds, counting every page: exact when `total.relation` is \"eq\", a lower bound when \
it is \"gte\"; `total.cut_by`, when present, names the budget that stopped counting an exact total \
(more time or that budget, not a narrower query, gives it); when `complete` is false without \
`truncation`, an input could not be searched (see `skipped`) and `total` counts only what was \
searched. With a limit of 0, a page only counts: `total` is the answer, and no item is shown. \
`truncation` (present only when something is missing) says what stopped the result (`by`: \
\"limit\" or \"budget\"; `requested` when the limit asked for was lowered to this server's \
ceiling; `limit_reached` when the limit was hit as well as a budget) and its `note`, when present, \
says how to get the rest. For the \"output_bytes\" budget, `max`, `used` and `needed` are in the \
units of the `max_bytes` you sent: `used` is the least `max_bytes` that holds this page, and \
`needed` (on a page with no item) a `max_bytes` whose page holds the next item, so ask \
again with it. When `truncation.subset` is true the items are some of those after `start`, not \
the first ones: do not treat them as the top results, and retry with more time or a narrower \
query. `next_cursor`, when present, fetches the next page: pass it back unchanged with the same \
query; the limit and `max_bytes` may change from page to page. `skipped` counts inputs that were \
not searched on this page, by reason (a hidden or ignored folder counts once, and none of it was \
searched); `skipped.so_far` counts those of this page and every page before it; \
`skipped.errors` counts those that leave the answer incomplete (an input that could not be read, \
or one you named that was left out). `as_of`, when present, says the answer comes from an index \
trusted without checking the inputs, as they were at that time: inputs changed since may be \
missing or answered as they were. Where the tool can check the inputs instead, its own \
description says how to ask for that; where it cannot, the answer is as of that time.";

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
        "required": ["complete", "start", "count", "total", "items"],
        "additionalProperties": false,
        "properties": {
            "complete": {
                "type": "boolean",
                "description": "True only when items hold the whole answer and no input was skipped because of an error."
            },
            "as_of": {
                "type": "string",
                "format": "date-time",
                "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
                "description": "Present only when the answer trusts an index without checking the inputs: the time (UTC) the index last read them. Inputs changed since may be missing or answered as they were."
            },
            "truncation": truncation_schema(),
            "start": {
                "type": "integer",
                "minimum": 0,
                "description": "How many items of the full answer come before this page: 0 on a first page. This page holds items start+1 to start+count."
            },
            "count": {
                "type": "integer",
                "minimum": 0,
                "description": "The number of items in this response. Never the total."
            },
            "total": total_schema(),
            "next_cursor": {
                "type": "string",
                "minLength": 1,
                "description": "Pass back unchanged, with the same query, to get the next page. Absent when there is none."
            },
            "skipped": skipped_schema(),
            "items": { "type": "array", "items": item_schema }
        }
    })
}

/// The schema of `truncation`: a stop by the limit, or by a budget.
fn truncation_schema() -> Value {
    json!({
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
                    "subset": { "const": true, "description": "The items are some of those after start, not the first ones; no cursor resumes from them." },
                    "note": { "type": "string", "description": "What the numbers mean and how to get the rest. Shortened or left out under a tight max_bytes." }
                }
            },
            {
                "type": "object",
                "required": ["by", "budget", "max", "used"],
                "additionalProperties": false,
                "properties": {
                    "by": { "const": "budget" },
                    "budget": { "enum": ["output_bytes", "scanned_bytes", "files", "deadline", "cancelled", "shard"] },
                    "max": { "type": "integer", "minimum": 0, "description": "The budget, in the units the reader set it in (for output_bytes, the max_bytes sent)." },
                    "used": { "type": "integer", "minimum": 0, "description": "What was used, in the same units; for output_bytes, the least max_bytes that holds this page." },
                    "needed": { "type": "integer", "minimum": 0, "description": "Output bytes only, on a page that holds no item: a max_bytes whose page holds the next item; ask again with it." },
                    "limit": { "type": "integer", "minimum": 0, "description": "The item limit: with requested, applied after the clamp to the ceiling; with limit_reached, reached as well as the budget." },
                    "requested": { "type": "integer", "minimum": 0, "description": "With limit: the limit asked for, above the ceiling." },
                    "limit_reached": { "const": true, "description": "The item limit was reached as well as the budget: more items exist." },
                    "subset": { "const": true, "description": "The items are some of those after start, not the first ones; no cursor resumes from them." },
                    "note": { "type": "string", "description": "What the numbers mean and how to get the rest. Shortened or left out under a tight max_bytes." }
                },
                "dependentRequired": { "requested": ["limit"], "limit_reached": ["limit"] }
            }
        ]
    })
}

/// The schema of `total`, with the budget that cut its count.
fn total_schema() -> Value {
    json!({
        "type": "object",
        "required": ["value", "relation"],
        "additionalProperties": false,
        "description": "How many items the full answer holds, counting every page (not only the rest after a cursor).",
        "properties": {
            "value": { "type": "integer", "minimum": 0 },
            "relation": { "enum": ["eq", "gte"], "description": "eq: exact; gte: a lower bound." },
            "cut_by": {
                "type": "object",
                "required": ["budget", "max", "used"],
                "additionalProperties": false,
                "description": "Present when an exact total was asked for and counting it stopped early: the budget that stopped it. The total is a lower bound; more time or more of that budget, not a narrower query, gives the exact one.",
                "properties": {
                    "budget": { "enum": ["counted", "deadline", "cancelled", "scanned_bytes", "files"] },
                    "max": { "type": "integer", "minimum": 0 },
                    "used": { "type": "integer", "minimum": 0 }
                }
            }
        }
    })
}

/// The schema of `skipped`: the skips counted by reason, a sample, and the walk's so far.
fn skipped_schema() -> Value {
    json!({
        "type": "object",
        "required": ["total", "by_reason", "sample"],
        "additionalProperties": false,
        "description": "Inputs that were not searched, on this page, counted by reason (a folder left out counts once, and none of it was searched). Present when this page or one before it skipped any.",
        "properties": {
            "total": { "type": "integer", "minimum": 0 },
            "by_reason": { "type": "object", "additionalProperties": { "type": "integer", "minimum": 0 } },
            "errors": { "type": "object", "additionalProperties": { "type": "integer", "minimum": 1 }, "description": "Of by_reason, the skips that are errors (an input that could not be read, or one the caller named), by reason: these leave the answer incomplete. Absent when there are none." },
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
                        "error": { "const": true, "description": "This skip leaves the answer incomplete." },
                        "detail": { "type": "string" }
                    }
                }
            },
            "so_far": {
                "type": "object",
                "required": ["total"],
                "additionalProperties": false,
                "description": "After earlier pages that skipped inputs: the skips of this page and of every page before it (on the last page, all the walk skipped), and how many of them were errors.",
                "properties": {
                    "total": { "type": "integer", "minimum": 1 },
                    "errors": { "type": "integer", "minimum": 1 }
                }
            }
        }
    })
}

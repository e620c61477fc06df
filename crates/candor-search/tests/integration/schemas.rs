//! Real responses validated against `envelope_schema` (and, with the
//! `schemars` feature, `schemars::schema_for!(Bounded<T>)`) by a real JSON
//! Schema validator: search results, pages, truncated and exact, with skips.

use candor_search::{Bounded, Fingerprint, Limits, Scope, envelope_schema};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::core_support::validate;

fn check(schema: &Value, json: &str) -> Result<(), String> {
    let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    validate(schema, &value, "$").map_err(|e| format!("{e} in {json}"))
}

/// The schemas a response of integers must satisfy.
fn integer_schemas() -> Vec<Value> {
    vec![
        envelope_schema(json!({ "type": "integer", "minimum": 0 })),
        #[cfg(feature = "schemars")]
        schemars::schema_for!(Bounded<u32>).to_value(),
    ]
}

proptest! {
    /// Exact, truncated by the limit or by the byte budget, first pages
    /// and resumed ones, with and without skips: every response is valid.
    #[test]
    fn collected_and_paged_responses_validate(
        len in 0..60u32,
        limit in proptest::option::of(0..20usize),
        max_bytes in proptest::option::of(150..600usize),
        count_total in any::<bool>(),
        max_counted in proptest::option::of(0..40u64),
        skips in 0..8usize,
        earlier in proptest::option::of((1..50u64, 0..3u64)),
    ) {
        let mut limits = Limits::new().count_total(count_total);
        if let Some(max) = max_counted {
            // A count cut by its budget says so in `total.cut_by`.
            limits = limits.max_counted(max);
        }
        if let Some(limit) = limit {
            limits = limits.limit(limit);
        }
        if let Some(max) = max_bytes {
            limits = limits.max_bytes(max);
        }
        let scope = Scope::new(Fingerprint::of("schemas"));
        let mut responses = Vec::new();
        if let Ok(b) = Bounded::collect(0..len, &limits) {
            responses.push(b);
        }
        if let Ok(first) = Bounded::page(0..len, &limits, &scope, None) {
            if let Some(next) = first.next_cursor() {
                if let Ok(second) = Bounded::page(0..len, &limits, &scope, Some(next)) {
                    responses.push(second);
                }
            }
            responses.push(first);
        }
        // A response with skips, both kinds, through the wire.
        let mut with_skips: Value = serde_json::from_str(&Bounded::collect(0..len, &Limits::new().limit(3)).unwrap().to_json().unwrap()).unwrap();
        if skips > 0 {
            let sample: Vec<Value> = (0..skips.min(candor_search::SKIPPED_SAMPLE_LEN))
                .map(|n| json!({ "path": format!("f{n}"), "reason": if n % 2 == 0 { "binary" } else { "unreadable" } }))
                .collect();
            let errors = skips / 2;
            let mut by_reason = serde_json::Map::new();
            for (reason, n) in [("binary", skips - errors), ("unreadable", errors)] {
                if n > 0 {
                    by_reason.insert(reason.into(), json!(n));
                }
            }
            let skipped = json!({ "total": skips, "by_reason": by_reason, "sample": sample });
            let object = with_skips.as_object_mut().unwrap();
            let items = object.remove("items").unwrap();
            let mut skipped = skipped;
            if let Some((more, errors_before)) = earlier {
                // Earlier pages' skips: the walk's total so far.
                let errors_so_far = errors as u64 + errors_before.min(more);
                let mut so_far = json!({ "total": skips as u64 + more });
                if errors_so_far > 0 {
                    so_far["errors"] = json!(errors_so_far);
                }
                skipped["so_far"] = so_far;
            }
            object.insert("skipped".into(), skipped);
            object.insert("items".into(), items);
            if errors > 0 {
                object.insert("complete".into(), json!(false));
            }
            let b: Bounded<u32> = serde_json::from_value(with_skips).map_err(|e| TestCaseError::fail(e.to_string()))?;
            responses.push(b);
        }
        for b in &responses {
            let json = b.to_json().unwrap();
            for schema in integer_schemas() {
                check(&schema, &json).map_err(TestCaseError::fail)?;
            }
        }
    }
}

#[test]
fn the_schemas_reject_what_is_not_the_wire_shape() {
    let bad = [
        json!({ "complete": true, "total": { "value": 0, "relation": "eq" }, "items": [] }),
        // Every page says where it starts, a first one too.
        json!({ "complete": true, "count": 0, "total": { "value": 0, "relation": "eq" }, "items": [] }),
        json!({ "complete": false, "truncation": { "by": "limit", "limit": 1 }, "start": 0, "count": 1,
                "total": { "value": 5, "relation": "gte", "cut_by": { "budget": "output_bytes", "max": 1, "used": 1 } }, "items": [1] }),
        json!({ "complete": true, "start": 0, "count": 0, "total": { "value": 0, "relation": "eq" },
                "skipped": { "total": 0, "by_reason": {}, "sample": [], "so_far": { "total": 0 } }, "items": [] }),
        json!({ "complete": true, "start": 0, "count": 1, "total": { "value": 1, "relation": "eq" }, "items": ["x"] }),
        json!({ "complete": true, "start": 0, "count": 0, "total": { "value": 0, "relation": "about" }, "items": [] }),
    ];
    for schema in integer_schemas() {
        for value in &bad {
            assert!(validate(&schema, value, "$").is_err(), "accepted {value}");
        }
    }
}

#[cfg(feature = "tree")]
mod search {
    use candor_search::{Corpus, Documents, Limits, Query, Tree};
    use serde_json::{Value, json};

    use super::check;
    use crate::sample::sample_tree;

    fn match_schema() -> Value {
        json!({
            "type": "object",
            "required": ["path", "line_number", "byte_offset", "line", "matches"],
            "additionalProperties": false,
            "properties": {
                "path": { "type": "string" },
                "line_number": { "type": "integer", "minimum": 1 },
                "byte_offset": { "type": "integer", "minimum": 0 },
                "line": { "type": "string" },
                "matches": { "type": "array", "items": {
                    "type": "object", "required": ["start", "end"], "additionalProperties": false,
                    "properties": { "start": { "type": "integer", "minimum": 0 }, "end": { "type": "integer", "minimum": 0 } }
                } },
                "line_cut": { "type": "object", "required": ["original_bytes", "kept_from"], "additionalProperties": false,
                    "properties": { "original_bytes": { "type": "integer" }, "kept_from": { "type": "integer" } } }
            }
        })
    }

    fn file_count_schema() -> Value {
        json!({ "type": "object", "required": ["path", "count"], "additionalProperties": false,
                "properties": { "path": { "type": "string" }, "count": { "type": "integer", "minimum": 1 } } })
    }

    #[test]
    fn search_responses_validate() {
        let tmp = sample_tree();
        let tree = Tree::new(tmp.path()).expect("a tree");
        let docs = Documents::new()
            .with("a.txt", "fish\nfish\nfish and more fish\n")
            .with(
                "b.txt",
                format!("{}fish{}\n", "x".repeat(300), "y".repeat(300)),
            );
        let matches = candor_search::envelope_schema(match_schema());
        let counts = candor_search::envelope_schema(file_count_schema());
        let query = Query::literal("fish").max_columns(40);
        let mut checked = 0;
        for limits in [
            Limits::new(),
            Limits::new().limit(1),
            Limits::new().limit(2).count_total(true),
            Limits::new().max_bytes(700),
        ] {
            for corpus in [&tree as &dyn Corpus, &docs as &dyn Corpus] {
                let first = corpus.search(&query, &limits, None).expect("a search");
                check(&matches, &first.to_json().unwrap()).unwrap();
                if let Some(next) = first.next_cursor() {
                    let second = corpus.search(&query, &limits, Some(next)).expect("a page");
                    check(&matches, &second.to_json().unwrap()).unwrap();
                }
                let count = corpus
                    .count_per_file(&query, &limits, None)
                    .expect("a count");
                check(&counts, &count.to_json().unwrap()).unwrap();
                checked += 1;
            }
        }
        assert_eq!(checked, 8);
        // The tree skips its binary file and hidden folder: skipped is set.
        let b = tree.search(&query, &Limits::new(), None).expect("a search");
        assert!(!b.skipped().is_empty());
        check(&matches, &b.to_json().unwrap()).unwrap();
    }
}

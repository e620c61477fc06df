//! The item schemas derived with `JsonSchema` (`output_schema::<T>()`)
//! validate what the tools send, over generated documents, queries and
//! budgets: a real JSON Schema validator checks every `structuredContent`
//! against the tool's `outputSchema`, as the official TypeScript client
//! does, and a result that breaks the schema (a field too many, a line
//! number of 0) is refused by it.

use candor_mcp::{PageArgs, Policy, output_schema, respond};
use candor_search::{Corpus, Documents, Excerpt, FileCount, Line, Match, Query};
use proptest::prelude::*;
use serde_json::{Value, json};

fn validate(schema: &serde_json::Map<String, Value>, instance: &Value) -> Result<(), String> {
    let schema = Value::Object(schema.clone());
    let validator =
        jsonschema::validator_for(&schema).map_err(|e| format!("invalid schema: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Documents of lines drawn from a small alphabet with a needle, Unicode
/// and long lines among them.
fn documents() -> impl Strategy<Value = Vec<(String, String)>> {
    let line = prop_oneof![
        Just(String::new()),
        "[a-c ]{0,12}".prop_map(|s| s),
        Just("needle é 漢字 needle".to_owned()),
        "[a-c]{0,3}needle[a-c]{0,3}".prop_map(|s| s),
        (100usize..600).prop_map(|n| format!("{}needle{}", "x".repeat(n), "y".repeat(n))),
    ];
    prop::collection::vec(
        (
            "[a-z]{1,6}(/[a-z]{1,6})?\\.txt",
            prop::collection::vec(line, 0..12),
        ),
        1..6,
    )
    .prop_map(|docs| {
        docs.into_iter()
            .map(|(name, lines)| (name, lines.join("\n")))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn what_the_tools_send_validates_against_their_output_schemas(
        docs in documents(),
        limit in prop_oneof![Just(None), (0usize..8).prop_map(Some)],
        max_bytes in prop_oneof![Just(None), (900usize..6000).prop_map(Some)],
        count_total in any::<bool>(),
        columns in 20usize..200,
    ) {
        let mut corpus = Documents::new();
        for (name, text) in &docs {
            corpus.insert(name.clone(), text.clone()).expect("a document");
        }
        let policy = Policy::new();
        let page = PageArgs { limit, max_bytes, count_total, ..PageArgs::default() };
        let limits = page.limits(&policy);
        let query = Query::literal("needle").max_columns(columns);
        let answers = [
            (
                "search",
                output_schema::<Match>(),
                respond(corpus.search(&query, &limits, None), "matching lines", &page, &policy),
            ),
            (
                "count",
                output_schema::<FileCount>(),
                respond(corpus.count_per_file(&query, &limits, None), "files", &page, &policy),
            ),
            (
                "files",
                output_schema::<String>(),
                respond(corpus.files_with_matches(&query, &limits, None), "files", &page, &policy),
            ),
            (
                "excerpt",
                output_schema::<Line>(),
                respond(
                    corpus.excerpt(&Excerpt::new(&docs[0].0, 1..=20).max_columns(columns), &limits, None),
                    "lines",
                    &page,
                    &policy,
                ),
            ),
        ];
        for (tool, schema, result) in answers {
            if let Some(structured) = &result.structured_content {
                prop_assert!(validate(&schema, structured).is_ok(), "{}: {:?}\n{}", tool, validate(&schema, structured), structured);
            } else {
                prop_assert_eq!(result.is_error, Some(true), "{}: no structuredContent", tool);
            }
        }
    }
}

#[test]
fn a_result_that_breaks_the_item_schema_is_refused_by_it() {
    let schema = output_schema::<Match>();
    let page = |item: Value| {
        json!({
            "complete": true, "start": 0, "count": 1,
            "total": { "value": 1, "relation": "eq" },
            "items": [item]
        })
    };
    let good = json!({ "path": "a.txt", "line_number": 1, "byte_offset": 0, "line": "needle",
                       "matches": [{ "start": 0, "end": 6 }] });
    assert_eq!(validate(&schema, &page(good.clone())), Ok(()));
    let mut extra = good.clone();
    extra["score"] = json!(1.0);
    let mut zero = good.clone();
    zero["line_number"] = json!(0);
    let mut missing = good;
    missing
        .as_object_mut()
        .expect("an object")
        .remove("matches");
    for bad in [extra, zero, missing] {
        assert!(validate(&schema, &page(bad.clone())).is_err(), "{bad}");
    }
}

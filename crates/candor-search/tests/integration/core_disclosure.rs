//! Regression tests for the disclosure: a resumed page's start and total,
//! the clamp under any stop, tight byte budgets, and what the decoder
//! refuses. They read the wire shape through `serde_json::Value` so that
//! they state the contract, not the Rust API.

use std::time::Duration;

use candor_search::{
    Bounded, Corpus, Documents, Excerpt, Fingerprint, Keyset, Limits, ManualClock, Query, Scope,
};
use serde_json::{Value, json};

fn wire<T: serde::Serialize>(b: &Bounded<T>) -> Value {
    serde_json::from_str(&b.to_json().expect("serializes")).expect("valid JSON")
}

/// The keys of a JSON object, sorted.
fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

// ---------------------------------------------------------------------------
// A resumed page says where it starts; its total counts the whole answer.

#[test]
fn a_resumed_page_counts_the_whole_answer_and_says_where_it_starts() {
    let scope = Scope::new(Fingerprint::of("numbers below 25"));
    let limits = Limits::new().limit(10).count_total(true);
    let first = Bounded::page(0..25u32, &limits, &scope, None).unwrap();
    let second = Bounded::page(0..25u32, &limits, &scope, first.next_cursor()).unwrap();
    let third = Bounded::page(0..25u32, &limits, &scope, second.next_cursor()).unwrap();

    let (w1, w2, w3) = (wire(&first), wire(&second), wire(&third));
    assert_eq!(w1["start"], 0, "a first page starts at 0: {w1}");
    assert_eq!(w1["total"], json!({ "value": 25, "relation": "eq" }));
    assert_eq!(w2["start"], 10, "{w2}");
    assert_eq!(w2["count"], 10);
    assert_eq!(
        w2["total"],
        json!({ "value": 25, "relation": "eq" }),
        "{w2}"
    );
    assert_eq!(w2["items"][0], 10);
    // The last page is exact: its total is start + count, not count.
    assert_eq!(w3["complete"], true);
    assert_eq!(w3["start"], 20, "{w3}");
    assert_eq!(w3["count"], 5);
    assert_eq!(
        w3["total"],
        json!({ "value": 25, "relation": "eq" }),
        "{w3}"
    );
}

#[test]
fn a_resumed_page_without_counting_has_a_lower_bound_past_its_items() {
    let scope = Scope::new(Fingerprint::of("numbers below 25"));
    let limits = Limits::new().limit(10);
    let first = Bounded::page(0..25u32, &limits, &scope, None).unwrap();
    let second = wire(&Bounded::page(0..25u32, &limits, &scope, first.next_cursor()).unwrap());
    assert_eq!(second["start"], 10, "{second}");
    // Items 11-20, and item 21 proved that more exist.
    assert_eq!(second["total"], json!({ "value": 21, "relation": "gte" }));
}

#[test]
fn a_resumed_key_page_says_where_it_starts() {
    let scope = Scope::new(Fingerprint::of("letters"));
    let letters: Vec<String> = ('a'..='g').map(String::from).collect();
    let source = |request: candor_search::KeyRequest<String>| {
        let after = request.into_after();
        letters
            .clone()
            .into_iter()
            .filter(move |l| after.as_ref().is_none_or(|a| l > a))
    };
    let limits = Limits::new().limit(3).count_total(true);
    let first = Bounded::page(Keyset::new(source, String::clone), &limits, &scope, None).unwrap();
    let second = Bounded::page(
        Keyset::new(source, String::clone),
        &limits,
        &scope,
        first.next_cursor(),
    )
    .unwrap();
    let w = wire(&second);
    assert_eq!(w["start"], 3, "{w}");
    assert_eq!(w["items"], json!(["d", "e", "f"]));
    assert_eq!(w["total"], json!({ "value": 7, "relation": "eq" }), "{w}");
}

#[test]
fn a_resumed_search_page_says_where_it_starts() {
    let mut docs = Documents::new();
    for i in 0..5 {
        docs.insert(format!("f{i}.txt"), "fish\nfish\nfish\n")
            .unwrap();
    }
    let query = Query::literal("fish");
    let limits = Limits::new().limit(4).count_total(true);
    let first = docs.search(&query, &limits, None).unwrap();
    let second = docs.search(&query, &limits, first.next_cursor()).unwrap();
    let w = wire(&second);
    assert_eq!(w["start"], 4, "{w}");
    assert_eq!(w["total"], json!({ "value": 15, "relation": "eq" }), "{w}");
    assert_eq!(w["items"][0]["path"], "f1.txt");
    assert_eq!(w["items"][0]["line_number"], 2);
}

#[test]
fn a_resumed_excerpt_page_says_where_it_starts() {
    let text: String = (1..=9).map(|n| format!("line {n}\n")).collect();
    let docs = Documents::new().with("a.txt", text.as_str());
    let excerpt = Excerpt::new("a.txt", 2..=8);
    let limits = Limits::new().limit(3);
    let first = docs.excerpt(&excerpt, &limits, None).unwrap();
    let second = docs
        .excerpt(&excerpt, &limits, first.next_cursor())
        .unwrap();
    let third = docs
        .excerpt(&excerpt, &limits, second.next_cursor())
        .unwrap();
    assert_eq!(wire(&second)["start"], 3);
    let w = wire(&third);
    assert_eq!(w["start"], 6, "{w}");
    assert_eq!(w["complete"], true);
    assert_eq!(w["total"], json!({ "value": 7, "relation": "eq" }), "{w}");
}

// ---------------------------------------------------------------------------
// The clamp is disclosed whatever stops the result.

#[test]
fn the_clamp_survives_a_byte_budget_that_binds_first() {
    let b = Bounded::collect(
        0..5000u32,
        &Limits::new().ceiling(1000).limit(100_000).max_bytes(2000),
    )
    .unwrap();
    let w = wire(&b);
    let t = &w["truncation"];
    assert_eq!(t["by"], "budget", "{w}");
    assert_eq!(t["budget"], "output_bytes");
    assert_eq!(t["limit"], 1000, "{w}");
    assert_eq!(t["requested"], 100_000, "{w}");
    let note = t["note"].as_str().expect("a note");
    assert!(note.contains("100000") && note.contains("1000"), "{note}");
}

#[test]
fn the_clamp_survives_a_deadline() {
    let b = Bounded::collect(
        0..100u32,
        &Limits::new()
            .ceiling(10)
            .limit(50)
            .deadline(Duration::from_millis(25))
            .clock(ManualClock::new().auto_advance(Duration::from_millis(10))),
    )
    .unwrap();
    let w = wire(&b);
    let t = &w["truncation"];
    assert_eq!(t["budget"], "deadline", "{w}");
    assert_eq!(t["limit"], 10, "{w}");
    assert_eq!(t["requested"], 50, "{w}");
}

#[test]
fn an_unclamped_budget_stop_names_no_limit() {
    let b = Bounded::collect(0..5000u32, &Limits::new().limit(1000).max_bytes(300)).unwrap();
    let w = wire(&b);
    assert_eq!(
        keys(&w["truncation"]),
        ["budget", "by", "max", "note", "used"]
    );
}

// ---------------------------------------------------------------------------
// Tight budgets: the optional parts yield before the last item does.

/// Documents that match, after six binary ones (which fill the skipped
/// sample). The required fields of a page with one match and a cursor
/// (which resumes after the match's file, the file's last) take 419
/// bytes; with the sample and the full note, over 700.
fn docs_with_skips() -> Documents<'static> {
    let mut docs = Documents::new();
    for i in 0..6 {
        docs.insert(format!("bin/{i}.dat"), b"fish\0binary\n".to_vec())
            .unwrap();
    }
    for i in 0..20 {
        docs.insert(format!("src/{i:02}.txt"), "fish\n").unwrap();
    }
    docs
}

#[test]
fn a_tight_budget_with_skips_still_returns_an_item_and_a_cursor() {
    let docs = docs_with_skips();
    let query = Query::literal("fish");
    for max in [422usize, 450, 500, 700] {
        let b = docs
            .search(&query, &Limits::new().max_bytes(max), None)
            .unwrap_or_else(|e| panic!("max_bytes {max}: {e}"));
        let json = b.to_json().unwrap();
        assert!(json.len() <= max, "{} > {max}: {json}", json.len());
        assert!(!b.is_empty(), "max_bytes {max}: no item: {json}");
        assert!(
            b.next_cursor().is_some(),
            "max_bytes {max}: no cursor: {json}"
        );
        // The counts of what was skipped stay, whatever the sample holds.
        let w: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(w["skipped"]["total"], 6, "{json}");
        assert_eq!(w["skipped"]["by_reason"]["binary"], 6, "{json}");
    }
}

#[test]
fn a_tight_budget_walks_to_the_end() {
    let docs = docs_with_skips();
    let query = Query::literal("fish");
    let limits = Limits::new().max_bytes(422);
    let mut cursor = None;
    let mut paths = Vec::new();
    for _ in 0..=20 {
        let b = docs.search(&query, &limits, cursor.as_ref()).unwrap();
        assert!(b.to_json().unwrap().len() <= 422);
        paths.extend(b.iter().map(|m| m.path.clone()));
        match b.next_cursor() {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    let want: Vec<String> = (0..20).map(|i| format!("src/{i:02}.txt")).collect();
    assert_eq!(paths, want);
}

#[test]
fn a_tight_budget_on_pages_keeps_an_item_and_a_cursor() {
    let scope = Scope::new(Fingerprint::of("tight"));
    // The full note alone is about 200 bytes: it must give way.
    let limits = Limits::new().limit(100).max_bytes(260);
    let items = || (0..50u32).map(|n| format!("item number {n}"));
    let page = Bounded::page(items(), &limits, &scope, None).unwrap();
    let json = page.to_json().unwrap();
    assert!(json.len() <= 260, "{json}");
    assert!(!page.is_empty(), "{json}");
    assert!(page.next_cursor().is_some(), "{json}");
}

#[test]
fn a_budget_below_the_required_fields_is_an_error() {
    let err = Bounded::collect(0..5u32, &Limits::new().max_bytes(40)).unwrap_err();
    assert!(
        matches!(err.kind(), candor_search::ErrorKind::BudgetTooSmall { .. }),
        "{err}"
    );
}

// ---------------------------------------------------------------------------
// The decoder refuses what the schema refuses, and its own output is
// accepted.

fn refused(json: &str) -> String {
    match serde_json::from_str::<Bounded<u32>>(json) {
        Ok(b) => panic!("accepted {json}: {b:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_decoder_refuses_skipped_counts_that_do_not_add_up() {
    let message = refused(
        r#"{"complete":false,"count":0,"total":{"value":0,"relation":"eq"},
            "skipped":{"total":0,"by_reason":{"unreadable":7},"sample":[]},"items":[]}"#,
    );
    assert!(message.contains("skipped.total"), "{message}");
    let message = refused(
        r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq"},
            "skipped":{"total":9,"by_reason":{"binary":2},"sample":[]},"items":[]}"#,
    );
    assert!(message.contains("skipped.total"), "{message}");
}

#[test]
fn the_decoder_refuses_a_sample_longer_than_its_bound() {
    let sample: Vec<Value> = (0..candor_search::SKIPPED_SAMPLE_LEN + 1)
        .map(|i| json!({ "path": format!("{i}.bin"), "reason": "binary" }))
        .collect();
    let n = sample.len();
    let json = json!({
        "complete": true, "count": 0, "total": { "value": 0, "relation": "eq" },
        "skipped": { "total": n, "by_reason": { "binary": n }, "sample": sample },
        "items": []
    });
    let message = refused(&json.to_string());
    assert!(message.contains("sample"), "{message}");
}

#[test]
fn the_decoder_refuses_unknown_fields() {
    let cases = [
        (
            "top level",
            r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq"},"skiped":{},"items":[]}"#,
            "skiped",
        ),
        (
            "total",
            r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq","exact":true},"items":[]}"#,
            "exact",
        ),
        (
            "truncation",
            r#"{"complete":false,"truncation":{"by":"limit","limit":0,"nte":"x"},"count":0,"total":{"value":1,"relation":"gte"},"items":[]}"#,
            "nte",
        ),
        (
            "skipped",
            r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq"},"skipped":{"total":1,"by_reason":{"binary":1},"sample":[],"more":1},"items":[]}"#,
            "more",
        ),
        (
            "sample",
            r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq"},"skipped":{"total":1,"by_reason":{"binary":1},"sample":[{"path":"a","reason":"binary","size":3}]},"items":[]}"#,
            "size",
        ),
    ];
    for (name, json, field) in cases {
        let message = refused(json);
        assert!(message.contains(field), "{name}: {message}");
    }
}

#[test]
fn the_decoder_refuses_a_total_below_start_plus_count() {
    let message = refused(
        r#"{"complete":false,"truncation":{"by":"limit","limit":2},"start":10,"count":2,
            "total":{"value":5,"relation":"gte"},"items":[1,2]}"#,
    );
    assert!(message.contains("start"), "{message}");
}

// ---------------------------------------------------------------------------
// The schema

#[test]
fn item_definitions_are_hoisted_to_the_envelope() {
    let item = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "span": { "$ref": "#/$defs/Span" },
            "cut": { "$ref": "#/definitions/Cut" },
            "again": { "$ref": "#/properties/span" },
            "children": { "type": "array", "items": { "$ref": "#" } }
        },
        "$defs": { "Span": { "type": "object", "properties": { "start": { "type": "integer" } } } },
        "definitions": { "Cut": { "type": "object", "properties": { "span": { "$ref": "#/definitions/Span2" } } },
                         "Span2": { "type": "integer" } }
    });
    let schema = candor_search::envelope_schema(item);
    let items = &schema["properties"]["items"]["items"];
    assert_eq!(items.get("$defs"), None, "{items}");
    assert_eq!(items.get("definitions"), None, "{items}");
    // Every `$ref` resolves from the envelope's root.
    let mut refs = Vec::new();
    collect_refs(&schema, &mut refs);
    assert_eq!(refs.len(), 5, "{refs:?}");
    for r in refs {
        let pointer = r.strip_prefix('#').expect("a local reference");
        assert!(schema.pointer(pointer).is_some(), "dangling {r}");
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::String(s) if k == "$ref" => out.push(s.clone()),
                    _ => collect_refs(v, out),
                }
            }
        }
        Value::Array(values) => values.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

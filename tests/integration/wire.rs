//! The wire shape: golden JSON, field order and omissions, decoding into
//! test-only structs (so that format drift fails here), the refusal of
//! inconsistent envelopes, the JSON Schema, the LLM guide and the one-line
//! disclosure.

use std::time::Duration;

use candor::{
    Bounded, BudgetKind, Completeness, Fingerprint, Limits, ManualClock, Scope, SkipReason, Total,
};
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::json;

use crate::core_support::{check_key_order, rejection, top_keys, validate};

// ---------------------------------------------------------------------------
// Test-only mirror of the wire shape: any new, renamed or missing field
// fails to decode.

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire<T> {
    complete: bool,
    #[serde(default)]
    truncation: Option<WireTruncation>,
    start: u64,
    count: usize,
    total: WireTotal,
    #[serde(default)]
    next_cursor: Option<String>,
    #[serde(default)]
    skipped: Option<WireSkipped>,
    items: Vec<T>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case", deny_unknown_fields)]
enum WireTruncation {
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

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireTotal {
    value: u64,
    relation: String,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireSkipped {
    total: u64,
    by_reason: std::collections::BTreeMap<String, u64>,
    sample: Vec<WireSample>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireSample {
    path: String,
    reason: String,
    #[serde(default)]
    detail: Option<String>,
}

fn decode<T: serde::de::DeserializeOwned>(json: &str) -> Wire<T> {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("format drift: {e}: {json}"))
}

fn eq_total(value: u64) -> WireTotal {
    WireTotal {
        value,
        relation: "eq".into(),
    }
}

fn gte_total(value: u64) -> WireTotal {
    WireTotal {
        value,
        relation: "gte".into(),
    }
}

/// The token `Bounded::page` issues to resume after 3 items of the query
/// fingerprinted "q". Pinned: a change voids every cursor handed out.
const TOKEN_Q_3: &str = "AQLZVnK1B8nRCAMDgAADKJkEMRkmGQc";

// ---------------------------------------------------------------------------
// Golden JSON

#[test]
fn golden_exact_result_is_small_and_plain() {
    let b = Bounded::exact(vec![1u32, 2, 3]);
    let json = serde_json::to_string(&b).unwrap();
    assert_eq!(
        json,
        r#"{"complete":true,"start":0,"count":3,"total":{"value":3,"relation":"eq"},"items":[1,2,3]}"#
    );
    assert_eq!(
        top_keys(&json),
        ["complete", "start", "count", "total", "items"]
    );
    assert_eq!(
        decode::<u32>(&json),
        Wire {
            complete: true,
            truncation: None,
            start: 0,
            count: 3,
            total: eq_total(3),
            next_cursor: None,
            skipped: None,
            items: vec![1, 2, 3],
        }
    );
}

#[test]
fn golden_empty_exact_result() {
    let b = Bounded::collect(Vec::<String>::new(), &Limits::new()).unwrap();
    assert_eq!(
        b.to_json().unwrap(),
        r#"{"complete":true,"start":0,"count":0,"total":{"value":0,"relation":"eq"},"items":[]}"#
    );
}

#[test]
fn golden_limit_truncation_with_clamp() {
    let b = Bounded::collect(0..50u32, &Limits::new().ceiling(5).limit(100)).unwrap();
    let json = serde_json::to_string(&b).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"limit","limit":5,"requested":100,"#,
            r#""note":"Stopped at the limit of 5 items (the 100 asked for is above this server's ceiling) "#,
            r#"and more exist: narrow the query; asking for a larger limit will not help."},"#,
            r#""start":0,"count":5,"total":{"value":6,"relation":"gte"},"items":[0,1,2,3,4]}"#
        )
    );
    let wire = decode::<u32>(&json);
    assert!(!wire.complete);
    assert_eq!(wire.count, 5);
    assert_eq!(wire.total, gte_total(6));
    assert!(matches!(
        wire.truncation,
        Some(WireTruncation::Limit {
            limit: 5,
            requested: Some(100),
            ..
        })
    ));
}

#[test]
fn golden_limit_truncation_without_clamp_omits_requested() {
    let b = Bounded::collect(0..50u32, &Limits::new().limit(3)).unwrap();
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"limit","limit":3,"#,
            r#""note":"Stopped at the limit of 3 items and more exist: raise the limit or narrow the query."},"#,
            r#""start":0,"count":3,"total":{"value":4,"relation":"gte"},"items":[0,1,2]}"#
        )
    );
    // A ceiling that does not cut is not a clamp.
    let b = Bounded::collect(0..50u32, &Limits::new().ceiling(10).limit(3)).unwrap();
    assert_eq!(b.to_json().unwrap(), json);
}

#[test]
fn golden_page_with_cursor() {
    let scope = Scope::new(Fingerprint::of("q"));
    let b = Bounded::page(0..50u32, &Limits::new().limit(3), &scope, None).unwrap();
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"limit","limit":3,"#,
            r#""note":"Stopped at the limit of 3 items and more exist: resume with next_cursor, raise the limit or narrow the query."},"#,
            r#""start":0,"count":3,"total":{"value":4,"relation":"gte"},"next_cursor":"AQLZVnK1B8nRCAMDgAADKJkEMRkmGQc","items":[0,1,2]}"#
        )
    );
    assert_eq!(
        top_keys(&json),
        [
            "complete",
            "truncation",
            "start",
            "count",
            "total",
            "next_cursor",
            "items"
        ]
    );
    assert_eq!(decode::<u32>(&json).next_cursor.as_deref(), Some(TOKEN_Q_3));
}

#[test]
fn golden_output_bytes_budget() {
    let b = Bounded::collect(
        (0..50u32).map(|n| format!("item {n}")),
        &Limits::new().max_bytes(400),
    )
    .unwrap();
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"budget","budget":"output_bytes","max":400,"used":392,"#,
            r#""note":"Stopped at max_bytes 400 (this page needs 392 of it) and more items exist: "#,
            r#"raise max_bytes or narrow the query; a larger limit will not help."},"#,
            r#""start":0,"count":9,"total":{"value":33,"relation":"gte"},"#,
            r#""items":["item 0","item 1","item 2","item 3","item 4","item 5","item 6","item 7","item 8"]}"#
        )
    );
    assert_eq!(json.len(), 392, "used is the response's own length");
    let wire = decode::<String>(&json);
    match wire.truncation {
        Some(WireTruncation::Budget {
            budget, max, used, ..
        }) => assert_eq!((budget.as_str(), max, used), ("output_bytes", 400, 392)),
        other => panic!("expected a budget truncation, got {other:?}"),
    }
}

#[test]
fn golden_deadline_budget() {
    let clock = ManualClock::new().auto_advance(Duration::from_millis(10));
    let b = Bounded::collect(
        0..50u32,
        &Limits::new()
            .deadline(Duration::from_millis(25))
            .clock(clock),
    )
    .unwrap();
    assert_eq!(
        b.to_json().unwrap(),
        concat!(
            r#"{"complete":false,"truncation":{"by":"budget","budget":"deadline","max":25,"used":30,"#,
            r#""note":"Stopped after 30 ms by the 25 ms deadline before the search finished, so more items may exist: "#,
            r#"allow more time or narrow the query; a larger limit will not help."},"#,
            r#""start":0,"count":3,"total":{"value":3,"relation":"gte"},"items":[0,1,2]}"#
        )
    );
}

/// An answer that trusts an index without checking the inputs says so,
/// and as of when, right after `complete`; it decodes back to the same
/// answer, and the schema accepts it (and refuses a time written
/// otherwise).
#[test]
fn golden_as_of_says_when_the_inputs_were_as_answered() {
    let mut collector = candor::collector::Collector::new(&Limits::new());
    collector.set_as_of(Some(candor::AsOf::from_unix_ms(1_764_759_900_123)));
    assert!(collector.offer(7u32).is_continue());
    let b = collector.finish(|_| None, None).unwrap();
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":true,"as_of":"2025-12-03T11:05:00.123Z","start":0,"count":1,"#,
            r#""total":{"value":1,"relation":"eq"},"items":[7]}"#
        )
    );
    let back: Bounded<u32> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, b);
    assert_eq!(
        back.disclosure().as_of().map(|t| t.unix_ms()),
        Some(1_764_759_900_123)
    );
    assert!(
        b.summary("matches")
            .contains("As of 2025-12-03T11:05:00.123Z: from an index, not checked"),
        "{}",
        b.summary("matches")
    );
    let schema = candor::envelope_schema(json!({ "type": "integer" }));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    validate(&schema, &value, "$").unwrap();
    for bad in [
        "2025-12-03T11:05:00Z",
        "yesterday",
        "2025-13-03T11:05:00.123Z",
    ] {
        let broken = json.replace("2025-12-03T11:05:00.123Z", bad);
        let value: serde_json::Value = serde_json::from_str(&broken).unwrap();
        if !bad.starts_with("2025-13") {
            assert!(validate(&schema, &value, "$").is_err(), "accepted {bad}");
        }
        assert!(rejection::<u32>(&broken).contains("as_of"), "decoded {bad}");
    }
}

#[test]
fn count_total_gives_an_exact_total_beside_a_truncation() {
    let b = Bounded::collect(0..7u32, &Limits::new().limit(2).count_total(true)).unwrap();
    let wire = decode::<u32>(&b.to_json().unwrap());
    assert_eq!(wire.total, eq_total(7));
    assert_eq!(wire.count, 2);
    assert!(wire.truncation.is_some());
}

/// The documented example of the wire shape (with a real cursor token and
/// a short item list), as a Rust client of a tool would receive it.
fn design_example() -> String {
    json!({
        "complete": false,
        "truncation": { "by": "limit", "limit": 3, "requested": 100000,
                        "note": "Stopped at the limit of 3 items (the 100000 asked for is above this server's ceiling) and more exist: resume with next_cursor or narrow the query; asking for a larger limit will not help." },
        "count": 3,
        "total": { "value": 1001, "relation": "gte" },
        "next_cursor": TOKEN_Q_3,
        "skipped": { "total": 4, "by_reason": { "binary": 3, "too_large": 1 },
                     "sample": [ { "path": "img/logo.png", "reason": "binary" } ] },
        "items": [0, 1, 2]
    })
    .to_string()
}

#[test]
fn golden_design_example_with_skipped_decodes_and_reencodes() {
    let b: Bounded<u32> = serde_json::from_str(&design_example()).unwrap();
    assert_eq!(
        b.completeness(),
        &Completeness::TruncatedByLimit {
            limit: 3,
            requested: Some(100000)
        }
    );
    assert_eq!(b.total(), Total::AtLeast(1001));
    assert_eq!(b.next_cursor().map(|c| c.as_str()), Some(TOKEN_Q_3));
    assert_eq!(b.skipped().total(), 4);
    assert_eq!(b.skipped().count(&SkipReason::Binary), 3);
    assert_eq!(b.skipped().count(&SkipReason::TooLarge), 1);
    assert_eq!(b.skipped().sample()[0].path(), "img/logo.png");
    assert!(!b.skipped().has_errors());
    assert_eq!(b.items(), &[0, 1, 2]);

    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"limit","limit":3,"requested":100000,"#,
            r#""note":"Stopped at the limit of 3 items (the 100000 asked for is above this server's ceiling) "#,
            r#"and more exist: resume with next_cursor or narrow the query; asking for a larger limit will not help."},"#,
            r#""start":0,"count":3,"total":{"value":1001,"relation":"gte"},"next_cursor":"AQLZVnK1B8nRCAMDgAADKJkEMRkmGQc","#,
            r#""skipped":{"total":4,"by_reason":{"binary":3,"too_large":1},"sample":[{"path":"img/logo.png","reason":"binary"}]},"#,
            r#""items":[0,1,2]}"#
        )
    );
    let without_start: Vec<&str> = crate::core_support::KEY_ORDER
        .into_iter()
        .filter(|k| *k != "as_of")
        .collect();
    assert_eq!(top_keys(&json), without_start);
    let wire = decode::<u32>(&json);
    assert_eq!(
        wire.skipped,
        Some(WireSkipped {
            total: 4,
            by_reason: [("binary".to_owned(), 3), ("too_large".to_owned(), 1)].into(),
            sample: vec![WireSample {
                path: "img/logo.png".into(),
                reason: "binary".into(),
                detail: None,
            }],
        })
    );
    // And decoding what it wrote gives the same value back.
    assert_eq!(serde_json::from_str::<Bounded<u32>>(&json).unwrap(), b);
}

#[test]
fn policy_skips_leave_an_exact_result_complete_and_error_skips_do_not() {
    let policy = r#"{"complete":true,"count":1,"total":{"value":1,"relation":"eq"},
        "skipped":{"total":1,"by_reason":{"binary":1},"sample":[{"path":"a.png","reason":"binary"}]},
        "items":["x"]}"#;
    let b: Bounded<String> = serde_json::from_str(policy).unwrap();
    assert!(b.is_complete());
    assert!(b.into_exact().is_ok());

    let errors = r#"{"complete":false,"count":1,"total":{"value":1,"relation":"eq"},
        "skipped":{"total":1,"by_reason":{"unreadable":1},
                   "sample":[{"path":"secret.txt","reason":"unreadable","detail":"permission denied"}]},
        "items":["x"]}"#;
    let b: Bounded<String> = serde_json::from_str(errors).unwrap();
    assert!(b.completeness().is_exact());
    assert!(
        !b.is_complete(),
        "an error skip makes the result incomplete"
    );
    assert_eq!(b.skipped().sample()[0].detail(), Some("permission denied"));
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"start":0,"count":1,"total":{"value":1,"relation":"eq"},"#,
            r#""skipped":{"total":1,"by_reason":{"unreadable":1},"errors":{"unreadable":1},"#,
            r#""sample":[{"path":"secret.txt","reason":"unreadable","error":true,"detail":"permission denied"}]},"items":["x"]}"#
        )
    );
    assert!(b.into_exact().is_err());
}

#[test]
fn field_order_is_fixed_and_empty_fields_are_omitted() {
    let scope = Scope::new(Fingerprint::of("order"));
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "exact",
            Bounded::exact(vec![1u8]).to_json().unwrap(),
            vec!["complete", "start", "count", "total", "items"],
        ),
        (
            "limit without cursor",
            Bounded::collect(0..3u8, &Limits::new().limit(1))
                .unwrap()
                .to_json()
                .unwrap(),
            vec!["complete", "truncation", "start", "count", "total", "items"],
        ),
        (
            "limit with cursor",
            Bounded::page(0..3u8, &Limits::new().limit(1), &scope, None)
                .unwrap()
                .to_json()
                .unwrap(),
            vec![
                "complete",
                "truncation",
                "start",
                "count",
                "total",
                "next_cursor",
                "items",
            ],
        ),
        (
            "last page",
            {
                let first = Bounded::page(0..3u8, &Limits::new().limit(2), &scope, None).unwrap();
                Bounded::page(0..3u8, &Limits::new().limit(2), &scope, first.next_cursor())
                    .unwrap()
                    .to_json()
                    .unwrap()
            },
            vec!["complete", "start", "count", "total", "items"],
        ),
        (
            "skipped",
            serde_json::from_str::<Bounded<u32>>(&design_example())
                .unwrap()
                .to_json()
                .unwrap(),
            crate::core_support::KEY_ORDER
                .into_iter()
                .filter(|k| *k != "as_of")
                .collect(),
        ),
        (
            "as of a time",
            {
                let mut collector = candor::collector::Collector::new(&Limits::new().limit(1));
                collector.set_as_of(Some(candor::AsOf::from_unix_ms(1_764_759_900_123)));
                for n in 0..3u8 {
                    if collector.offer(n).is_break() {
                        break;
                    }
                }
                collector.finish(|_| None, None).unwrap().to_json().unwrap()
            },
            vec![
                "complete",
                "as_of",
                "truncation",
                "start",
                "count",
                "total",
                "items",
            ],
        ),
    ];
    let mut names: Vec<&str> = cases.iter().map(|c| c.0).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    for (name, json, keys) in cases {
        assert_eq!(top_keys(&json), keys, "{name}");
        check_key_order(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn truncation_note_is_present_on_every_kind_of_stop() {
    let scope = Scope::new(Fingerprint::of("notes"));
    let results = [
        Bounded::collect(0..3u32, &Limits::new().limit(1)).unwrap(),
        Bounded::page(0..3u32, &Limits::new().limit(1), &scope, None).unwrap(),
        Bounded::collect(0..3u32, &Limits::new().ceiling(1).limit(9)).unwrap(),
        Bounded::collect(0..300u32, &Limits::new().max_bytes(400)).unwrap(),
    ];
    for b in results {
        let wire = decode::<u32>(&b.to_json().unwrap());
        let note = match wire.truncation.expect("truncated") {
            WireTruncation::Limit { note, .. } | WireTruncation::Budget { note, .. } => note,
        };
        // A budget that leaves room for the full note keeps it.
        let note = note.expect("a note");
        assert!(note.starts_with("Stopped"), "{note}");
        assert!(note.ends_with('.'), "{note}");
        assert_eq!(
            note.contains("next_cursor"),
            b.next_cursor().is_some(),
            "the note mentions the cursor exactly when there is one: {note}"
        );
    }
}

// ---------------------------------------------------------------------------
// Decoding refuses inconsistent envelopes

#[test]
fn deserialization_rejects_inconsistent_envelopes() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "count is not the number of items",
            r#"{"complete":true,"count":2,"total":{"value":3,"relation":"eq"},"items":[1,2,3]}"#,
            "count is 2 but 3 items",
        ),
        (
            "complete with a truncation",
            r#"{"complete":true,"truncation":{"by":"limit","limit":1},"count":1,"total":{"value":2,"relation":"gte"},"items":[1]}"#,
            "complete is true",
        ),
        (
            "incomplete without a reason",
            r#"{"complete":false,"count":1,"total":{"value":1,"relation":"eq"},"items":[1]}"#,
            "complete is false",
        ),
        (
            "exact with a lower-bound total",
            r#"{"complete":true,"count":1,"total":{"value":1,"relation":"gte"},"items":[1]}"#,
            "exact total",
        ),
        (
            "exact with a total other than the count",
            r#"{"complete":true,"count":1,"total":{"value":5,"relation":"eq"},"items":[1]}"#,
            "exact total",
        ),
        (
            "unknown relation",
            r#"{"complete":false,"truncation":{"by":"limit","limit":1},"count":1,"total":{"value":2,"relation":"lt"},"items":[1]}"#,
            "\"lt\"",
        ),
        (
            "unknown budget",
            r#"{"complete":false,"truncation":{"by":"budget","budget":"memory","max":1,"used":2},"count":1,"total":{"value":2,"relation":"gte"},"items":[1]}"#,
            "memory",
        ),
        (
            "unknown stop",
            r#"{"complete":false,"truncation":{"by":"magic"},"count":1,"total":{"value":2,"relation":"gte"},"items":[1]}"#,
            "magic",
        ),
        (
            "total below count",
            r#"{"complete":false,"truncation":{"by":"limit","limit":3},"count":3,"total":{"value":1,"relation":"gte"},"items":[1,2,3]}"#,
            "below count",
        ),
        (
            "complete despite an error skip",
            r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq"},"skipped":{"total":1,"by_reason":{"vanished":1},"sample":[]},"items":[]}"#,
            "complete is true",
        ),
        (
            "tampered cursor",
            r#"{"complete":false,"truncation":{"by":"limit","limit":1},"count":1,"total":{"value":2,"relation":"gte"},"next_cursor":"AQDZVnK1B8nRCAEDzfmnOtGYaC9","items":[1]}"#,
            "cursor",
        ),
        (
            "missing count",
            r#"{"complete":true,"total":{"value":0,"relation":"eq"},"items":[]}"#,
            "count",
        ),
        (
            "missing items",
            r#"{"complete":true,"count":0,"total":{"value":0,"relation":"eq"}}"#,
            "items",
        ),
        (
            "negative count",
            r#"{"complete":true,"count":-1,"total":{"value":0,"relation":"eq"},"items":[]}"#,
            "-1",
        ),
        ("not an object", r#"[1,2,3]"#, ""),
        (
            "item of the wrong type",
            r#"{"complete":true,"count":1,"total":{"value":1,"relation":"eq"},"items":["one"]}"#,
            "",
        ),
    ];
    let mut names: Vec<&str> = cases.iter().map(|c| c.0).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    for (name, json, needle) in cases {
        let message = rejection::<u32>(json);
        assert!(
            message.contains(needle),
            "{name}: message {message:?} does not mention {needle:?}"
        );
    }
}

/// Envelopes that a `Bounded` built by candor can never have, since they
/// break the rule of totals (a truncated result's total is at least
/// `count + 1`, or the exact figure) or of cursors (a cursor only when more
/// exist).
#[test]
fn deserialization_rejects_envelopes_that_break_the_rules() {
    let cases: &[(&str, &str)] = &[
        (
            "limit truncation whose total says nothing is missing",
            r#"{"complete":false,"truncation":{"by":"limit","limit":2},"count":2,"total":{"value":2,"relation":"gte"},"items":[1,2]}"#,
        ),
        (
            "truncation with an exact total equal to the count",
            r#"{"complete":false,"truncation":{"by":"limit","limit":2},"count":2,"total":{"value":2,"relation":"eq"},"items":[1,2]}"#,
        ),
        (
            "more items than the limit",
            r#"{"complete":false,"truncation":{"by":"limit","limit":1},"count":2,"total":{"value":3,"relation":"gte"},"items":[1,2]}"#,
        ),
        (
            "requested is not above the limit",
            r#"{"complete":false,"truncation":{"by":"limit","limit":2,"requested":2},"count":2,"total":{"value":3,"relation":"gte"},"items":[1,2]}"#,
        ),
        (
            "exact result with a cursor",
            r#"{"complete":true,"count":1,"total":{"value":1,"relation":"eq"},"next_cursor":"AQDZVnK1B8nRCAEDzfmnOtGYaC8","items":[1]}"#,
        ),
        (
            "output budget used above its max",
            r#"{"complete":false,"truncation":{"by":"budget","budget":"output_bytes","max":10,"used":200},"count":1,"total":{"value":2,"relation":"gte"},"items":[1]}"#,
        ),
    ];
    let accepted: Vec<&str> = cases
        .iter()
        .filter(|(_, json)| serde_json::from_str::<Bounded<u32>>(json).is_ok())
        .map(|(name, _)| *name)
        .collect();
    assert!(accepted.is_empty(), "accepted: {accepted:#?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Decoding never panics, whatever bytes arrive; what it accepts
    /// round-trips, has a total of at least its items, and an exact total
    /// of its items when it is exact.
    #[test]
    fn decoding_mangled_envelopes_never_panics(
        which in 0..4usize,
        cut in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        replace in any::<bool>(),
    ) {
        let scope = Scope::new(Fingerprint::of("mangle"));
        let sources = [
            Bounded::exact(vec![1u32, 20, 300]).to_json().unwrap(),
            Bounded::page(0..9u32, &Limits::new().limit(2), &scope, None).unwrap().to_json().unwrap(),
            Bounded::collect(0..99u32, &Limits::new().max_bytes(420)).unwrap().to_json().unwrap(),
            serde_json::from_str::<Bounded<u32>>(&design_example()).unwrap().to_json().unwrap(),
        ];
        let mut bytes = sources[which].clone().into_bytes();
        let i = cut.index(bytes.len());
        if replace {
            bytes[i] = byte;
        } else {
            bytes.remove(i);
        }
        let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
        if let Ok(b) = serde_json::from_str::<Bounded<u32>>(&text) {
            if b.completeness().is_exact() {
                prop_assert_eq!(b.total(), Total::Exact(b.len() as u64));
            }
            prop_assert!(b.total().value() >= b.len() as u64);
            let again: Bounded<u32> = serde_json::from_str(&b.to_json().unwrap()).unwrap();
            prop_assert_eq!(again, b);
        }
    }
}

// ---------------------------------------------------------------------------
// Schema and guide

#[test]
fn envelope_schema_is_structurally_sound() {
    let item = json!({ "type": "string", "minLength": 1 });
    let schema = candor::envelope_schema(item.clone());
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["required"],
        json!(["complete", "start", "count", "total", "items"])
    );
    let properties: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = crate::core_support::KEY_ORDER.to_vec();
    expected.sort_unstable();
    let mut found = properties.clone();
    found.sort_unstable();
    assert_eq!(found, expected, "the schema names exactly the wire fields");
    // The item schema is substituted, not wrapped or copied partly.
    assert_eq!(schema["properties"]["items"]["type"], "array");
    assert_eq!(schema["properties"]["items"]["items"], item);
    assert_eq!(
        schema["properties"]["total"]["properties"]["relation"]["enum"],
        json!(["eq", "gte"])
    );
    let branches = schema["properties"]["truncation"]["oneOf"]
        .as_array()
        .unwrap();
    assert_eq!(branches.len(), 2);
    let budgets = &branches[1]["properties"]["budget"]["enum"];
    for kind in [
        BudgetKind::OutputBytes,
        BudgetKind::ScannedBytes,
        BudgetKind::Files,
        BudgetKind::Deadline,
    ] {
        assert!(
            budgets.as_array().unwrap().contains(&json!(kind.as_str())),
            "{kind} missing from the schema"
        );
    }
}

#[test]
fn envelope_schema_accepts_real_results_and_refuses_broken_ones() {
    let schema = candor::envelope_schema(json!({ "type": "integer" }));
    let scope = Scope::new(Fingerprint::of("schema"));
    let good = [
        Bounded::exact(vec![1u32]).to_json().unwrap(),
        Bounded::page(0..3u32, &Limits::new().limit(1), &scope, None)
            .unwrap()
            .to_json()
            .unwrap(),
        Bounded::collect(0..3u32, &Limits::new().ceiling(1).limit(5))
            .unwrap()
            .to_json()
            .unwrap(),
        Bounded::collect(0..300u32, &Limits::new().max_bytes(400))
            .unwrap()
            .to_json()
            .unwrap(),
        serde_json::from_str::<Bounded<u32>>(&design_example())
            .unwrap()
            .to_json()
            .unwrap(),
    ];
    for json in &good {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        validate(&schema, &value, "$").unwrap_or_else(|e| panic!("{e}: {json}"));
    }
    let bad = [
        json!({ "complete": true, "total": { "value": 0, "relation": "eq" }, "items": [] }),
        json!({ "complete": true, "count": 0, "total": { "value": 0, "relation": "lt" }, "items": [] }),
        json!({ "complete": true, "count": 0, "total": { "value": 0, "relation": "eq" }, "items": [], "extra": 1 }),
        json!({ "complete": true, "count": 1, "total": { "value": 1, "relation": "eq" }, "items": ["x"] }),
        json!({ "complete": false, "truncation": { "by": "budget", "budget": "memory", "max": 1, "used": 1, "note": "" },
                "count": 0, "total": { "value": 1, "relation": "gte" }, "items": [] }),
    ];
    for value in &bad {
        assert!(validate(&schema, value, "$").is_err(), "accepted {value}");
    }
}

#[test]
fn llm_guide_explains_the_fields_an_agent_must_read() {
    for word in [
        "complete",
        "total",
        "next_cursor",
        "truncation",
        "count",
        "\"gte\"",
        "\"eq\"",
        "skipped",
        "as_of",
    ] {
        assert!(candor::LLM_GUIDE.contains(word), "LLM_GUIDE lacks {word}");
    }
}

// ---------------------------------------------------------------------------
// The one-line disclosure

#[test]
fn disclosure_lines() {
    let scope = Scope::new(Fingerprint::of("q"));
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "exact",
            Bounded::exact(vec![1u32, 2, 3]).summary("matches"),
            "Complete: 3 matches.",
        ),
        (
            "exact, one item",
            Bounded::exact(vec![7u32]).summary("matches"),
            "Complete: 1 of 1 matches.",
        ),
        (
            "deadline",
            Bounded::collect(
                0..50u32,
                &Limits::new()
                    .deadline(Duration::from_millis(25))
                    .clock(ManualClock::new().auto_advance(Duration::from_millis(10))),
            )
            .unwrap()
            .summary("matches"),
            "Incomplete: matches 1-3 of at least 3 (deadline budget of 25 ms ran out). Allow more time or narrow the query to see the rest.",
        ),
        (
            "limit",
            Bounded::collect(0..5000u32, &Limits::new().limit(1000))
                .unwrap()
                .summary("matches"),
            "Incomplete: matches 1-1000 of at least 1001 (limit 1000). Raise the limit or narrow the query to see the rest.",
        ),
        (
            "limit with cursor (the documented line)",
            Bounded::page(0..5000u32, &Limits::new().limit(1000), &scope, None)
                .unwrap()
                .summary("matches"),
            "Incomplete: matches 1-1000 of at least 1001 (limit 1000). Resume with next_cursor.",
        ),
        (
            "clamped limit",
            Bounded::collect(0..50u32, &Limits::new().ceiling(5).limit(100))
                .unwrap()
                .summary("matches"),
            "Incomplete: matches 1-5 of at least 6 (limit 5; 100 requested, above the ceiling). Narrow the query to see the rest.",
        ),
        (
            "counted total",
            Bounded::collect(0..7u32, &Limits::new().limit(2).count_total(true))
                .unwrap()
                .summary("callers"),
            "Incomplete: callers 1-2 of 7 (limit 2). Raise the limit or narrow the query to see the rest.",
        ),
        (
            "skipped by policy",
            serde_json::from_str::<Bounded<u32>>(&design_example())
                .unwrap()
                .summary("matches"),
            "Incomplete: matches 1-3 of at least 1001 (limit 3; 100000 requested, above the ceiling). Resume with next_cursor. 4 inputs skipped by policy (binary: 3, too_large: 1).",
        ),
        (
            "skipped for an error",
            serde_json::from_str::<Bounded<u32>>(
                r#"{"complete":false,"count":2,"total":{"value":2,"relation":"eq"},
                    "skipped":{"total":1,"by_reason":{"unreadable":1},"sample":[]},"items":[4,5]}"#,
            )
            .unwrap()
            .summary("matches"),
            "Incomplete: 2 matches found, but 1 input could not be searched because of errors (unreadable: 1).",
        ),
    ];
    for (name, line, expected) in cases {
        assert_eq!(line, expected, "{name}");
    }
    let budget = Bounded::collect(
        (0..50u32).map(|n| format!("item {n}")),
        &Limits::new().max_bytes(400),
    )
    .unwrap()
    .summary("matches");
    assert!(
        budget.starts_with(
            "Incomplete: matches 1-9 of at least 33 (max_bytes 400 reached). Raise max_bytes or narrow the query to see the rest."
        ),
        "{budget}"
    );
}

/// The wire note of a budget stop says "a larger limit will not help"; the
/// text line must not advise the opposite.
#[test]
fn budget_disclosure_does_not_advise_raising_the_limit() {
    let bytes = Bounded::collect(
        (0..50u32).map(|n| format!("item {n}")),
        &Limits::new().max_bytes(400),
    )
    .unwrap();
    let clock = ManualClock::new().auto_advance(Duration::from_millis(10));
    let deadline = Bounded::collect(
        (0..50u32).map(|n| n.to_string()),
        &Limits::new()
            .deadline(Duration::from_millis(25))
            .clock(clock),
    )
    .unwrap();
    for b in [bytes, deadline] {
        let line = b.summary("matches");
        assert!(!line.contains("Raise the limit"), "{line}");
    }
}

#[test]
fn bounded_iterates_by_reference() {
    let b = Bounded::collect(10..20u32, &Limits::new().limit(3)).unwrap();
    let mut seen: Vec<&u32> = Vec::new();
    for item in &b {
        seen.push(item);
    }
    assert_eq!(seen, [&10, &11, &12]);
    assert_eq!((&b).into_iter().sum::<u32>(), 33);
    assert_eq!(b.iter().count(), b.len());
    // The result is still there, disclosure and all.
    assert!(b.completeness().is_truncated());
}

// ---------------------------------------------------------------------------
// Golden JSON: start, the clamp under a budget, and the note under a tight
// budget

#[test]
fn golden_resumed_page_says_where_it_starts() {
    let scope = Scope::new(Fingerprint::of("q"));
    let limits = Limits::new().limit(3).count_total(true);
    let first = Bounded::page(0..8u32, &limits, &scope, None).unwrap();
    let second = Bounded::page(0..8u32, &limits, &scope, first.next_cursor()).unwrap();
    let json = second.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"limit","limit":3,"#,
            r#""note":"Stopped at the limit of 3 items and more exist: resume with next_cursor, raise the limit or narrow the query."},"#,
            r#""start":3,"count":3,"total":{"value":8,"relation":"eq"},"next_cursor":"AQLZVnK1B8nRCAYDgAAGWgneQhOEoGo","items":[3,4,5]}"#
        )
    );
    let wire = decode::<u32>(&json);
    assert_eq!(wire.start, 3);
    assert_eq!(wire.count, 3);
    assert_eq!(wire.total, eq_total(8));
    assert_eq!(wire.items, vec![3, 4, 5]);
}

#[test]
fn golden_clamp_under_a_byte_budget() {
    let b = Bounded::collect(
        (0..50u32).map(|n| format!("item {n}")),
        &Limits::new().ceiling(50).limit(100).max_bytes(330),
    )
    .unwrap();
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"budget","budget":"output_bytes","max":330,"used":325,"#,
            r#""limit":50,"requested":100,"note":"More items exist."},"start":0,"count":12,"total":{"value":26,"relation":"gte"},"#,
            r#""items":["item 0","item 1","item 2","item 3","item 4","item 5","item 6","item 7","item 8","item 9","item 10","item 11"]}"#
        )
    );
    match decode::<String>(&json).truncation {
        Some(WireTruncation::Budget {
            budget,
            limit,
            requested,
            ..
        }) => {
            assert_eq!(budget, "output_bytes");
            assert_eq!((limit, requested), (Some(50), Some(100)));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn golden_tight_budget_shortens_then_drops_the_note() {
    let scope = Scope::new(Fingerprint::of("q"));
    let items = || (0..50u32).map(|n| format!("item {n}"));
    let page = |max: usize| {
        Bounded::page(items(), &Limits::new().max_bytes(max), &scope, None)
            .unwrap()
            .to_json()
            .unwrap()
    };
    // The full note does not fit beside one item: the short one does.
    assert_eq!(
        page(270),
        concat!(
            r#"{"complete":false,"truncation":{"by":"budget","budget":"output_bytes","max":270,"used":269,"#,
            r#""note":"More items exist: resume with next_cursor."},"start":0,"count":1,"total":{"value":20,"relation":"gte"},"#,
            r#""next_cursor":"AQLZVnK1B8nRCAEDgAABqodzCOxmC84","items":["item 0"]}"#
        )
    );
    // Not even the short note fits beside one item: without a note, two
    // items and their cursor do.
    assert_eq!(
        page(228),
        concat!(
            r#"{"complete":false,"truncation":{"by":"budget","budget":"output_bytes","max":228,"used":226},"#,
            r#""start":0,"count":2,"total":{"value":16,"relation":"gte"},"#,
            r#""next_cursor":"AQLZVnK1B8nRCAIDgAACloHTfINN9tg","items":["item 0","item 1"]}"#
        )
    );
    for (max, json) in [(270, page(270)), (228, page(228))] {
        let wire = decode::<String>(&json);
        assert!(json.len() <= max);
        assert!(wire.count >= 1);
        assert!(wire.next_cursor.is_some());
    }
}

// ---------------------------------------------------------------------------
// Golden JSON: `start` on every page, a cut count, the skips so far

/// A page written before `start` was on every page reads as a first page,
/// and is written back with it.
#[test]
fn a_page_without_start_reads_as_a_first_page() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/wire");
    let old = std::fs::read_to_string(dir.join("seed-old-no-start.json")).unwrap();
    let now = std::fs::read_to_string(dir.join("seed-needed.json")).unwrap();
    let b: Bounded<u32> = serde_json::from_str(old.trim()).unwrap();
    assert_eq!(b.start(), 0);
    assert_eq!(b.to_json().unwrap(), now.trim());
    assert_eq!(serde_json::from_str::<Bounded<u32>>(now.trim()).unwrap(), b);
}

#[test]
fn golden_count_cut_by_its_budget() {
    let b = Bounded::collect(
        0..1000u32,
        &Limits::new().limit(2).count_total(true).max_counted(100),
    )
    .unwrap();
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":false,"truncation":{"by":"limit","limit":2,"#,
            r#""note":"Stopped at the limit of 2 items and more exist; counting the total stopped at the count budget of 100 items, "#,
            r#"so the total is a lower bound: raise the limit or narrow the query; for the exact total, raise the count budget."},"#,
            r#""start":0,"count":2,"total":{"value":100,"relation":"gte","cut_by":{"budget":"counted","max":100,"used":100}},"#,
            r#""items":[0,1]}"#
        )
    );
    assert_eq!(
        b.summary("matches"),
        "Incomplete: matches 1-2 of at least 100 (limit 2; the count of the total stopped at the count budget of 100 items: raise the count budget for the exact total). Raise the limit or narrow the query to see the rest."
    );
    assert_eq!(serde_json::from_str::<Bounded<u32>>(&json).unwrap(), b);
    let schema = candor::envelope_schema(json!({ "type": "integer" }));
    validate(&schema, &serde_json::from_str(&json).unwrap(), "$").unwrap();
}

#[test]
fn golden_skips_so_far() {
    use candor::{Completeness, Disclosure, SkipTally, Skipped, SkippedInput};
    let mut skipped = Skipped::new();
    skipped.record(SkippedInput::new(".cache", SkipReason::Hidden));
    skipped.record(SkippedInput::new("logo.png", SkipReason::Binary));
    let b = Bounded::from_parts(
        vec![7u32],
        Disclosure::new(Completeness::Exact, Total::Exact(21))
            .with_start(20)
            .with_skipped(skipped)
            .with_skipped_before(SkipTally::new(396, 1)),
    )
    .unwrap();
    let json = b.to_json().unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"complete":true,"start":20,"count":1,"total":{"value":21,"relation":"eq"},"#,
            r#""skipped":{"total":2,"by_reason":{"binary":1,"hidden":1},"sample":[{"path":".cache","reason":"hidden"},{"path":"logo.png","reason":"binary"}],"#,
            r#""so_far":{"total":398,"errors":1}},"items":[7]}"#
        )
    );
    assert_eq!(b.skipped_so_far(), SkipTally::new(398, 1));
    assert_eq!(
        b.summary("matches"),
        "Complete: matches 21-21 of 21 (the last page). 2 inputs skipped by policy (binary: 1, hidden: 1); 397 in all so far. Earlier pages could not search 1 input because of errors. A hidden, ignored or linked input can be a whole folder, none of it searched."
    );
    assert_eq!(serde_json::from_str::<Bounded<u32>>(&json).unwrap(), b);
    let schema = candor::envelope_schema(json!({ "type": "integer" }));
    validate(&schema, &serde_json::from_str(&json).unwrap(), "$").unwrap();
}

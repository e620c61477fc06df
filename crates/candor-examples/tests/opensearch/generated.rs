//! Live walks over generated hits. The stand-in cluster pages a
//! generated list of hits by `search_after`, resuming after the hit whose
//! sort values the request names, text for text, so that a value sent
//! back altered finds no hit. The sort values are awkward (Unicode, null,
//! floats that need all their digits, -0.0, 64-bit integers of either
//! sign); the walk has a point in time whose id the cluster changes
//! between pages, or an index and a tie-breaker field. The example walks
//! it with `--all`, or run after run with the `--cursor` it prints.
//! Every request is checked, every hit is printed once and in order, and
//! the output is what the replay of the same answers prints.

use std::process::Output;

use candor::Bounded;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::cluster::{Answer, Cluster, Received};
use super::walk::{Walk, answered, live, replayed, run, shown};

/// A hit of the generated answer.
#[derive(Debug, Clone)]
struct Doc {
    index: String,
    id: String,
    source: Value,
    sort: Vec<Value>,
}

impl Doc {
    fn hit(&self) -> Value {
        json!({
            "_index": self.index,
            "_id": self.id,
            "_score": null,
            "_source": self.source,
            "sort": self.sort,
        })
    }

    /// The line the example prints for it.
    fn line(&self) -> String {
        format!("{}/{}: {}\n", self.index, self.id, self.source)
    }
}

#[derive(Debug, Clone)]
struct Case {
    walk: Walk,
    /// The whole answer, in the cluster's order.
    docs: Vec<Doc>,
    /// Per page, the point in time's new id when the cluster changes it
    /// with that page's answer.
    pit_ids: Vec<Option<String>>,
    /// Page run after run with the printed `--cursor`, rather than `--all`.
    by_cursor: bool,
}

/// Any text, control characters and all.
fn text(len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 0..=len).prop_map(String::from_iter)
}

/// A sort value as a cluster returns one; often a float whose text a
/// careless round trip would change.
fn sort_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        2 => text(6).prop_map(Value::from),
        4 => prop_oneof![
            Just(0.1 + 0.2),
            Just(-0.0),
            Just(5e-324),
            Just(f64::MAX),
            Just(1.0),
            Just(1e21),
            Just(-1.5e-7),
        ]
        .prop_map(Value::from),
        1 => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::from),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let fields = prop::collection::vec(
        (
            "[a-zé@_.][a-zé@_.:0-9]{0,6}",
            prop_oneof![Just("asc"), Just("desc")],
        ),
        0..=2,
    );
    let mode = prop_oneof![
        // A point in time (the index, if given, is not sent).
        (
            "[^\\x00]{1,12}",
            prop::option::of(1u64..1_000_000),
            prop::option::of("[a-z][a-z0-9]{0,5}"),
            prop::option::of("[a-z_][a-z0-9_]{0,5}"),
        )
            .prop_map(|(pit, keep_alive, index, tie)| (Some(pit), keep_alive, index, tie)),
        // An index, pattern or list, in the path, and a tie-breaker field.
        (
            "[a-zé][a-z0-9._é-]{0,6}(,[a-z][a-z0-9]{0,4})?\\*?",
            "[a-z_][a-z0-9_]{0,5}"
        )
            .prop_map(|(index, tie)| (None, None, Some(index), Some(tie))),
    ];
    (
        fields,
        mode,
        text(6),
        1usize..=4,
        prop::option::of(150usize..1_500),
        prop::option::of(1u64..10_000),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0usize..=9,
    )
        .prop_flat_map(
            |(
                sorts,
                mode,
                words,
                limit,
                max_bytes,
                timeout_ms,
                count_total,
                json,
                by_cursor,
                n,
            )| {
                let width = sorts.len();
                let docs = (
                    prop::collection::vec(
                        (
                            prop_oneof![Just("logs-2024.06".to_owned()), text(4)],
                            text(4),
                            text(8),
                            prop::collection::vec(sort_value(), width),
                        ),
                        n,
                    ),
                    // The tie-breaker's values: one per hit, no two alike.
                    prop::collection::btree_set(any::<i64>(), n),
                );
                let pit_ids = prop::collection::vec(prop::option::of(text(10)), n + 1);
                (
                    Just((
                        sorts,
                        mode,
                        words,
                        limit,
                        max_bytes,
                        timeout_ms,
                        count_total,
                        json,
                        by_cursor,
                    )),
                    docs,
                    pit_ids,
                )
            },
        )
        .prop_map(|(flags, (docs, ties), pit_ids)| {
            let (
                sorts,
                (pit, keep_alive_ms, index, tie_breaker),
                words,
                limit,
                max_bytes,
                timeout_ms,
                count_total,
                json,
                by_cursor,
            ) = flags;
            let docs = docs
                .into_iter()
                .zip(ties)
                .enumerate()
                .map(|(i, ((index, id, message, mut sort), tie))| {
                    sort.push(Value::from(tie));
                    Doc {
                        index,
                        id: format!("d{i}{id}"),
                        source: json!({ "message": message, "n": i, "sort": sort[0] }),
                        sort,
                    }
                })
                .collect();
            Case {
                walk: Walk {
                    query: json!({ "match": { "message": words } }),
                    sorts,
                    pit,
                    keep_alive_ms,
                    index,
                    tie_breaker,
                    limit,
                    max_bytes,
                    timeout_ms,
                    count_total,
                    // A page's count is read from its wire shape when a
                    // byte budget may keep fewer hits than the limit.
                    json: json || max_bytes.is_some(),
                },
                docs,
                pit_ids,
                by_cursor,
            }
        })
}

/// An error response of the stand-in, for a request it cannot answer.
fn refusal(reason: String) -> Answer {
    Answer::json(
        &json!({ "error": { "type": "test_request_refused", "reason": reason }, "status": 400 })
            .to_string(),
    )
}

/// The stand-in's answer to `request`, the `page`th of the walk: the
/// hits after the one `search_after` names, `size` of them.
fn answer(case: &Case, request: &Received, page: usize) -> Answer {
    let body = match request.json() {
        Ok(body) => body,
        Err(e) => return refusal(e),
    };
    let start = match body.get("search_after") {
        None => 0,
        Some(after) => {
            let after = after.to_string();
            match case
                .docs
                .iter()
                .position(|d| serde_json::to_string(&d.sort).expect("JSON") == after)
            {
                Some(i) => i + 1,
                None => return refusal(format!("search_after {after} names no hit")),
            }
        }
    };
    let Some(size) = body["size"].as_u64() else {
        return refusal("no size".into());
    };
    let hits: Vec<Value> = case
        .docs
        .iter()
        .skip(start)
        .take(usize::try_from(size).unwrap_or(usize::MAX))
        .map(Doc::hit)
        .collect();
    let mut response = json!({
        "took": 2,
        "timed_out": false,
        "_shards": { "total": 3, "successful": 3, "skipped": 0, "failed": 0 },
        "hits": { "max_score": null, "hits": hits },
    });
    if body["track_total_hits"] == json!(true) {
        response["hits"]["total"] = json!({ "value": case.docs.len(), "relation": "eq" });
    }
    if let Some(sent) = body["pit"]["id"].as_str() {
        let latest = case
            .pit_ids
            .iter()
            .take(page + 1)
            .flatten()
            .last()
            .map_or(sent, String::as_str);
        response["pit_id"] = json!(latest);
    }
    Answer::json(&serde_json::to_string_pretty(&response).expect("JSON"))
}

/// The `--cursor` token a status line offers, if any.
fn offered_cursor(out: &Output) -> Option<String> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (_, rest) = stderr.rsplit_once("--cursor ")?;
    rest.split_whitespace().next().map(String::from)
}

/// Walks `case` live; returns each run's output and the exchanges.
fn walk_live(case: &Case) -> (Vec<Output>, Vec<super::cluster::Exchange>) {
    let cluster = {
        let case = case.clone();
        Cluster::start(move |request, before| answer(&case, request, before.len()))
    };
    let mut outs = Vec::new();
    if case.by_cursor {
        let mut cursor = None;
        // One run a page (a page holds a hit at least), and one more if
        // a cursor were offered wrongly.
        while outs.len() <= case.docs.len() + 1 {
            let mut args = case.walk.args();
            args.extend(["--url".to_owned(), cluster.url()]);
            if let Some(token) = cursor.take() {
                args.extend(["--cursor".to_owned(), token]);
            }
            let out = run(&args);
            cursor = offered_cursor(&out);
            outs.push(out);
            if cursor.is_none() {
                break;
            }
        }
    } else {
        outs.push(live(&case.walk, &cluster));
    }
    (outs, cluster.finish())
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    let n = case.docs.len();
    let limit = case.walk.limit;
    let (outs, exchanges) = walk_live(case);
    let all: String = outs.iter().map(shown).collect();
    let stdout: Vec<u8> = outs.iter().flat_map(|o| o.stdout.clone()).collect();
    let stderr: Vec<u8> = outs.iter().flat_map(|o| o.stderr.clone()).collect();
    // A byte budget below the smallest response this walk can give (a
    // long point in time, sort values or cursor in its envelope) is
    // refused, saying which budget would do: never a page that breaks it.
    let refusal = "is too small: the smallest response needs max_bytes ";
    if let Some(at) = outs
        .iter()
        .position(|o| String::from_utf8_lossy(&o.stderr).contains(refusal))
    {
        let out = &outs[at];
        let text = String::from_utf8_lossy(&out.stderr);
        let needed: usize = text
            .split(refusal)
            .nth(1)
            .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("a figure: {all}"));
        prop_assert_eq!(at + 1, outs.len(), "the walk ends at the refusal: {}", all);
        prop_assert_eq!(out.status.code(), Some(2), "{}", all);
        prop_assert!(out.stdout.is_empty(), "{}", all);
        let max = case
            .walk
            .max_bytes
            .unwrap_or_else(|| panic!("no budget: {all}"));
        prop_assert!(needed > max, "{}", all);
        if !case.by_cursor {
            let replay = replayed(&case.walk, &answered(&exchanges));
            prop_assert_eq!(replay.status.code(), Some(2), "{}", shown(&replay));
            prop_assert_eq!(&replay.stderr, &out.stderr, "{}", shown(&replay));
        }
        return Ok(());
    }
    // The pages' wire shapes, with --json.
    let printed: Option<Vec<Bounded<Value>>> = if case.walk.json {
        let text = String::from_utf8(stdout.clone()).expect("JSON is UTF-8");
        let pages = text
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()
            .map_err(|e| TestCaseError::fail(format!("not a page's wire shape ({e})\n{all}")))?;
        Some(pages)
    } else {
        None
    };
    // Each request, against the answers before it and the hits each
    // page showed.
    let shown_per_page: Vec<usize> = printed.iter().flatten().map(Bounded::len).collect();
    case.walk
        .check_requests(&exchanges, &shown_per_page)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{all}")))?;
    let expected_code = if n > 0 { 0 } else { 1 };
    for out in &outs {
        prop_assert_eq!(out.status.code(), Some(expected_code), "{}", all);
    }
    let pages = exchanges.len();
    if case.walk.max_bytes.is_none() {
        prop_assert_eq!(pages, n.div_ceil(limit).max(1), "{}", all);
    }
    // Every hit once, in the cluster's order; one status line a page.
    // Or, when the byte budget cannot hold one hit, the hits before it
    // and a last page that says what budget would hold it.
    let mut too_small = false;
    match &printed {
        Some(printed) => {
            prop_assert_eq!(printed.len(), pages, "{}", all);
            let mut start = 0;
            for (k, page) in printed.iter().enumerate() {
                let last = k + 1 == pages;
                prop_assert_eq!(page.start(), start);
                prop_assert!(page.len() <= limit, "{}", all);
                prop_assert_eq!(page.next_cursor().is_some(), !last, "{}", all);
                if last && !page.is_complete() {
                    // Only a budget smaller than the next hit's page ends a walk early.
                    let budget = page.completeness().budget();
                    let max = case.walk.max_bytes.map(|m| m as u64);
                    prop_assert!(page.is_empty(), "{}", all);
                    prop_assert_eq!(budget.map(|b| b.max()), max, "{}", all);
                    prop_assert!(budget.and_then(|b| b.needed()) > max, "{}", all);
                    too_small = true;
                } else {
                    prop_assert!(n == 0 || !page.is_empty(), "{}", all);
                    prop_assert_eq!(page.is_complete(), last, "{}", all);
                }
                start += page.len() as u64;
            }
            let items: Vec<&Value> = printed.iter().flat_map(|p| p.iter()).collect();
            let expected: Vec<Value> = case
                .docs
                .iter()
                .take(if too_small { items.len() } else { n })
                .map(|d| json!({ "_index": d.index, "_id": d.id, "_source": d.source }))
                .collect();
            prop_assert_eq!(items, expected.iter().collect::<Vec<_>>(), "{}", all);
        }
        None => {
            let expected: String = case.docs.iter().map(Doc::line).collect();
            prop_assert_eq!(String::from_utf8_lossy(&stdout), expected, "{}", all);
        }
    }
    let status = String::from_utf8_lossy(&stderr);
    let status: Vec<&str> = status.lines().collect();
    prop_assert_eq!(status.len(), pages, "{}", all);
    if too_small {
        prop_assert!(status[pages - 1].contains("needs max_bytes of"), "{}", all);
    } else {
        prop_assert!(status[pages - 1].starts_with("Complete: "), "{}", all);
    }
    // The replay of the same answers prints the same.
    let replay = replayed(&case.walk, &answered(&exchanges));
    prop_assert_eq!(
        (replay.status.code(), &replay.stdout, &replay.stderr),
        (Some(expected_code), &stdout, &stderr),
        "replayed:\n{}\nlive:\n{}",
        shown(&replay),
        all
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn live_walks_over_generated_hits_send_exact_requests_and_print_what_the_replay_prints(
        case in case()
    ) {
        check(&case)?;
    }
}

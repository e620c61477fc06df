//! The OpenSearch / Elasticsearch adapter on recorded responses (the
//! property over generated responses is in `opensearch_props`).
//!
//! The recordings in `tests/data/opensearch/` are shaped as the engines
//! document their search response:
//! <https://www.elastic.co/guide/en/elasticsearch/reference/current/search-search.html#search-api-response-body>
//! (`took`, `timed_out`, `terminated_early`, `_shards` with `failures`,
//! `hits.total` with `relation`, each hit's `sort`),
//! <https://opensearch.org/docs/latest/api-reference/search/> (the same
//! body), paging with `search_after` and a point in time as in
//! <https://www.elastic.co/guide/en/elasticsearch/reference/current/paginate-search-results.html>
//! (`pit_id` in each response, `_shard_doc` as the last sort value), and
//! an expired point in time as Elasticsearch answers it: a 404 whose
//! causes are `search_context_missing_exception`.
//!
//! | file                    | what it records                                              |
//! |-------------------------|--------------------------------------------------------------|
//! | `walk-{1,2,3}.json`     | three pages of one walk, a float at a page boundary          |
//! | `timeout-{1,2}.json`    | a walk whose page 2 timed out with `limit + 1` hits          |
//! | `failed-shard.json`     | one shard of five failed (`node_disconnected_exception`)     |
//! | `deep-page.json`        | a page past 10,000 hits, the total capped at 10,000 `gte`    |
//! | `prefiltered.json`      | three shards ruled out before the search (`_shards.skipped`) |
//! | `terminated-early.json` | `terminate_after` cut each shard                             |
//! | `expired-pit.json`      | the point in time expired                                    |
//! | `bad-query.json`        | a query the cluster cannot parse                             |
//! | `fanout-*.json`         | two clusters' pages of one fan-out walk                      |
#![cfg(feature = "opensearch")]

use std::time::Duration;

use candor::opensearch::{Fanout, Order, Search, SortField, TieBreaker};
use candor::{Bounded, BudgetKind, Completeness, ErrorKind, Limits, Total, envelope_schema};
use serde_json::{Value, json};

use crate::core_support::validate;

fn recorded(name: &str) -> Value {
    let path = format!(
        "{}/tests/data/opensearch/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The search the walk recordings answer: by service, then latency
/// (highest first), in a point in time.
fn walk_search() -> Search {
    Search::new(json!({ "match": { "message": "flush" } }))
        .sort(SortField::new("service", Order::Asc))
        .sort(SortField::new("latency", Order::Desc))
        .pit("pit-a")
}

/// The note the page's wire shape carries.
fn note_of(page: &Bounded<String>) -> String {
    let wire: Value = serde_json::from_str(&page.to_json().unwrap()).unwrap();
    wire["truncation"]["note"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn id(hit: &Value) -> Result<String, &'static str> {
    hit["_id"].as_str().map(String::from).ok_or("no _id")
}

/// The page's wire shape is valid against the envelope's schema, and
/// decodes back into the same page (the decoder checks every rule).
fn check_wire(page: &Bounded<String>) {
    let text = page.to_json().expect("serializes");
    let value: Value = serde_json::from_str(&text).expect("JSON");
    validate(&envelope_schema(json!({ "type": "string" })), &value, "").expect("valid");
    let back: Bounded<String> = serde_json::from_str(&text).expect("decodes");
    assert_eq!(&back, page);
}

#[test]
fn a_walk_follows_search_after_and_the_latest_point_in_time() {
    let search = walk_search();
    let limits = Limits::new().limit(2);
    let first = search.request(&limits, None).expect("a request");
    assert_eq!(first.body()["size"], 3);
    assert_eq!(
        first.body()["sort"],
        json!([{ "service": { "order": "asc" } }, { "latency": { "order": "desc" } }, { "_shard_doc": "asc" }])
    );
    assert_eq!(first.body()["pit"]["id"], "pit-a");
    assert_eq!(first.body()["track_total_hits"], false);
    assert!(first.body().get("search_after").is_none());

    let mut seen = Vec::new();
    let mut cursor = None;
    let mut bodies = Vec::new();
    for (n, file) in ["walk-1.json", "walk-2.json", "walk-3.json"]
        .into_iter()
        .enumerate()
    {
        let request = search.request(&limits, cursor.as_ref()).expect("a request");
        bodies.push(request.body().clone());
        let page = request.read_with(&recorded(file), id).expect("a page");
        check_wire(&page);
        assert_eq!(page.start(), 2 * n as u64);
        assert_eq!(page.total(), Total::Exact(5));
        seen.extend(page.items().iter().cloned());
        cursor = page.next_cursor().cloned();
        if n < 2 {
            assert!(page.completeness().is_truncated_by_limit());
            assert_eq!(cursor.as_ref().map(|c| c.start()), Some(2 * n as u64 + 2));
        } else {
            assert!(page.is_complete());
            assert!(cursor.is_none());
        }
    }
    // Every hit once, in the sort's order.
    assert_eq!(seen, ["d1", "d2", "d3", "d4", "d5"]);
    // Page 2 resumes after d2, the float sent back as the cluster wrote it.
    assert_eq!(
        serde_json::to_string(&bodies[1]["search_after"]).unwrap(),
        r#"["api",0.30000000000000004,4]"#
    );
    assert_eq!(bodies[1]["pit"]["id"], "pit-a");
    // Page 3 resumes after d4, in the point in time page 2 answered with.
    assert_eq!(bodies[2]["search_after"], json!(["web", 2.5, 9]));
    assert_eq!(bodies[2]["pit"]["id"], "pit-b");
}

#[test]
fn a_time_out_on_page_two_is_a_subset_with_both_stops_and_no_cursor() {
    let search = walk_search();
    let limits = Limits::new().limit(2).deadline(Duration::from_millis(500));
    let first = search.request(&limits, None).expect("a request");
    assert_eq!(first.body()["timeout"], "500ms");
    let page1 = first
        .read_with(&recorded("timeout-1.json"), id)
        .expect("page 1");
    let request = search
        .request(&limits, page1.next_cursor())
        .expect("page 2's request");
    let page = request
        .read_with(&recorded("timeout-2.json"), id)
        .expect("page 2");
    check_wire(&page);
    assert!(!page.is_complete());
    assert!(page.disclosure().is_subset());
    assert!(page.next_cursor().is_none(), "no cursor resumes a subset");
    let budget = page.completeness().budget().expect("a budget stop");
    assert_eq!(
        (budget.kind(), budget.max(), budget.used()),
        (BudgetKind::Deadline, 500, 1012)
    );
    // Three hits for a limit of 2: the limit was reached as well.
    assert_eq!(page.disclosure().limit_reached(), Some(2));
    assert_eq!(page.items(), ["d3", "d4"]);
    // The cluster's "eq" counts what it found before the time-out: a lower
    // bound, above the page (2 before it, 2 on it, 1 more found).
    assert_eq!(page.total(), Total::AtLeast(5));
    let wire: Value = serde_json::from_str(&page.to_json().unwrap()).unwrap();
    assert_eq!(wire["truncation"]["subset"], true);
    assert_eq!(wire["truncation"]["limit_reached"], true);
    assert!(
        wire["truncation"]["note"]
            .as_str()
            .unwrap()
            .starts_with("The cluster timed out after 1012 ms (timeout 500 ms)")
    );
    assert_eq!(
        page.summary("hits"),
        "Incomplete: 2 hits of at least 5 (deadline budget of 500 ms ran out; limit 2 reached as well). \
         A subset: some of the hits after the first 2, not the next ones in order. \
         Allow more time or narrow the query to see the rest."
    );
}

#[test]
fn fewer_hits_than_asked_while_the_count_says_more_is_a_subset() {
    // Page 2 of the walk (d1 and d2 came before) returns d3 alone, a
    // page of 3 asked for, yet counts 5 hits (`eq`): two hits after d3
    // are missing by the cluster's own figures, so the page is not whole
    // and d3 may not be the third hit.
    let search = walk_search();
    let limits = Limits::new().limit(2);
    let first = search.request(&limits, None).unwrap();
    let page1 = first.read_with(&recorded("walk-1.json"), id).unwrap();
    let request = search.request(&limits, page1.next_cursor()).unwrap();
    let mut short = recorded("walk-2.json");
    short["hits"]["hits"].as_array_mut().unwrap().truncate(1);
    let page = request.read_with(&short, id).expect("a page");
    check_wire(&page);
    assert_eq!(page.items(), ["d3"]);
    assert_eq!(page.start(), 2);
    assert!(!page.is_complete());
    assert!(page.disclosure().is_subset());
    assert!(page.next_cursor().is_none());
    assert_eq!(page.total(), Total::AtLeast(5));
    let note = note_of(&page);
    assert!(note.contains("counts 5 (eq)"), "{note}");
    // The same with a capped count (`gte`): at least 10,000 exist.
    short["hits"]["total"] = json!({ "value": 10_000, "relation": "gte" });
    let page = request.read_with(&short, id).expect("a page");
    assert!(!page.is_complete() && page.disclosure().is_subset());
    assert_eq!(page.total(), Total::AtLeast(10_000));
    // The count within the hits before and on the page: whole.
    short["hits"]["total"] = json!({ "value": 3, "relation": "eq" });
    let page = request.read_with(&short, id).expect("a page");
    assert!(page.is_complete());
    assert_eq!(page.total(), Total::Exact(3));
}

#[test]
fn a_sort_value_too_deep_for_a_cursor_is_refused_and_one_that_fits_resumes() {
    // A cursor key holds a sort value three levels down, and a key nests
    // at most 32 levels: 29 levels of a sort value fit, 30 do not.
    let search = Search::new(json!({ "match_all": {} }))
        .sort(SortField::new("shape", Order::Asc))
        .tie_breaker(TieBreaker::Field("key".into()));
    let limits = Limits::new().limit(1);
    let nested = |levels: usize| {
        let mut value = json!("leaf");
        for _ in 0..levels {
            value = json!([value]);
        }
        value
    };
    let response = |levels: usize| {
        json!({ "took": 1, "timed_out": false,
            "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
            "hits": { "hits": [
                { "_id": "a", "sort": [nested(levels), "a"] },
                { "_id": "b", "sort": [nested(levels), "b"] } ] } })
    };
    let request = search.request(&limits, None).unwrap();
    let err = request
        .read_with(&response(30), id)
        .expect_err("too deep for a cursor");
    assert!(
        matches!(
            err.kind(),
            ErrorKind::InvalidArgument {
                name: "response",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("nest more than 29 levels"),
        "{err}"
    );
    let page = request.read_with(&response(29), id).expect("a page");
    let cursor = page.next_cursor().expect("cut by the limit");
    let next = search
        .request(&limits, Some(cursor))
        .expect("the cursor resumes");
    assert_eq!(next.body()["search_after"], json!([nested(29), "a"]));
}

#[test]
fn a_failed_shard_is_an_error_skip_named_with_its_reason() {
    let request = walk_search()
        .request(&Limits::new().limit(2), None)
        .expect("a request");
    let page = request
        .read_with(&recorded("failed-shard.json"), id)
        .expect("a page");
    check_wire(&page);
    assert!(!page.is_complete());
    assert_eq!(page.completeness(), &Completeness::Exact);
    assert_eq!(page.items(), ["d1", "d3"]);
    let skipped = page.skipped();
    assert_eq!(skipped.error_total(), 1);
    let failure = &skipped.sample()[0];
    assert_eq!(failure.path(), "logs-2024.07/shard 2");
    assert_eq!(failure.reason().as_str(), "node_disconnected_exception");
    assert!(failure.is_error());
    assert!(failure.detail().unwrap().contains("disconnected"));
    let wire: Value = serde_json::from_str(&page.to_json().unwrap()).unwrap();
    assert_eq!(wire["complete"], false);
    assert_eq!(wire["skipped"]["errors"]["node_disconnected_exception"], 1);
}

#[test]
fn a_page_past_ten_thousand_hits_keeps_a_lower_bound_at_its_depth() {
    let search = walk_search();
    let limits = Limits::new().limit(2);
    // A walk 10,002 hits deep (five thousand pages of two): its cursor,
    // as the adapter writes it, built directly.
    let key = json!([{ "pit": "pit-a", "after": ["web", 0.5, 19_999], "start": 10_002 }]);
    let cursor = search.scope().cursor(&key, 10_002);
    let request = search.request(&limits, Some(&cursor)).expect("a request");
    assert_eq!(request.body()["search_after"], json!(["web", 0.5, 19_999]));
    let page = request
        .read_with(&recorded("deep-page.json"), id)
        .expect("a page past the cap is not refused");
    check_wire(&page);
    assert_eq!(page.start(), 10_002);
    assert_eq!(page.len(), 2);
    assert!(page.completeness().is_truncated_by_limit());
    // 10,000 "gte" is a lower bound; the page proves 10,005.
    assert_eq!(page.total(), Total::AtLeast(10_005));
    assert_eq!(page.next_cursor().map(|c| c.start()), Some(10_004));
}

#[test]
fn shards_ruled_out_before_the_search_are_policy_skips() {
    let request = walk_search()
        .request(&Limits::new().limit(2), None)
        .expect("a request");
    let page = request
        .read_with(&recorded("prefiltered.json"), id)
        .expect("a page");
    check_wire(&page);
    assert!(page.is_complete());
    assert_eq!(page.skipped().total(), 3);
    assert_eq!(page.skipped().error_total(), 0);
    assert_eq!(
        page.skipped()
            .by_reason()
            .next()
            .map(|(r, n)| (r.as_str(), n)),
        Some(("shard_prefiltered", 3))
    );
}

/// A cross-cluster search reports the remote clusters it could not search
/// in `_clusters` (their shards are not in `_shards`): their hits are
/// missing, so the page is not complete.
/// <https://www.elastic.co/guide/en/elasticsearch/reference/current/modules-cross-cluster-search.html>
#[test]
fn remote_clusters_not_searched_leave_the_page_incomplete() {
    let request = walk_search()
        .request(&Limits::new().limit(2), None)
        .expect("a request");
    let mut response = recorded("prefiltered.json");
    response["_clusters"] = json!({ "total": 3, "successful": 1, "skipped": 2 });
    let page = request.read_with(&response, id).expect("a page");
    check_wire(&page);
    assert!(!page.is_complete(), "{}", page.to_json().unwrap());
    assert_eq!(
        page.skipped()
            .errors_by_reason()
            .map(|(r, n)| (r.as_str(), n))
            .collect::<Vec<_>>(),
        [("cluster_unsearched", 2)]
    );
}

#[test]
fn terminate_after_makes_a_subset_stopped_by_the_document_budget() {
    let search = Search::new(json!({ "match": { "message": "flush" } }))
        .sort(SortField::new("service", Order::Asc))
        .sort(SortField::new("latency", Order::Desc))
        .tie_breaker(TieBreaker::Field("seq".into()))
        .terminate_after(100);
    let request = search
        .request(&Limits::new().limit(5), None)
        .expect("a request");
    assert_eq!(request.body()["terminate_after"], 100);
    let page = request
        .read_with(&recorded("terminated-early.json"), id)
        .expect("a page");
    check_wire(&page);
    assert!(!page.is_complete());
    assert!(page.disclosure().is_subset());
    assert!(page.next_cursor().is_none());
    let budget = page.completeness().budget().expect("a budget stop");
    assert_eq!((budget.kind(), budget.max()), (BudgetKind::Files, 100));
    assert_eq!(page.total(), Total::AtLeast(2));
}

#[test]
fn an_expired_point_in_time_is_a_stale_cursor() {
    let search = walk_search();
    let limits = Limits::new().limit(2);
    let page1 = search
        .request(&limits, None)
        .unwrap()
        .read_with(&recorded("walk-1.json"), id)
        .unwrap();
    let request = search.request(&limits, page1.next_cursor()).unwrap();
    let err = request
        .read_with(&recorded("expired-pit.json"), id)
        .expect_err("the walk cannot go on");
    assert!(
        matches!(
            err.kind(),
            ErrorKind::StaleCursor {
                current_generation: 0,
                ..
            }
        ),
        "{err:?}"
    );
    // On a first page, it is the point in time given that expired.
    let err = search
        .request(&limits, None)
        .unwrap()
        .read_with(&recorded("expired-pit.json"), id)
        .expect_err("no page");
    assert!(
        matches!(err.kind(), ErrorKind::InvalidArgument { name: "pit", .. }),
        "{err:?}"
    );
}

#[test]
fn other_error_responses_and_foreign_cursors_are_clear_errors() {
    let search = walk_search();
    let limits = Limits::new().limit(2);
    let err = search
        .request(&limits, None)
        .unwrap()
        .read_with(&recorded("bad-query.json"), id)
        .expect_err("an error response");
    assert!(
        err.to_string()
            .contains("parsing_exception: unknown query [mtch]"),
        "{err}"
    );
    // A cursor of another search is refused.
    let page1 = search
        .request(&limits, None)
        .unwrap()
        .read_with(&recorded("walk-1.json"), id)
        .unwrap();
    let other = Search::new(json!({ "match": { "message": "sync" } })).pit("pit-a");
    let err = other
        .request(&limits, page1.next_cursor())
        .expect_err("foreign");
    assert!(
        matches!(err.kind(), ErrorKind::ForeignCursor { .. }),
        "{err:?}"
    );
    // A cursor rewritten to say the cluster is finished (a checksum is no
    // MAC: anyone can write one) is refused, not obeyed.
    let key = json!([{ "pit": "pit-a", "start": 2, "done": true }]);
    let forged = search.scope().cursor(&key, 2);
    let err = search.request(&limits, Some(&forged)).expect_err("forged");
    assert!(
        matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
        "{err:?}"
    );
    let key = json!([{ "pit": "pit-a", "after": ["api"], "start": 2 }]);
    let forged = search.scope().cursor(&key, 2);
    let err = search.request(&limits, Some(&forged)).expect_err("forged");
    assert!(
        matches!(err.kind(), ErrorKind::MalformedCursor { .. }),
        "{err:?}"
    );
    // A response that is not a search response.
    let err = search
        .request(&limits, None)
        .unwrap()
        .read_with(&json!({ "acknowledged": true }), id)
        .expect_err("not a search response");
    assert!(err.to_string().contains("not a search response"), "{err}");
}

#[test]
fn a_walk_under_a_byte_budget_loses_nothing() {
    let search = walk_search();
    for max in [260usize, 330, 400, 600, 2000] {
        let limits = Limits::new().limit(2).max_bytes(max);
        // A page cut by the byte budget resumes before the hits it left
        // out: the cluster is asked again from there, which the
        // recordings answer by the hits after that key.
        let all = ["d1", "d2", "d3", "d4", "d5"];
        let sorts = [
            json!(["api", 0.7, 12]),
            json!(["api", 0.30000000000000004, 4]),
            json!(["web", 2.5, 7]),
            json!(["web", 2.5, 9]),
            json!([null, 1.0, 2]),
        ];
        let hits: Vec<Value> = ["walk-1.json", "walk-2.json", "walk-3.json"]
            .iter()
            .flat_map(|f| recorded(f)["hits"]["hits"].as_array().unwrap().clone())
            .collect();
        let mut cursor = None;
        let mut seen = Vec::new();
        for _ in 0..20 {
            let request = search.request(&limits, cursor.as_ref()).expect("a request");
            let from = match request.body().get("search_after") {
                None => 0,
                Some(after) => sorts.iter().position(|s| s == after).unwrap() + 1,
            };
            let mut answer: Vec<Value> = Vec::new();
            for hit in &hits {
                let n = all.iter().position(|d| *d == hit["_id"]).unwrap();
                if n >= from && !answer.iter().any(|h| h["_id"] == hit["_id"]) {
                    answer.push(hit.clone());
                }
            }
            answer.truncate(3);
            let response = json!({ "pit_id": "pit-a", "took": 1, "timed_out": false,
                "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
                "hits": { "total": { "value": 5, "relation": "eq" }, "hits": answer } });
            let page = match request.read_with(&response, id) {
                Ok(page) => page,
                Err(e) => {
                    assert!(
                        matches!(e.kind(), ErrorKind::BudgetTooSmall { .. }),
                        "{e:?}"
                    );
                    break;
                }
            };
            assert!(page.to_json().unwrap().len() <= max, "max {max}");
            seen.extend(page.items().iter().cloned());
            match page.next_cursor() {
                Some(next) => cursor = Some(next.clone()),
                None => {
                    assert!(page.is_complete());
                    assert_eq!(seen, all, "max {max}");
                    break;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Fan-out

fn fanout() -> Fanout {
    let search = Search::new(json!({ "match": { "message": "flush" } }))
        .sort(SortField::new("service", Order::Asc))
        .sort(SortField::new("latency", Order::Desc));
    Fanout::new(search)
        .cluster_with_pit("eu", "pit-eu")
        .cluster_with_pit("us", "pit-us")
}

#[test]
fn a_fanout_walk_merges_two_clusters_under_one_limit() {
    let fanout = fanout();
    let limits = Limits::new().limit(3);
    let pages: [&[(&str, &str)]; 3] = [
        &[("eu", "fanout-eu-1.json"), ("us", "fanout-us-1.json")],
        &[("eu", "fanout-eu-2.json"), ("us", "fanout-us-2.json")],
        &[("eu", "fanout-eu-3.json")],
    ];
    let mut cursor = None;
    let mut seen = Vec::new();
    for (n, replies) in pages.iter().enumerate() {
        let request = fanout.request(&limits, cursor.as_ref()).expect("requests");
        let asked: Vec<&str> = request.bodies().map(|(name, _)| name).collect();
        let expected: Vec<&str> = replies.iter().map(|(name, _)| *name).collect();
        assert_eq!(asked, expected, "page {}", n + 1);
        let page = request
            .read_with(
                replies
                    .iter()
                    .map(|(name, file)| (*name, Ok::<_, String>(recorded(file)))),
                id,
            )
            .expect("a page");
        check_wire(&page);
        seen.extend(page.items().iter().cloned());
        cursor = page.next_cursor().cloned();
        if n < 2 {
            assert!(
                page.completeness().is_truncated_by_limit(),
                "page {}",
                n + 1
            );
        } else {
            assert!(page.is_complete());
            assert_eq!(page.total(), Total::Exact(7));
            assert!(cursor.is_none());
        }
    }
    // The oracle: every hit of both clusters, by service, then latency
    // from the highest, then cluster.
    let mut all: Vec<(String, f64, usize, String)> = Vec::new();
    for (c, files) in [
        ["fanout-eu-1.json", "fanout-eu-2.json", "fanout-eu-3.json"].as_slice(),
        ["fanout-us-1.json", "fanout-us-2.json"].as_slice(),
    ]
    .iter()
    .enumerate()
    {
        for file in *files {
            for hit in recorded(file)["hits"]["hits"].as_array().unwrap() {
                let item = (
                    hit["sort"][0].as_str().unwrap().to_owned(),
                    -hit["sort"][1].as_f64().unwrap(),
                    c,
                    hit["_id"].as_str().unwrap().to_owned(),
                );
                if !all.contains(&item) {
                    all.push(item);
                }
            }
        }
    }
    all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let oracle: Vec<String> = all.into_iter().map(|t| t.3).collect();
    assert_eq!(seen, oracle);
}

#[test]
fn in_a_fanout_each_cluster_s_count_is_measured_at_its_own_position() {
    // After page 1, eu stands at its hit 2 and us at its hit 1 (the page's
    // start is 3). On page 2 eu returns two hits of a page of 4 asked for
    // and counts 5: 2 + 2 = 4 of them are accounted for, so one is
    // missing; measured from the page's start (3 + 2 = 5) it would not
    // seem so.
    let fanout = fanout();
    let limits = Limits::new().limit(3);
    let first = fanout.request(&limits, None).unwrap();
    let page1 = first
        .read_with(
            [
                ("eu", Ok::<_, String>(recorded("fanout-eu-1.json"))),
                ("us", Ok(recorded("fanout-us-1.json"))),
            ],
            id,
        )
        .unwrap();
    let request = fanout.request(&limits, page1.next_cursor()).unwrap();
    let mut eu = recorded("fanout-eu-2.json");
    eu["hits"]["hits"].as_array_mut().unwrap().truncate(2);
    let page = request
        .read_with(
            [
                ("eu", Ok::<_, String>(eu)),
                ("us", Ok(recorded("fanout-us-2.json"))),
            ],
            id,
        )
        .expect("a page");
    check_wire(&page);
    assert_eq!(page.start(), 3);
    assert!(!page.is_complete());
    assert!(page.disclosure().is_subset());
    assert!(page.next_cursor().is_none());
    assert!(page.total().value() >= 7, "{:?}", page.total());
    let note = note_of(&page);
    assert!(note.contains("Cluster eu returned 2 hits"), "{note}");
    assert!(note.contains("2 of them before this page"), "{note}");
    // As recorded, every cluster's count is within its own position plus
    // its hits: a prefix cut by the limit, with a cursor.
    let page = request
        .read_with(
            [
                ("eu", Ok::<_, String>(recorded("fanout-eu-2.json"))),
                ("us", Ok(recorded("fanout-us-2.json"))),
            ],
            id,
        )
        .expect("a page");
    assert!(page.completeness().is_truncated_by_limit());
    assert!(page.next_cursor().is_some());
}

#[test]
fn a_clamped_limit_is_disclosed_whichever_cluster_stops_the_page() {
    // eu is cut after its third hit; us's one hit sorts after it. Exactly
    // the limit's three hits are certain, so eu's cut stops the page, and
    // the clamp of the limit is still stated.
    let limits = Limits::new().ceiling(3).limit(50);
    let request = fanout().request(&limits, None).unwrap();
    assert_eq!(request.bodies().next().unwrap().1["size"], 4);
    let eu = recorded("fanout-eu-1.json");
    let mut us = recorded("fanout-us-1.json");
    us["hits"]["hits"] =
        json!([{ "_index": "logs-us", "_id": "us9", "_source": {}, "sort": ["zeta", 1.0, 1] }]);
    // Its count says so too: one hit, not a part of its answer missing.
    us["hits"]["total"]["value"] = json!(1);
    let page = request
        .read_with([("eu", Ok::<_, String>(eu)), ("us", Ok(us))], id)
        .expect("a page");
    assert_eq!(page.items(), ["eu0", "eu1", "eu2"]);
    assert_eq!(
        page.completeness(),
        &Completeness::TruncatedByLimit {
            limit: 3,
            requested: Some(50)
        }
    );
}

#[test]
fn a_cluster_that_fails_is_named_on_every_page_of_the_walk() {
    let search = Search::new(json!({ "match": { "message": "flush" } }))
        .sort(SortField::new("service", Order::Asc))
        .sort(SortField::new("latency", Order::Desc));
    let fanout = Fanout::new(search)
        .cluster_with_pit("eu", "pit-eu")
        .cluster_with_pit("ap", "pit-ap");
    let limits = Limits::new().limit(3);
    let request = fanout.request(&limits, None).unwrap();
    let page1 = request
        .read_with(
            [
                ("eu", Ok(recorded("fanout-eu-1.json"))),
                ("ap", Err("connection refused")),
            ],
            id,
        )
        .expect("page 1");
    check_wire(&page1);
    assert!(!page1.is_complete());
    assert_eq!(page1.items(), ["eu0", "eu1", "eu2"]);
    let failure = &page1.skipped().sample()[0];
    assert_eq!(
        (failure.path(), failure.reason().as_str()),
        ("ap", "cluster_failure")
    );
    assert_eq!(failure.detail(), Some("connection refused"));
    // A truncated page's total is a lower bound: "ap" holds unknown hits.
    assert!(matches!(page1.total(), Total::AtLeast(_)));

    // Page 2 does not ask "ap" again, and still names it.
    let request = fanout.request(&limits, page1.next_cursor()).unwrap();
    let bodies: Vec<(&str, &Value)> = request.bodies().collect();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0].0, "eu");
    assert_eq!(bodies[0].1["search_after"], json!(["db", 1.5, 1]));
    // The hits after eu2: the recording of page 2 from its second hit.
    let mut reply = recorded("fanout-eu-2.json");
    reply["hits"]["hits"].as_array_mut().unwrap().remove(0);
    let page2 = request
        .read_with([("eu", Ok::<_, String>(reply))], id)
        .expect("page 2");
    check_wire(&page2);
    assert!(!page2.is_complete());
    assert_eq!(page2.completeness(), &Completeness::Exact);
    assert_eq!(page2.items(), ["eu3", "eu4"]);
    assert_eq!(page2.skipped().sample()[0].path(), "ap");
    assert!(page2.summary("hits").contains("could not be searched"));
}

#[test]
fn a_cluster_that_times_out_makes_the_merged_page_a_subset() {
    let fanout = fanout();
    let limits = Limits::new().limit(3);
    let request = fanout.request(&limits, None).unwrap();
    let page = request
        .read_with(
            [
                ("eu", Ok::<_, String>(recorded("fanout-eu-1.json"))),
                ("us", Ok(recorded("timeout-2.json"))),
            ],
            id,
        )
        .expect("a page");
    check_wire(&page);
    assert!(page.disclosure().is_subset());
    assert!(page.next_cursor().is_none());
    assert_eq!(page.disclosure().limit_reached(), Some(3));
    assert!(
        page.to_json()
            .unwrap()
            .contains("Cluster us timed out after 1012 ms")
    );
    // A missing reply is a failure, never a dropped cluster.
    let page = fanout
        .request(&limits, None)
        .unwrap()
        .read_with([("eu", Ok::<_, String>(recorded("fanout-eu-1.json")))], id)
        .expect("a page");
    assert_eq!(page.skipped().sample()[0].path(), "us");
    assert_eq!(page.skipped().sample()[0].detail(), Some("no reply"));
    // A reply of a cluster not in the fan-out is refused.
    let err = fanout
        .request(&limits, None)
        .unwrap()
        .read_with(
            [("mars", Ok::<_, String>(recorded("fanout-eu-1.json")))],
            id,
        )
        .expect_err("unknown cluster");
    assert!(matches!(
        err.kind(),
        ErrorKind::InvalidArgument {
            name: "replies",
            ..
        }
    ));
}

#[test]
fn the_adapter_s_types_are_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<Search>();
    both::<SortField>();
    both::<Order>();
    both::<TieBreaker>();
    both::<candor::opensearch::Request>();
    both::<Fanout>();
    both::<candor::opensearch::FanoutRequest>();
}

#[test]
fn a_double_field_s_missing_values_merge_last_as_the_engines_write_them() {
    // On a double field the engines stand in an infinity for a missing
    // value and write it as a string: "-Infinity" descending, "Infinity"
    // ascending, so that the document sorts last
    // (elastic/elasticsearch#24774, #44904).
    let reply = |hits: Value| {
        json!({ "took": 1, "timed_out": false,
            "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
            "hits": { "total": { "value": 2, "relation": "eq" }, "hits": hits } })
    };
    for (order, missing) in [(Order::Desc, "-Infinity"), (Order::Asc, "Infinity")] {
        let fanout =
            Fanout::new(Search::new(json!({ "match_all": {} })).sort(SortField::new("lat", order)))
                .cluster_with_pit("eu", "pit-eu")
                .cluster_with_pit("us", "pit-us");
        let (first, second) = match order {
            Order::Desc => (5.0, 3.0),
            Order::Asc => (3.0, 5.0),
        };
        let eu = reply(json!([
            { "_id": "e1", "sort": [first, 1] },
            { "_id": "e2", "sort": [missing, 2] } ]));
        let us = reply(json!([
            { "_id": "u1", "sort": [second, 3] },
            { "_id": "u2", "sort": [missing, 4] } ]));
        let request = fanout.request(&Limits::new().limit(10), None).unwrap();
        let page = request
            .read_with([("eu", Ok::<_, String>(eu)), ("us", Ok(us))], id)
            .expect("a page");
        assert!(page.is_complete());
        assert_eq!(page.items(), &["e1", "u1", "e2", "u2"], "{order:?}");
    }
}

#[test]
fn one_hit_shown_twice_is_refused() {
    // The sort ends with a unique tie-breaker: two hits with the same sort
    // values are one hit twice, which no page may show.
    let search = Search::new(json!({ "match_all": {} }))
        .sort(SortField::new("n", Order::Asc))
        .tie_breaker(TieBreaker::Field("key".into()));
    let request = search.request(&Limits::new().limit(5), None).unwrap();
    let response = json!({ "took": 1, "timed_out": false,
        "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
        "hits": { "total": { "value": 2, "relation": "eq" }, "hits": [
            { "_id": "a", "sort": [1, "a"] }, { "_id": "a", "sort": [1, "a"] } ] } });
    let err = request.read_with(&response, id).expect_err("a duplicate");
    assert!(err.to_string().contains("same sort values"), "{err}");
}

//! The OpenSearch / Elasticsearch adapter over generated responses: no
//! response makes a page that reads as whole while the cluster's own
//! figures say, or cannot rule out, that its answer was cut; and every
//! cursor a page issues decodes and resumes at the right start, after the
//! right hit.
//!
//! A response is generated field by field as the search API documents
//! its body
//! (<https://www.elastic.co/guide/en/elasticsearch/reference/current/search-search.html#search-api-response-body>):
//! the hits against `size` (the limit plus one), `hits.total` (absent,
//! `eq` or `gte`, its value anywhere or near the hits before and on the
//! page), `timed_out`, `terminated_early`, `_shards` (`total`,
//! `successful`, `skipped`, `failed`, `failures[]`), the page's start
//! (from a cursor), and sort values nested up to past what a cursor
//! holds. The oracle ([`Answer::whole`]) is written here from those
//! figures alone.
#![cfg(feature = "opensearch")]

use candor::opensearch::{Fanout, Order, Search, SortField, TieBreaker};
use candor::{Bounded, Cursor, ErrorKind, Limits, Total};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::core_support::config;

/// How deep a sort value may nest: a cursor key nests at most 32 levels,
/// three of them around each sort value (clusters, a cluster's position,
/// its `after` list).
const DEEPEST_SORT_VALUE: usize = 32 - 3;

/// `hits.total.value`, as generated: near the hits before and on the page
/// (the figure the rule turns on), or any count.
#[derive(Debug, Clone, Copy)]
enum Figure {
    /// The hits before the page and on it, plus this.
    Near(i64),
    Any(u64),
}

/// A generated search response, and what it says.
#[derive(Debug, Clone)]
struct Answer {
    timed_out: bool,
    terminated_early: bool,
    shards: u64,
    successful: u64,
    skipped: u64,
    failed: u64,
    failures: usize,
    /// `hits.total`: absent, or a figure with `eq` (true) or `gte`.
    total: Option<(Figure, bool)>,
    hits: usize,
    /// How many arrays wrap each hit's first sort value.
    nest: usize,
}

impl Answer {
    /// `hits.total.value` for a page after `start` of the cluster's hits.
    fn total_value(&self, start: u64) -> Option<(u64, bool)> {
        self.total.map(|(figure, eq)| {
            let value = match figure {
                Figure::Near(delta) => (start as i64 + self.hits as i64 + delta).max(0) as u64,
                Figure::Any(n) => n,
            };
            (value, eq)
        })
    }

    /// The oracle: whether the response's own figures rule out every cut
    /// of a page of `limit` after `start` of the cluster's hits. Not when
    /// it timed out or terminated early, a shard failed or did not answer,
    /// more hits came than the limit, or its count (of its whole answer,
    /// `eq` or a `gte` lower bound) is above the hits before and on the
    /// page.
    fn whole(&self, start: u64, limit: usize) -> bool {
        let counted_past = self
            .total_value(start)
            .is_some_and(|(value, _)| value > start + self.hits as u64);
        !self.timed_out
            && !self.terminated_early
            && self.failed == 0
            && self.failures == 0
            && self.successful >= self.shards
            && self.hits <= limit
            && !counted_past
    }

    /// Whether an exact total may be stated: an `eq` count of a search
    /// every shard answered in time.
    fn exact_count(&self) -> bool {
        matches!(self.total, Some((_, true)))
            && !self.timed_out
            && !self.terminated_early
            && self.failed == 0
            && self.failures == 0
            && self.successful >= self.shards
    }

    /// The sort values of the cluster's hit `n` (`tag` names the cluster).
    fn sort_of(&self, tag: &str, n: u64) -> Value {
        json!([wrap(json!(n), self.nest), format!("{tag}h{n:09}")])
    }

    /// The response's JSON: its hits are the cluster's `from + 1`, ...
    fn to_json(&self, tag: &str, from: u64) -> Value {
        let hits: Vec<Value> = (0..self.hits)
            .map(|i| {
                let n = from + i as u64 + 1;
                json!({ "_index": "i", "_id": format!("{tag}h{n}"), "_source": { "n": n }, "sort": self.sort_of(tag, n) })
            })
            .collect();
        let failures: Vec<Value> = (0..self.failures)
            .map(|i| json!({ "shard": i, "index": "i", "reason": { "type": "es_rejected_execution_exception", "reason": "rejected" } }))
            .collect();
        let mut response = json!({
            "took": 7,
            "timed_out": self.timed_out,
            "_shards": { "total": self.shards, "successful": self.successful,
                         "skipped": self.skipped, "failed": self.failed, "failures": failures },
            "hits": { "hits": hits },
        });
        if self.terminated_early {
            response["terminated_early"] = json!(true);
        }
        if let Some((value, eq)) = self.total_value(from) {
            response["hits"]["total"] =
                json!({ "value": value, "relation": if eq { "eq" } else { "gte" } });
        }
        response
    }
}

/// `value` inside `levels` arrays.
fn wrap(value: Value, levels: usize) -> Value {
    (0..levels).fold(value, |v, _| json!([v]))
}

/// A response to a page of `limit`, its first sort value in `nest`
/// arrays; `fault` is how likely each figure is to say something went
/// wrong (a time-out, a failed shard, ...).
fn answer(
    limit: usize,
    nest: impl Strategy<Value = usize>,
    fault: f64,
) -> impl Strategy<Value = Answer> {
    let figure = prop_oneof![
        3 => (-3i64..4).prop_map(Figure::Near),
        1 => (0u64..30_000).prop_map(Figure::Any),
    ];
    let some = move |range: std::ops::Range<u64>| {
        prop::option::weighted(fault, range).prop_map(|n| n.unwrap_or(0))
    };
    (
        (prop::bool::weighted(fault), prop::bool::weighted(fault)),
        (1u64..6, some(1..3), 0u64..3, some(1..3)),
        some(1..3).prop_map(|n| n as usize),
        prop::option::weighted(0.85, (figure, prop::bool::weighted(0.7))),
        0usize..=limit + 2,
        nest,
    )
        .prop_map(
            |(
                (timed_out, terminated_early),
                (shards, missing, skipped, failed),
                failures,
                total,
                hits,
                nest,
            )| Answer {
                timed_out,
                terminated_early,
                shards,
                successful: shards.saturating_sub(missing),
                skipped: skipped.min(shards),
                // More failed shards than shards is refused as no search
                // response (a unit test of the reader states it).
                failed: failed.min(shards),
                failures,
                total,
                hits,
                nest,
            },
        )
}

fn property_search() -> Search {
    Search::new(json!({ "match_all": {} }))
        .sort(SortField::new("n", Order::Asc))
        .tie_breaker(TieBreaker::Field("key".into()))
}

fn id(hit: &Value) -> Result<String, &'static str> {
    hit["_id"].as_str().map(String::from).ok_or("no _id")
}

/// A response with no hit and nothing cut: what a cluster answers past
/// the end.
fn empty() -> Value {
    json!({ "took": 1, "timed_out": false,
        "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
        "hits": { "hits": [] } })
}

/// The rules every page obeys, whatever the response said.
fn check_page(page: &Bounded<String>, start: u64, limit: usize, hits: usize) {
    assert_eq!(page.start(), start);
    assert!(page.len() <= limit);
    assert!(page.total().value() >= start + page.len() as u64);
    if hits > limit {
        assert!(
            page.completeness().is_truncated(),
            "{hits} hits for {limit}"
        );
        assert!(page.total().value() > start + limit as u64);
    }
    if page.disclosure().is_subset() {
        assert!(page.next_cursor().is_none());
    }
    let text = page.to_json().unwrap();
    let back: Bounded<String> = serde_json::from_str(&text).expect("the decoder's rules hold");
    assert_eq!(&back, page);
}

/// The cursor a page issued decodes, resumes at the hit after its last
/// (as `search_after`) and at its start (the page's start plus its
/// hits), and the page read there says so.
fn check_resumes(
    search: &Search,
    limits: &Limits,
    page: &Bounded<String>,
    cursor: &Cursor,
    sort: &Value,
) {
    let reparsed = Cursor::parse(cursor.as_str()).expect("an issued cursor parses");
    assert_eq!(reparsed.start(), page.start() + page.len() as u64);
    let request = search
        .request(limits, Some(&reparsed))
        .expect("an issued cursor resumes");
    assert_eq!(&request.body()["search_after"], sort);
    let next = request.read_with(&empty(), id).expect("the next page");
    assert_eq!(next.start(), reparsed.start());
}

proptest! {
    #![proptest_config(config(512))]

    /// No response makes a page that reads as whole while the cluster's
    /// figures say, or cannot rule out, that the answer was cut; without
    /// a byte budget, one whose figures rule out every cut reads as
    /// whole; a sort value too deep for a cursor is refused; and every
    /// cursor issued resumes after the page's last hit, at its end.
    #[test]
    fn a_page_is_whole_only_when_the_figures_rule_out_every_cut_and_its_cursor_resumes(
        (limit, answer) in (0usize..4).prop_flat_map(|limit| {
            (Just(limit), answer(limit, prop_oneof![6 => Just(0usize), 1 => 1usize..4, 1 => 28usize..32], 0.2))
        }),
        start in prop_oneof![Just(0u64), 1u64..20, 9_990u64..10_020],
        max_bytes in prop::option::weighted(0.3, 150usize..900),
    ) {
        let search = property_search();
        let mut limits = Limits::new().limit(limit);
        if let Some(max) = max_bytes {
            limits = limits.max_bytes(max);
        }
        let cursor = (start > 0).then(|| {
            let key = json!([{ "after": [start, format!("h{start:09}")], "start": start }]);
            search.scope().cursor(&key, start)
        });
        let request = search.request(&limits, cursor.as_ref()).expect("a request");
        let page = match request.read_with(&answer.to_json("", start), id) {
            Ok(page) => page,
            Err(e) if answer.nest > DEEPEST_SORT_VALUE && answer.hits > 0 => {
                prop_assert!(
                    matches!(e.kind(), ErrorKind::InvalidArgument { name: "response", .. }),
                    "{e:?}"
                );
                return Ok(());
            }
            Err(e) => {
                prop_assert!(matches!(e.kind(), ErrorKind::BudgetTooSmall { .. }), "{e:?}");
                return Ok(());
            }
        };
        prop_assert!(
            answer.nest <= DEEPEST_SORT_VALUE || answer.hits == 0,
            "a sort value nested {} deep was read", answer.nest
        );
        let whole = answer.whole(start, limit);
        if page.is_complete() {
            prop_assert!(whole, "{answer:?} read as whole: {}", page.to_json().unwrap());
        }
        if let Some(max) = max_bytes {
            let text = page.to_json().unwrap();
            prop_assert!(text.len() <= max);
            let back: Bounded<String> = serde_json::from_str(&text).expect("the decoder's rules hold");
            prop_assert_eq!(&back, &page);
        } else {
            check_page(&page, start, limit, answer.hits);
            if whole {
                prop_assert!(page.is_complete());
                prop_assert_eq!(page.len(), answer.hits);
            }
        }
        // An exact total of a cut page comes only from an `eq` count of a
        // search every shard answered in time.
        if matches!(page.total(), Total::Exact(_)) && page.completeness().is_truncated() {
            prop_assert!(answer.exact_count(), "{answer:?}");
        }
        if let Some(next) = page.next_cursor() {
            prop_assert!(!page.disclosure().is_subset());
            let last = start + page.len() as u64;
            check_resumes(&search, &limits, &page, next, &answer.sort_of("", last));
        }
    }

    /// Across clusters, each at its own position: the merged page is
    /// whole only when every cluster answered and each one's figures,
    /// at its own position, rule out every cut, and the hits fit the
    /// limit; its cursor resumes each cluster after its last hit shown.
    #[test]
    fn a_fanout_page_is_whole_only_when_every_cluster_is_at_its_own_position(
        (limit, answers) in (0usize..4).prop_flat_map(|limit| {
            (
                Just(limit),
                prop::collection::vec(
                    (prop::option::weighted(0.9, answer(limit, Just(0usize), 0.05)), prop_oneof![Just(0u64), 1u64..9]),
                    1..4,
                ),
            )
        }),
    ) {
        let names: Vec<String> = (0..answers.len()).map(|i| format!("c{i}")).collect();
        let mut fanout = Fanout::new(property_search());
        for name in &names {
            fanout = fanout.cluster(name.clone());
        }
        let limits = Limits::new().limit(limit);
        // Each cluster resumes at its own position (its `start` hits shown).
        let starts: Vec<u64> = answers.iter().map(|(_, s)| *s).collect();
        let cursor = starts.iter().any(|s| *s > 0).then(|| {
            let key: Vec<Value> = names
                .iter()
                .zip(&starts)
                .map(|(name, s)| json!({ "after": [s, format!("{name}h{s:09}")], "start": s }))
                .collect();
            fanout.scope().cursor(&Value::Array(key), starts.iter().sum())
        });
        let request = fanout.request(&limits, cursor.as_ref()).expect("requests");
        let replies: Vec<(String, Result<Value, String>)> = names
            .iter()
            .zip(&answers)
            .map(|(name, (answer, start))| match answer {
                Some(answer) => (name.clone(), Ok(answer.to_json(name, *start))),
                None => (name.clone(), Err("timed out connecting".to_owned())),
            })
            .collect();
        let page = request.read_with(replies, id).expect("a page");
        let all_whole = answers
            .iter()
            .all(|(a, start)| a.as_ref().is_some_and(|a| a.whole(*start, limit)));
        let total_hits: usize = answers.iter().filter_map(|(a, _)| a.as_ref()).map(|a| a.hits).sum();
        if page.is_complete() {
            prop_assert!(all_whole && total_hits <= limit, "{answers:?}");
        }
        if all_whole && total_hits <= limit {
            prop_assert!(page.is_complete());
        }
        prop_assert_eq!(page.start(), starts.iter().sum::<u64>());
        prop_assert!(page.total().value() >= page.start() + page.len() as u64);
        let text = page.to_json().unwrap();
        let back: Bounded<String> = serde_json::from_str(&text).expect("the decoder's rules hold");
        prop_assert_eq!(&back, &page);
        if let Some(next) = page.next_cursor() {
            let reparsed = Cursor::parse(next.as_str()).expect("an issued cursor parses");
            prop_assert_eq!(reparsed.start(), page.start() + page.len() as u64);
            let resumed = fanout.request(&limits, Some(&reparsed)).expect("an issued cursor resumes");
            // Each cluster asked again resumes after its last hit shown
            // (ids are `<cluster>h<n>`), or where it stood.
            for (name, body) in resumed.bodies() {
                let c = names.iter().position(|n| n == name).expect("a cluster of the search");
                let shown = page
                    .items()
                    .iter()
                    .filter_map(|item| item.strip_prefix(&format!("{name}h")))
                    .filter_map(|n| n.parse::<u64>().ok())
                    .max()
                    .unwrap_or(starts[c]);
                let expected = if shown == 0 && cursor.is_none() {
                    Value::Null
                } else {
                    json!([shown, format!("{name}h{shown:09}")])
                };
                prop_assert_eq!(&body["search_after"], &expected);
            }
        }
    }
}

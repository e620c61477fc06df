//! The `opensearch` check: any bytes read as a search response give a
//! page or a clear error, never a panic; a page never reads as whole when
//! the response's own figures say, or cannot rule out, that the answer was
//! cut; and a cursor it issues resumes at its end.
//!
//! An input is a header line, `<limit> <start>` (a page of `limit` hits,
//! resumed after the cluster's hit `start`, or a first page when it is
//! 0), then the response's JSON. The search sorts by one field and a
//! tie-breaker, so each hit carries two sort values.
//!
//! The oracle reads the figures as the search API documents them
//! (<https://www.elastic.co/guide/en/elasticsearch/reference/current/search-search.html#search-api-response-body>):
//! a time-out, `terminated_early`, a failed or unanswered shard, a named
//! failure, a remote cluster skipped, failed or partial, more hits than
//! the limit, or a `hits.total` above the hits before and on the page
//! each mean the page is not whole; a figure it cannot read (present but
//! not what the API documents) cannot rule a cut out.

use candor::opensearch::{Order, Search, SortField, TieBreaker};
use candor::{Bounded, ErrorKind, Limits};
use serde_json::{Value, json};

/// The longest limit an input asks for.
const MAX_LIMIT: usize = 64;

/// Checks one input.
pub fn check(data: &[u8]) {
    let Some((limit, start, response)) = parse(data) else {
        return;
    };
    let search = Search::new(json!({ "match_all": {} }))
        .sort(SortField::new("n", Order::Asc))
        .tie_breaker(TieBreaker::Field("key".into()));
    let limits = Limits::new().limit(limit);
    let cursor = (start > 0).then(|| {
        let key = json!([{ "after": [start, "k"], "start": start }]);
        search.scope().cursor(&key, start)
    });
    let request = search
        .request(&limits, cursor.as_ref())
        .expect("a request from a cursor of this search");
    let page: Bounded<Value> =
        match request.read_with(&response, |hit| Ok::<_, &str>(hit["_id"].clone())) {
            Ok(page) => page,
            Err(e) => {
                assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::InvalidArgument { .. } | ErrorKind::StaleCursor { .. }
                    ),
                    "an unexpected error: {e:?}"
                );
                return;
            }
        };
    if page.is_complete() {
        if let Some(cut) = cut(&response, start, limit) {
            panic!(
                "whole while the response says {cut}: {}",
                page.to_json().unwrap_or_default()
            );
        }
    }
    assert_eq!(page.start(), start);
    assert!(page.len() <= limit);
    assert!(page.total().value() >= start + page.len() as u64);
    if page.disclosure().is_subset() {
        assert!(page.next_cursor().is_none(), "a subset with a cursor");
    }
    let text = page.to_json().expect("a page encodes");
    let back: Bounded<Value> = serde_json::from_str(&text).expect("a page's wire shape decodes");
    assert_eq!(back, page);
    if let Some(next) = page.next_cursor() {
        let reparsed = candor::Cursor::parse(next.as_str()).expect("an issued cursor parses");
        assert_eq!(reparsed.start(), start + page.len() as u64);
        let again = search
            .request(&limits, Some(&reparsed))
            .expect("an issued cursor resumes");
        assert!(again.body()["search_after"].is_array());
    }
}

/// The header's limit and start, and the response.
fn parse(data: &[u8]) -> Option<(usize, u64, Value)> {
    let newline = data.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&data[..newline]).ok()?;
    let mut words = header.split_whitespace();
    let limit: usize = words.next()?.parse().ok()?;
    let start: u64 = words.next()?.parse().ok()?;
    let response = serde_json::from_slice(&data[newline + 1..]).ok()?;
    Some((limit.min(MAX_LIMIT), start, response))
}

/// What in the response says, or cannot rule out, that the answer of a
/// page of `limit` after `start` hits was cut; `None` when nothing does.
fn cut(response: &Value, start: u64, limit: usize) -> Option<String> {
    // A count the API documents: absent is none, anything but a
    // non-negative integer cannot rule one out.
    let count = |object: &Value, key: &str| -> Result<u64, String> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(0),
            Some(v) => v.as_u64().ok_or_else(|| format!("{key} = {v}")),
        }
    };
    let check = || -> Result<Option<String>, String> {
        if response.get("timed_out") != Some(&Value::Bool(false)) {
            return Ok(Some("timed_out is not false".into()));
        }
        if response.get("terminated_early") == Some(&Value::Bool(true)) {
            return Ok(Some("terminated_early".into()));
        }
        let shards = &response["_shards"];
        let total = count(shards, "total")?;
        let successful = count(shards, "successful")?;
        if count(shards, "failed")? > 0 || successful < total {
            return Ok(Some("a shard failed or did not answer".into()));
        }
        if shards["failures"].as_array().is_some_and(|f| !f.is_empty()) {
            return Ok(Some("_shards.failures".into()));
        }
        let clusters = &response["_clusters"];
        for key in ["skipped", "failed", "partial"] {
            if count(clusters, key)? > 0 {
                return Ok(Some(format!("_clusters.{key}")));
            }
        }
        let hits = response["hits"]["hits"].as_array().map_or(0, Vec::len) as u64;
        if hits > limit as u64 {
            return Ok(Some(format!("{hits} hits for a limit of {limit}")));
        }
        let counted = match &response["hits"]["total"] {
            Value::Null => 0,
            Value::Number(n) => n.as_u64().ok_or_else(|| format!("hits.total = {n}"))?,
            object => count(object, "value")?,
        };
        if counted > start + hits {
            return Ok(Some(format!(
                "hits.total {counted} is above the {start} hits before and {hits} on the page"
            )));
        }
        Ok(None)
    };
    check().unwrap_or_else(|unreadable| Some(format!("a figure it cannot read ({unreadable})")))
}

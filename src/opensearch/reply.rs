//! One cluster's response to a page's request, read as the search API
//! documents it: the hits with their sort values, `hits.total`,
//! `timed_out`, `terminated_early`, `_shards` and its `failures`, the
//! point in time's latest id; or an error response, told apart when it
//! says the point in time expired.
//!
//! Shapes: <https://www.elastic.co/guide/en/elasticsearch/reference/current/search-search.html#search-api-response-body>
//! and <https://opensearch.org/docs/latest/api-reference/search/>.

use serde_json::Value;

use crate::Total;
use crate::cluster::{clip, count_at, response_error};
use crate::cursor::MAX_JSON_DEPTH;
use crate::error::Error;

/// The error `type` of a point in time (or scroll) the cluster no longer
/// holds.
const CONTEXT_MISSING: &str = "search_context_missing_exception";

/// The longest engine message kept in a skip's detail or an error.
const MAX_MESSAGE: usize = 300;

/// How deep arrays and objects may nest in a sort value: a cursor key
/// holds each sort value three levels down (the list of clusters, a
/// cluster's position, its `after` list), and a key nests at most
/// [`MAX_JSON_DEPTH`] levels, so that a cursor issued after a deeper one
/// could not be read back.
pub(crate) const MAX_SORT_DEPTH: usize = MAX_JSON_DEPTH - 3;

/// What a cluster answered.
#[derive(Debug)]
pub(crate) enum Outcome<'a> {
    /// A search response (possibly with failed shards, or timed out).
    Reply(Reply<'a>),
    /// The point in time has expired (or was closed): the walk cannot go
    /// on from the cursor.
    Expired(String),
    /// An error response: the cluster answered nothing (why, in its
    /// words).
    Failed(String),
}

/// A search response.
#[derive(Debug)]
pub(crate) struct Reply<'a> {
    /// The point in time's latest id, when the search had one.
    pub(crate) pit_id: Option<String>,
    /// How long the search took, in milliseconds.
    pub(crate) took: Option<u64>,
    pub(crate) timed_out: bool,
    pub(crate) terminated_early: bool,
    /// `hits.total`, counting the whole answer; `None` when not tracked.
    pub(crate) total: Option<Total>,
    /// Shards that failed: at least `_shards.failed`, and every shard
    /// neither successful nor failed.
    pub(crate) failed_shards: u64,
    /// The failures the response names (grouped: one entry can stand for
    /// several shards that failed alike).
    pub(crate) failures: Vec<ShardFailure>,
    /// Shards the engine ruled out before searching them (`_shards.skipped`).
    pub(crate) skipped_shards: u64,
    /// Remote clusters of a cross-cluster search that were not searched
    /// whole (`_clusters.skipped`, `failed` and `partial`): their shards
    /// are not in `_shards`, so their hits are missing unseen.
    pub(crate) unsearched_clusters: u64,
    pub(crate) hits: Vec<Hit<'a>>,
}

/// One hit, and its sort values.
#[derive(Debug)]
pub(crate) struct Hit<'a> {
    pub(crate) hit: &'a Value,
    pub(crate) sort: Vec<Value>,
}

/// A shard that failed, as the response names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShardFailure {
    pub(crate) index: Option<String>,
    pub(crate) shard: Option<i64>,
    /// The failure's `reason.type`, such as `query_shard_exception`.
    pub(crate) kind: Option<String>,
    /// The failure's `reason.reason`, clipped.
    pub(crate) message: Option<String>,
}

impl ShardFailure {
    fn read(value: &Value) -> ShardFailure {
        let reason = value.get("reason");
        ShardFailure {
            index: value.get("index").and_then(Value::as_str).map(String::from),
            shard: value.get("shard").and_then(Value::as_i64),
            kind: reason
                .and_then(|r| r.get("type"))
                .and_then(Value::as_str)
                .map(String::from),
            message: reason
                .and_then(|r| {
                    r.get("reason")
                        .and_then(Value::as_str)
                        .or_else(|| r.as_str())
                })
                .map(|m| clip(m, MAX_MESSAGE)),
        }
    }

    /// The name of the input that failed: `index/shard N`.
    pub(crate) fn name(&self) -> String {
        let shard = self
            .shard
            .map_or_else(|| "shard ?".to_owned(), |n| format!("shard {n}"));
        match &self.index {
            Some(index) => format!("{index}/{shard}"),
            None => shard,
        }
    }
}

/// Reads a response to a request whose hits carry `sort_len` sort values.
///
/// # Errors
///
/// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) named
/// `response` when the JSON is neither a search response nor an error
/// response, or a hit lacks its sort values.
pub(crate) fn read(response: &Value, sort_len: usize) -> Result<Outcome<'_>, Error> {
    if let Some(error) = response.get("error") {
        return Ok(read_error(error));
    }
    let timed_out = match response.get("timed_out") {
        Some(Value::Bool(b)) => *b,
        _ => return Err(not_search("no boolean timed_out")),
    };
    let terminated_early = match response.get("terminated_early") {
        // Written only when `terminate_after` was asked for, and then as a
        // boolean: a null says neither.
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(not_search("terminated_early is not a boolean")),
    };
    let shards = ShardCounts::read(response)?;
    let unsearched_clusters = unsearched_clusters(response)?;
    let failures: Vec<ShardFailure> = match shards.object.get("failures") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(ShardFailure::read).collect(),
        Some(_) => return Err(not_search("_shards.failures is not a list")),
    };
    if failures
        .iter()
        .any(|f| f.kind.as_deref() == Some(CONTEXT_MISSING))
    {
        return Ok(Outcome::Expired(expired_detail(&failures)));
    }
    let hits_object = response
        .get("hits")
        .filter(|h| h.is_object())
        .ok_or_else(|| not_search("no hits object"))?;
    let total = read_total(hits_object)?;
    let hits = read_hits(hits_object, sort_len)?;
    Ok(Outcome::Reply(Reply {
        pit_id: response
            .get("pit_id")
            .and_then(Value::as_str)
            .map(String::from),
        took: count_at(response, "took"),
        timed_out,
        terminated_early,
        total,
        failed_shards: shards.failed.max(failures.len() as u64),
        failures,
        skipped_shards: shards.skipped,
        unsearched_clusters,
        hits,
    }))
}

/// The error of a JSON that is not a search response, saying `what`.
fn not_search(what: &str) -> Error {
    response_error(format!(
        "not a search response: {what} (see the search API's response body)"
    ))
}

/// A count at `key` in `object` that may be absent: absent says nothing
/// went that way; present but not a count cannot rule it out.
fn optional_count(object: &Value, key: &str) -> Result<u64, Error> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(0),
        Some(_) => {
            count_at(object, key).ok_or_else(|| not_search(&format!("{key} is not a count")))
        }
    }
}

/// A response's `_shards`, with the counts a page is judged by.
struct ShardCounts<'a> {
    object: &'a Value,
    /// Shards that failed: at least `_shards.failed`, and every shard
    /// neither successful nor failed.
    failed: u64,
    /// `_shards.skipped`.
    skipped: u64,
}

impl ShardCounts<'_> {
    /// Reads `_shards`, refusing counts that do not add up.
    fn read(response: &Value) -> Result<ShardCounts<'_>, Error> {
        let object = response
            .get("_shards")
            .filter(|s| s.is_object())
            .ok_or_else(|| not_search("no _shards object"))?;
        let (Some(total), Some(successful)) =
            (count_at(object, "total"), count_at(object, "successful"))
        else {
            return Err(not_search("_shards lacks total or successful"));
        };
        // Elasticsearch and OpenSearch write `failed` on every response:
        // one without it cannot rule out shards that failed.
        if object.get("failed").is_none_or(Value::is_null) {
            return Err(not_search("_shards lacks failed"));
        }
        if successful > total {
            return Err(not_search(
                "_shards counts more successful shards than shards in all",
            ));
        }
        let failed = optional_count(object, "failed")?;
        let skipped = optional_count(object, "skipped")?;
        if skipped > total || failed > total {
            return Err(not_search(
                "_shards counts more skipped or failed shards than shards in all",
            ));
        }
        Ok(ShardCounts {
            object,
            // A shard neither successful nor failed did not answer:
            // counted as failed, since its hits are missing.
            failed: failed.max(total.saturating_sub(successful)),
            skipped,
        })
    }
}

/// How many remote clusters a cross-cluster search did not search whole.
///
/// A cross-cluster search counts the remote clusters apart (`_clusters`);
/// one skipped (`skip_unavailable`), failed or partial answered with some
/// of its shards or none, which `_shards` omits.
fn unsearched_clusters(response: &Value) -> Result<u64, Error> {
    match response.get("_clusters") {
        None | Some(Value::Null) => Ok(0),
        Some(clusters) if clusters.is_object() => {
            let mut sum = 0u64;
            for key in ["skipped", "failed", "partial"] {
                sum = sum.saturating_add(optional_count(clusters, key)?);
            }
            Ok(sum)
        }
        Some(_) => Err(not_search("_clusters is not an object")),
    }
}

/// `hits.total`, counting the whole answer; `None` when not tracked.
fn read_total(hits_object: &Value) -> Result<Option<Total>, Error> {
    Ok(match hits_object.get("total") {
        None | Some(Value::Null) => None,
        // Before Elasticsearch 7, and with rest_total_hits_as_int, a
        // plain number: an exact count.
        Some(Value::Number(n)) => Some(Total::Exact(
            n.as_u64()
                .ok_or_else(|| not_search("hits.total is not a count"))?,
        )),
        Some(object) => {
            let value = count_at(object, "value")
                .ok_or_else(|| not_search("hits.total.value is not a count"))?;
            match object.get("relation").and_then(Value::as_str) {
                Some("eq") => Some(Total::Exact(value)),
                Some("gte") => Some(Total::AtLeast(value)),
                _ => return Err(not_search("hits.total.relation is neither eq nor gte")),
            }
        }
    })
}

/// `hits.hits`, each hit with its `sort_len` sort values.
fn read_hits(hits_object: &Value, sort_len: usize) -> Result<Vec<Hit<'_>>, Error> {
    let items = hits_object
        .get("hits")
        .and_then(Value::as_array)
        .ok_or_else(|| not_search("hits.hits is not a list"))?;
    let mut hits = Vec::with_capacity(items.len());
    for (i, hit) in items.iter().enumerate() {
        let sort = match hit.get("sort") {
            Some(Value::Array(values)) if values.len() == sort_len => values.clone(),
            Some(Value::Array(values)) => {
                return Err(response_error(format!(
                    "hit {i} carries {} sort values, the request sorts by {sort_len}",
                    values.len()
                )));
            }
            _ => {
                return Err(response_error(format!(
                    "hit {i} has no sort values: was the request's body sent as built?"
                )));
            }
        };
        if sort.iter().any(|v| nests_deeper(v, MAX_SORT_DEPTH)) {
            return Err(response_error(format!(
                "hit {i} has a sort value whose arrays and objects nest more than {MAX_SORT_DEPTH} levels deep, more than a cursor can carry back as search_after"
            )));
        }
        hits.push(Hit { hit, sort });
    }
    Ok(hits)
}

/// Whether `value`'s arrays and objects nest more than `max` levels
/// (a scalar nests 0, `[1]` 1, `[[1]]` 2); it looks no deeper than
/// `max + 1` levels, however deep the value.
fn nests_deeper(value: &Value, max: usize) -> bool {
    let children: Box<dyn Iterator<Item = &Value>> = match value {
        Value::Array(items) => Box::new(items.iter()),
        Value::Object(map) => Box::new(map.values()),
        _ => return false,
    };
    max == 0 || children.into_iter().any(|v| nests_deeper(v, max - 1))
}

/// An error response: an expired point in time, every shard failed
/// (which is a response with no hits), or another error.
fn read_error(error: &Value) -> Outcome<'_> {
    let kind = |v: &Value| v.get("type").and_then(Value::as_str).map(String::from);
    let mut kinds: Vec<String> = kind(error).into_iter().collect();
    for list in ["root_cause"] {
        if let Some(items) = error.get(list).and_then(Value::as_array) {
            kinds.extend(items.iter().filter_map(kind));
        }
    }
    if let Some(cause) = error.get("caused_by") {
        kinds.extend(kind(cause));
    }
    let failures: Vec<ShardFailure> = error
        .get("failed_shards")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(ShardFailure::read).collect())
        .unwrap_or_default();
    kinds.extend(failures.iter().filter_map(|f| f.kind.clone()));
    if kinds.iter().any(|k| k == CONTEXT_MISSING) {
        let mut detail = expired_detail(&failures);
        if failures.is_empty() {
            if let Some(reason) = error.get("reason").and_then(Value::as_str) {
                detail = clip(reason, MAX_MESSAGE);
            }
        }
        return Outcome::Expired(detail);
    }
    let message = match error {
        Value::String(text) => clip(text, MAX_MESSAGE),
        _ => {
            let reason = error.get("reason").and_then(Value::as_str).unwrap_or("");
            let kind = kind(error).unwrap_or_else(|| "error".into());
            clip(&format!("{kind}: {reason}"), MAX_MESSAGE)
        }
    };
    Outcome::Failed(message)
}

fn expired_detail(failures: &[ShardFailure]) -> String {
    failures
        .iter()
        .find(|f| f.kind.as_deref() == Some(CONTEXT_MISSING))
        .and_then(|f| f.message.clone())
        .unwrap_or_else(|| "the point in time is gone".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn response(shards: Value) -> Value {
        json!({
            "took": 3, "timed_out": false, "_shards": shards,
            "hits": { "total": { "value": 1, "relation": "eq" },
                      "hits": [ { "_id": "a", "sort": [1, 2] } ] }
        })
    }

    #[test]
    fn unanswered_shards_count_as_failed() {
        let r = response(json!({ "total": 5, "successful": 3, "skipped": 1, "failed": 1 }));
        let Outcome::Reply(reply) = read(&r, 2).expect("reads") else {
            panic!("a reply")
        };
        assert_eq!(reply.failed_shards, 2);
        assert_eq!(reply.skipped_shards, 1);
        assert_eq!(reply.total, Some(Total::Exact(1)));
    }

    #[test]
    fn shapes_that_are_not_search_responses_are_refused() {
        let ok = response(json!({ "total": 1, "successful": 1, "failed": 0 }));
        assert!(read(&ok, 2).is_ok());
        assert!(read(&ok, 3).is_err(), "a hit with too few sort values");
        for (path, bad) in [
            ("timed_out", json!("no")),
            ("_shards", json!(null)),
            ("hits", json!([])),
            ("terminated_early", json!(1)),
            // Written only as a boolean, when terminate_after was asked.
            ("terminated_early", json!(null)),
        ] {
            let mut r = ok.clone();
            r[path] = bad;
            assert!(read(&r, 2).is_err(), "{path}");
        }
        for (path, bad) in [
            ("failed", json!("1")),
            ("skipped", json!(-1)),
            ("failed", json!(0.5)),
        ] {
            let mut r = ok.clone();
            r["_shards"][path] = bad;
            assert!(read(&r, 2).is_err(), "_shards.{path}");
        }
        // Both engines write `failed` on every response: one without it
        // cannot rule out a failed shard; more successful shards than
        // shards contradicts itself.
        for shards in [
            json!({ "total": 2, "successful": 2, "skipped": 0 }),
            json!({ "total": 2, "successful": 2, "skipped": 0, "failed": null }),
            json!({ "total": 2, "successful": 9, "skipped": 0, "failed": 0 }),
            json!({ "total": 2, "successful": 2, "skipped": 7, "failed": 0 }),
            json!({ "total": 2, "successful": 0, "skipped": 0, "failed": 3 }),
        ] {
            let mut r = ok.clone();
            r["_shards"] = shards.clone();
            assert!(read(&r, 2).is_err(), "{shards}");
        }
        let mut r = ok.clone();
        r["_clusters"] = json!({ "total": 2, "successful": 1, "skipped": "1" });
        assert!(read(&r, 2).is_err(), "_clusters.skipped");
        // Absent or null: nothing went that way.
        r["_clusters"]["skipped"] = json!(null);
        assert!(read(&r, 2).is_ok());
        let mut r = ok.clone();
        r["hits"]["total"]["relation"] = json!("about");
        assert!(read(&r, 2).is_err());
    }

    #[test]
    fn nesting_is_measured_to_the_bound() {
        // The read_with docs name the bound.
        assert_eq!(MAX_SORT_DEPTH, 29);
        assert!(!nests_deeper(&json!(1), 0));
        assert!(nests_deeper(&json!([]), 0));
        assert!(!nests_deeper(&json!([1, {"a": 2}]), 2));
        assert!(nests_deeper(&json!([1, {"a": [2]}]), 2));
        let mut deep = json!(null);
        for _ in 0..MAX_SORT_DEPTH {
            deep = json!([deep]);
        }
        assert!(!nests_deeper(&deep, MAX_SORT_DEPTH));
        assert!(nests_deeper(&json!({ "k": deep }), MAX_SORT_DEPTH));
    }

    #[test]
    fn error_responses_are_told_apart() {
        let expired = json!({ "error": {
            "root_cause": [ { "type": "search_context_missing_exception", "reason": "No search context found for id [91]" } ],
            "type": "search_phase_execution_exception", "reason": "all shards failed",
            "failed_shards": [ { "shard": -1, "index": null, "reason": { "type": "search_context_missing_exception", "reason": "No search context found for id [91]" } } ]
        }, "status": 404 });
        assert!(matches!(read(&expired, 1), Ok(Outcome::Expired(d)) if d.contains("[91]")));
        let bad_query = json!({ "error": { "type": "parsing_exception", "reason": "unknown query [mtch]" }, "status": 400 });
        assert!(
            matches!(read(&bad_query, 1), Ok(Outcome::Failed(m)) if m == "parsing_exception: unknown query [mtch]")
        );
        let old = json!({ "error": "IndexMissingException[[x] missing]", "status": 404 });
        assert!(matches!(read(&old, 1), Ok(Outcome::Failed(m)) if m.starts_with("IndexMissing")));
    }
}

//! `Search`: what a search asks of OpenSearch or Elasticsearch (the query,
//! its sort and tie-breaker, the body fields that shape its hits), which
//! is what its cursors are bound to; and the request body of one page.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::sort::{Order, SortField, TieBreaker};
use super::state::ClusterPosition;
use crate::error::Error;
use crate::{Fingerprint, Limits, Scope};

/// The body fields the adapter writes itself: the paging part of the
/// request, and the query.
const RESERVED: [&str; 10] = [
    "query",
    "size",
    "from",
    "sort",
    "search_after",
    "pit",
    "track_total_hits",
    "timeout",
    "terminate_after",
    "scroll",
];

/// A search of OpenSearch or Elasticsearch: the query, its sort, and the
/// tie-breaker that makes the sort total. It writes each page's request
/// body ([`request`](Self::request)) and binds cursors to itself
/// ([`scope`](Self::scope)).
///
/// Setters take and return the value; each has a getter named `get_` and
/// the setter's name.
///
/// # Example
///
/// ```
/// use candor::Limits;
/// use candor::opensearch::{Order, Search, SortField, TieBreaker};
/// use serde_json::json;
///
/// let search = Search::new(json!({ "match": { "message": "flush" } }))
///     .sort(SortField::new("@timestamp", Order::Desc))
///     .tie_breaker(TieBreaker::Field("event_id".into()));
/// let request = search.request(&Limits::new().limit(20), None)?;
/// assert_eq!(request.body()["size"], 21); // the limit, and one more to prove truncation
/// assert_eq!(
///     request.body()["sort"],
///     json!([{ "@timestamp": { "order": "desc" } }, { "event_id": { "order": "asc" } }])
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    query: Value,
    sort: Vec<SortField>,
    tie_breaker: Option<TieBreaker>,
    pit: Option<String>,
    keep_alive: Duration,
    terminate_after: Option<u64>,
    fields: Map<String, Value>,
    target: Option<String>,
}

/// The paging part of a request that comes from the `Limits`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Paging {
    /// The item limit in force.
    pub(crate) limit: usize,
    /// The limit asked for, when the ceiling lowered it.
    pub(crate) requested: Option<usize>,
    /// `track_total_hits`: `true`, a bound, or `false`.
    pub(crate) track_total_hits: Value,
    /// The deadline, in milliseconds, sent as `timeout`.
    pub(crate) timeout_ms: Option<u64>,
}

impl Search {
    /// A search for the hits of `query` (the body's `query` clause, such as
    /// `{"match": {"message": "flush"}}`). Default: no sort field (the
    /// tie-breaker alone orders the hits), no tie-breaker (one is needed:
    /// [`tie_breaker`](Self::tie_breaker), or a point in time, which
    /// brings `_shard_doc`), no point in time.
    ///
    /// # Example
    ///
    /// ```
    /// use serde_json::json;
    /// let search = candor::opensearch::Search::new(json!({ "match_all": {} }));
    /// assert_eq!(search.get_query(), &json!({ "match_all": {} }));
    /// ```
    #[must_use]
    pub fn new(query: Value) -> Search {
        Search {
            query,
            sort: Vec::new(),
            tie_breaker: None,
            pit: None,
            keep_alive: Duration::from_secs(60),
            terminate_after: None,
            fields: Map::new(),
            target: None,
        }
    }

    /// Adds a sort field after those already given. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Order, Search, SortField};
    /// let search = Search::new(serde_json::json!({ "match_all": {} }))
    ///     .sort(SortField::score())
    ///     .sort(SortField::new("date", Order::Desc));
    /// assert_eq!(search.get_sort().len(), 2);
    /// ```
    #[must_use]
    pub fn sort(mut self, field: SortField) -> Search {
        self.sort.push(field);
        self
    }

    /// The last sort field, unique per document, so that paging neither
    /// repeats nor skips a hit. Default: [`TieBreaker::ShardDoc`] when
    /// the search has a point in time, none otherwise (and then
    /// [`request`](Self::request) refuses to page).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Search, TieBreaker};
    /// let search = Search::new(serde_json::json!({ "match_all": {} }))
    ///     .tie_breaker(TieBreaker::Field("id".into()));
    /// assert_eq!(search.get_tie_breaker(), Some(&TieBreaker::Field("id".into())));
    /// ```
    #[must_use]
    pub fn tie_breaker(mut self, tie_breaker: TieBreaker) -> Search {
        self.tie_breaker = Some(tie_breaker);
        self
    }

    /// The point in time to search (the `id` its open request returned:
    /// `POST /<index>/_pit` in Elasticsearch, `POST
    /// /<index>/_search/point_in_time` in OpenSearch), for the first page.
    /// Later pages take the id the cluster last returned from the cursor.
    /// A request with a point in time goes to `POST /_search`, without an
    /// index. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::opensearch::Search;
    /// let search = Search::new(serde_json::json!({ "match_all": {} })).pit("46ToAwMD");
    /// let request = search.request(&Limits::new().limit(10), None)?;
    /// assert_eq!(request.body()["pit"]["id"], "46ToAwMD");
    /// assert_eq!(request.body()["sort"][0], serde_json::json!({ "_shard_doc": "asc" }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn pit(mut self, id: impl Into<String>) -> Search {
        self.pit = Some(id.into());
        self
    }

    /// How long the cluster keeps the point in time after each page
    /// (`pit.keep_alive`). Default: one minute.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::Limits;
    /// use candor::opensearch::Search;
    /// let search = Search::new(serde_json::json!({ "match_all": {} }))
    ///     .pit("46ToAwMD")
    ///     .keep_alive(Duration::from_secs(300));
    /// let request = search.request(&Limits::new().limit(10), None)?;
    /// assert_eq!(request.body()["pit"]["keep_alive"], "300000ms");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn keep_alive(mut self, keep_alive: Duration) -> Search {
        self.keep_alive = keep_alive;
        self
    }

    /// Stops each shard after it has collected `documents` documents
    /// (`terminate_after`). A page cut this way says so: its hits are the
    /// best of those collected, a subset of the answer, not its first
    /// hits. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// let search = Search::new(serde_json::json!({ "match_all": {} })).terminate_after(10_000);
    /// assert_eq!(search.get_terminate_after(), Some(10_000));
    /// ```
    #[must_use]
    pub fn terminate_after(mut self, documents: u64) -> Search {
        self.terminate_after = Some(documents);
        self
    }

    /// Another body field that shapes the hits, such as `_source` (which
    /// fields to return), `highlight` or `post_filter`. It is part of what
    /// cursors are bound to. The paging fields (`size`, `from`, `sort`,
    /// `search_after`, `pit`, `track_total_hits`, `timeout`,
    /// `terminate_after`, `scroll`) and `query` are the search's own, and
    /// [`request`](Self::request) refuses them here. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::opensearch::{Search, TieBreaker};
    /// use serde_json::json;
    /// let search = Search::new(json!({ "match_all": {} }))
    ///     .tie_breaker(TieBreaker::Field("id".into()))
    ///     .field("_source", json!(["title", "id"]));
    /// let request = search.request(&Limits::new().limit(5), None)?;
    /// assert_eq!(request.body()["_source"], json!(["title", "id"]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn field(mut self, name: impl Into<String>, value: Value) -> Search {
        self.fields.insert(name.into(), value);
        self
    }

    /// The index, alias or pattern searched, which a request sends in its
    /// path, not its body: cursors are bound to it as well. Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// let logs = Search::new(serde_json::json!({ "match_all": {} })).target("logs-*");
    /// let docs = Search::new(serde_json::json!({ "match_all": {} })).target("docs");
    /// assert_ne!(logs.scope(), docs.scope());
    /// ```
    #[must_use]
    pub fn target(mut self, index: impl Into<String>) -> Search {
        self.target = Some(index.into());
        self
    }

    /// The query clause.
    ///
    /// # Example
    ///
    /// ```
    /// use serde_json::json;
    /// let search = candor::opensearch::Search::new(json!({ "term": { "level": "error" } }));
    /// assert_eq!(search.get_query()["term"]["level"], "error");
    /// ```
    #[must_use]
    pub fn get_query(&self) -> &Value {
        &self.query
    }

    /// The sort fields, before the tie-breaker.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// assert!(Search::new(serde_json::json!({ "match_all": {} })).get_sort().is_empty());
    /// ```
    #[must_use]
    pub fn get_sort(&self) -> &[SortField] {
        &self.sort
    }

    /// The tie-breaker given, if any (see [`tie_breaker`](Self::tie_breaker)
    /// for the one used without it).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// assert_eq!(Search::new(serde_json::json!({ "match_all": {} })).get_tie_breaker(), None);
    /// ```
    #[must_use]
    pub fn get_tie_breaker(&self) -> Option<&TieBreaker> {
        self.tie_breaker.as_ref()
    }

    /// The first page's point in time, if any.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// assert_eq!(Search::new(serde_json::json!({ "match_all": {} })).pit("p").get_pit(), Some("p"));
    /// ```
    #[must_use]
    pub fn get_pit(&self) -> Option<&str> {
        self.pit.as_deref()
    }

    /// How long the cluster keeps the point in time after each page.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::opensearch::Search;
    /// let search = Search::new(serde_json::json!({ "match_all": {} }));
    /// assert_eq!(search.get_keep_alive(), Duration::from_secs(60));
    /// ```
    #[must_use]
    pub fn get_keep_alive(&self) -> Duration {
        self.keep_alive
    }

    /// The per-shard document budget, if any.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// assert_eq!(Search::new(serde_json::json!({ "match_all": {} })).get_terminate_after(), None);
    /// ```
    #[must_use]
    pub fn get_terminate_after(&self) -> Option<u64> {
        self.terminate_after
    }

    /// The index, alias or pattern searched, if given.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// let search = Search::new(serde_json::json!({ "match_all": {} })).target("docs");
    /// assert_eq!(search.get_target(), Some("docs"));
    /// ```
    #[must_use]
    pub fn get_target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    /// What this search's cursors are bound to: the query, the sort and
    /// tie-breaker, the other body fields and the target, not the limits
    /// nor the point in time (whose id can change from page to page).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::Search;
    /// use serde_json::json;
    /// let a = Search::new(json!({ "match": { "msg": "flush" } }));
    /// let b = Search::new(json!({ "match": { "msg": "flush" } })).pit("another id");
    /// assert_eq!(a.scope(), b.scope());
    /// assert_ne!(a.scope(), Search::new(json!({ "match": { "msg": "sync" } })).scope());
    /// ```
    #[must_use]
    pub fn scope(&self) -> Scope {
        self.scope_of(&[])
    }

    /// The scope of this search across the clusters named `clusters`.
    pub(crate) fn scope_of(&self, clusters: &[String]) -> Scope {
        let identity = json!({
            "adapter": "opensearch/1",
            "query": self.query,
            "sort": self.sort.iter().map(SortField::to_json).collect::<Vec<_>>(),
            "tie_breaker": self.tie_breaker.as_ref().map(TieBreaker::to_json),
            "terminate_after": self.terminate_after,
            "fields": self.fields,
            "target": self.target,
            "clusters": clusters,
        });
        Scope::new(Fingerprint::of(&canonical(&identity)))
    }

    /// The tie-breaker in force with or without a point in time, or why
    /// the search cannot page.
    pub(crate) fn effective_tie_breaker(&self, has_pit: bool) -> Result<TieBreaker, Error> {
        match (&self.tie_breaker, has_pit) {
            (Some(TieBreaker::ShardDoc), false) => Err(Error::invalid_argument(
                "tie_breaker",
                "_shard_doc needs a point in time; give one with pit, or name a unique field",
            )),
            (Some(t), _) => Ok(t.clone()),
            (None, true) => Ok(TieBreaker::ShardDoc),
            (None, false) => Err(Error::invalid_argument(
                "tie_breaker",
                "paging with search_after needs a sort no two documents share: give a point in time (for _shard_doc) or a unique field with tie_breaker",
            )),
        }
    }

    /// Checks what does not depend on the page, and the paging the limits
    /// give.
    pub(crate) fn paging(&self, limits: &Limits) -> Result<Paging, Error> {
        if let Some(name) = self.fields.keys().find(|k| RESERVED.contains(&k.as_str())) {
            return Err(Error::invalid_argument(
                "field",
                format!(
                    "{name:?} is written by the search itself (the query and the paging fields)"
                ),
            ));
        }
        let applied = limits.applied_limit();
        let limit = applied.limit().ok_or_else(|| {
            Error::invalid_argument(
                "limit",
                "a search of a cluster pages by a limit: set one (the cluster returns limit + 1 hits)",
            )
        })?;
        limit
            .checked_add(1)
            .ok_or_else(|| Error::invalid_argument("limit", "the limit plus one overflows"))?;
        let track_total_hits = match (limits.count_total, limits.max_counted) {
            (false, _) => Value::Bool(false),
            (true, None) => Value::Bool(true),
            // The engines take a count bound up to the largest 32-bit integer.
            (true, Some(n)) => Value::from(n.min(i32::MAX as u64)),
        };
        // The time left of the deadline: the request's wait before it
        // counts too (see `Limits::deadline_from`).
        let timeout_ms = limits
            .time_left()
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1));
        Ok(Paging {
            limit,
            requested: applied.requested(),
            track_total_hits,
            timeout_ms,
        })
    }

    /// The order of each sort value a hit carries: the fields', then the
    /// tie-breaker's (ascending).
    pub(crate) fn orders(&self) -> Vec<Order> {
        self.sort
            .iter()
            .map(SortField::order)
            .chain([Order::Asc])
            .collect()
    }

    /// The body of one page's request to a cluster at `position`.
    pub(crate) fn body(
        &self,
        paging: &Paging,
        tie: &TieBreaker,
        position: &ClusterPosition,
    ) -> Value {
        let mut body = Map::new();
        body.insert("query".into(), self.query.clone());
        body.insert("size".into(), Value::from(paging.limit as u64 + 1));
        let sort: Vec<Value> = self
            .sort
            .iter()
            .map(SortField::to_json)
            .chain([tie.to_json()])
            .collect();
        body.insert("sort".into(), Value::Array(sort));
        body.insert("track_total_hits".into(), paging.track_total_hits.clone());
        if let Some(ms) = paging.timeout_ms {
            body.insert("timeout".into(), Value::String(format!("{ms}ms")));
        }
        if let Some(n) = self.terminate_after {
            body.insert("terminate_after".into(), Value::from(n));
        }
        if let Some(pit) = &position.pit {
            let keep_alive = u64::try_from(self.keep_alive.as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            body.insert(
                "pit".into(),
                json!({ "id": pit, "keep_alive": format!("{keep_alive}ms") }),
            );
        }
        if let Some(after) = &position.after {
            body.insert("search_after".into(), Value::Array(after.clone()));
        }
        for (name, value) in &self.fields {
            body.insert(name.clone(), value.clone());
        }
        Value::Object(body)
    }
}

/// The text of `value` with every object's keys sorted: the same JSON
/// gives the same text however its maps keep their order.
fn canonical(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    write(&map[key], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_text_ignores_key_order() {
        let mut a = Map::new();
        a.insert("b".into(), json!(1));
        a.insert("a".into(), json!({"y": 2, "x": [3, {"q": 1, "p": 0}]}));
        let mut b = Map::new();
        b.insert("a".into(), json!({"x": [3, {"p": 0, "q": 1}], "y": 2}));
        b.insert("b".into(), json!(1));
        assert_eq!(canonical(&Value::Object(a)), canonical(&Value::Object(b)));
        assert_eq!(
            canonical(&json!({"b": 1, "a": "\""})),
            r#"{"a":"\"","b":1}"#
        );
    }

    #[test]
    fn reserved_fields_and_missing_limits_are_refused() {
        let search =
            Search::new(json!({"match_all": {}})).tie_breaker(TieBreaker::Field("id".into()));
        assert!(
            search
                .clone()
                .field("size", json!(5))
                .paging(&Limits::new().limit(5))
                .is_err()
        );
        assert!(search.paging(&Limits::new()).is_err());
        assert!(search.paging(&Limits::new().limit(usize::MAX)).is_err());
        let paging = search
            .paging(&Limits::new().limit(5).count_total(true).max_counted(50_000))
            .expect("pages");
        assert_eq!(paging.track_total_hits, json!(50_000));
    }
}

//! The requests of one page, and reading their replies into a
//! `Bounded<T>`: [`Request`] for one cluster, [`FanoutRequest`] for
//! several.

use std::collections::HashMap;
use std::fmt::Display;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::page::PageRequests;
use super::search::Search;
use crate::cluster::response_error;
use crate::error::Error;
use crate::{Bounded, Cursor, Limits};

/// The request of one page of a [`Search`] to one cluster: its body, and
/// how to read the response into a [`Bounded<T>`].
///
/// Send [`body`](Self::body) with any client (`POST /<index>/_search`, or
/// `POST /_search` with a point in time), then give the response's JSON
/// body, whatever its HTTP status, to [`read`](Self::read) or
/// [`read_with`](Self::read_with). The page is:
///
/// - cut by its limit (a prefix of the answer, with a cursor) when the
///   cluster returned `limit + 1` hits;
/// - exact when it returned fewer and did not time out;
/// - a subset, stopped by the deadline (`timed_out`) or a document budget
///   (`terminated_early`), with no cursor, and the limit reached as well
///   when the cluster returned `limit + 1` hits;
/// - incomplete, with an error skip per failed shard named
///   `index/shard N` and its reason's `type`, when shards failed; shards
///   the engine ruled out before searching (`_shards.skipped`) are policy
///   skips (`shard_prefiltered`).
///
/// Its total is `hits.total`: exact only with `"relation": "eq"`, a
/// complete search (no time-out, no failed shard) and a count above the
/// page; a lower bound otherwise, and never below the page's end, however
/// deep the page (the 10,000 cap of `track_total_hits` is a lower bound).
/// A page that holds the rest of the answer over the shards that
/// answered has the exact total `start + count` (DESIGN rule 1, as for a
/// tree with an unreadable file), and `complete` is false when a shard
/// failed: its error skip names what is missing.
///
/// # Example
///
/// ```
/// use candor::Limits;
/// use candor::opensearch::{Order, Search, SortField};
/// use serde_json::json;
///
/// let search = Search::new(json!({ "match": { "msg": "flush" } }))
///     .sort(SortField::new("day", Order::Asc))
///     .pit("46ToAwMD");
/// let request = search.request(&Limits::new().limit(2), None)?;
/// // What the cluster answered (three hits: the third proves there are more).
/// let response = json!({
///     "pit_id": "46ToAwMD", "took": 4, "timed_out": false,
///     "_shards": { "total": 2, "successful": 2, "skipped": 0, "failed": 0 },
///     "hits": { "total": { "value": 57, "relation": "eq" }, "hits": [
///         { "_id": "a", "_source": { "msg": "flush a" }, "sort": [1, 10] },
///         { "_id": "b", "_source": { "msg": "flush b" }, "sort": [1, 11] },
///         { "_id": "c", "_source": { "msg": "flush c" }, "sort": [2, 3] }
///     ] }
/// });
/// let page = request.read::<serde_json::Value>(&response)?;
/// assert_eq!(page.len(), 2);
/// assert_eq!(page.total(), candor::Total::Exact(57));
/// let next = search.request(&Limits::new().limit(2), page.next_cursor())?;
/// assert_eq!(next.body()["search_after"], json!([1, 11]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Request {
    page: PageRequests,
}

impl Search {
    /// The request of the page after `cursor` (the first page without
    /// one), under `limits`: `size` is the limit plus one (the extra hit
    /// proves truncation), `track_total_hits` is `false` unless
    /// [`Limits::count_total`] asks for a total (then `true`, or
    /// [`Limits::max_counted`] as the bound), `timeout` is the deadline,
    /// and the sort ends with the tie-breaker. The cursor brings
    /// `search_after` and the point in time's latest id.
    ///
    /// `timeout` bounds each shard's search, not the whole request: the
    /// cluster answers after it, with what it found (a subset page). A
    /// limit is needed, and the engines refuse a `size` above their
    /// `index.max_result_window` (10,000 by default).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// without a limit, without a tie-breaker (neither a point in time
    /// nor [`tie_breaker`](Self::tie_breaker)), with `_shard_doc` but no
    /// point in time, or with a paging field given to
    /// [`field`](Self::field); the cursor errors of
    /// [`Scope::resume`](crate::Scope::resume) for a cursor of another
    /// search, an altered one, or one that is not this search's.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::Limits;
    /// use candor::opensearch::{Search, TieBreaker};
    /// use serde_json::json;
    /// let search = Search::new(json!({ "match_all": {} })).tie_breaker(TieBreaker::Field("id".into()));
    /// let limits = Limits::new().limit(100).count_total(true).deadline(Duration::from_millis(500));
    /// let body = search.request(&limits, None)?.body().clone();
    /// assert_eq!(body["size"], 101);
    /// assert_eq!(body["track_total_hits"], true);
    /// assert_eq!(body["timeout"], "500ms");
    /// assert!(Search::new(json!({ "match_all": {} })).request(&limits, None).is_err()); // no tie-breaker
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn request(&self, limits: &Limits, cursor: Option<&Cursor>) -> Result<Request, Error> {
        let clusters = [(String::new(), self.get_pit().map(String::from))];
        Ok(Request {
            page: PageRequests::new(self, &clusters, true, limits, cursor)?,
        })
    }
}

impl Request {
    /// The request's JSON body.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::opensearch::{Search, TieBreaker};
    /// let search = Search::new(serde_json::json!({ "match_all": {} }))
    ///     .tie_breaker(TieBreaker::Field("id".into()));
    /// let request = search.request(&Limits::new().limit(10), None)?;
    /// assert_eq!(request.body()["query"], serde_json::json!({ "match_all": {} }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn body(&self) -> &Value {
        self.page.bodies()[0]
            .as_ref()
            .expect("a single cluster is always asked")
    }

    /// Reads the response into a page whose items are the hits'
    /// `_source`.
    ///
    /// # Errors
    ///
    /// As [`read_with`](Self::read_with); a hit without `_source`, or
    /// whose `_source` is not a `T`, is an
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) error named
    /// `response`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::opensearch::{Search, TieBreaker};
    /// use serde_json::json;
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Doc { title: String }
    /// let search = Search::new(json!({ "match_all": {} })).tie_breaker(TieBreaker::Field("id".into()));
    /// let request = search.request(&Limits::new().limit(10), None)?;
    /// let response = json!({ "took": 1, "timed_out": false,
    ///     "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
    ///     "hits": { "total": { "value": 1, "relation": "eq" },
    ///               "hits": [ { "_source": { "title": "a" }, "sort": ["a"] } ] } });
    /// let page = request.read::<Doc>(&response)?;
    /// assert!(page.is_complete());
    /// assert_eq!(page.items()[0].title, "a");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read<T>(&self, response: &Value) -> Result<Bounded<T>, Error>
    where
        T: Serialize + DeserializeOwned,
    {
        self.read_with(response, source)
    }

    /// Reads the response into a page whose items `map` makes of each hit
    /// (the whole hit object: `_id`, `_index`, `_source`, `highlight`,
    /// `sort`, ...).
    ///
    /// # Errors
    ///
    /// - [`StaleCursor`](crate::ErrorKind::StaleCursor) when the point in
    ///   time the cursor carried has expired (the response's error is a
    ///   `search_context_missing_exception`): start the walk again with a
    ///   new point in time;
    /// - [`InvalidArgument`](crate::ErrorKind::InvalidArgument) named
    ///   `pit` when the first page's point in time has expired;
    /// - `InvalidArgument` named `response` for any other error response
    ///   (its `type` and `reason` quoted), a JSON that is not a search
    ///   response (a shard count present but not a count included), a
    ///   hit without its sort values, a sort value whose arrays and
    ///   objects nest more than 29 levels (a cursor could not carry it
    ///   back), or an error from `map`;
    /// - the errors of the byte budget, as in
    ///   [`Bounded::collect`](crate::Bounded::collect).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{BudgetKind, Limits};
    /// use candor::opensearch::{Search, TieBreaker};
    /// use serde_json::json;
    /// let search = Search::new(json!({ "match_all": {} })).tie_breaker(TieBreaker::Field("id".into()));
    /// let request = search.request(&Limits::new().limit(10), None)?;
    /// // The cluster timed out: each shard gave what it had found.
    /// let response = json!({ "took": 1203, "timed_out": true,
    ///     "_shards": { "total": 3, "successful": 3, "skipped": 0, "failed": 0 },
    ///     "hits": { "total": { "value": 2, "relation": "eq" },
    ///               "hits": [ { "_id": "k", "sort": ["k"] }, { "_id": "q", "sort": ["q"] } ] } });
    /// let page = request.read_with(&response, |hit| {
    ///     hit["_id"].as_str().map(String::from).ok_or("no _id")
    /// })?;
    /// assert!(page.disclosure().is_subset() && page.next_cursor().is_none());
    /// assert_eq!(page.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Deadline));
    /// assert_eq!(page.total(), candor::Total::AtLeast(2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_with<T, E, F>(&self, response: &Value, map: F) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
        E: Display,
        F: FnMut(&Value) -> Result<T, E>,
    {
        self.page.read(&[Some(Ok(response))], map)
    }
}

/// A hit's `_source` as a `T`.
pub(crate) fn source<T: DeserializeOwned>(hit: &Value) -> Result<T, String> {
    let source = hit.get("_source").ok_or("no _source")?;
    T::deserialize(source).map_err(|e| format!("its _source does not decode: {e}"))
}

/// The requests of one page of a [`Fanout`](super::Fanout) to its
/// clusters, and how to read their replies into one [`Bounded<T>`].
///
/// Send each of [`bodies`](Self::bodies) to its cluster; give every
/// reply to [`read`](Self::read) or [`read_with`](Self::read_with), with
/// its cluster's name: the response's JSON body, or the error that kept
/// it from coming (a transport failure). Each cluster's hits are a prefix
/// of its own answer; the page merges them under the global limit and
/// keeps only the certain prefix ([the contract](crate::contract), rule
/// M1): the hits up to the earliest last hit of a cluster that was cut.
/// The total is the sum of the clusters' totals.
///
/// A cluster that fails (an error response, a transport error, or no
/// reply) is an error skip named after it (reason `cluster_failure`),
/// and the walk goes on without it: every later page names it again, so
/// no page reads as whole. A cluster that times out makes the page a
/// subset, with no cursor. A cluster's expired point in time is a
/// [`StaleCursor`](crate::ErrorKind::StaleCursor) error, as for one
/// cluster.
///
/// # Example
///
/// See [`Fanout`](super::Fanout).
#[derive(Debug, Clone)]
pub struct FanoutRequest {
    page: PageRequests,
}

impl FanoutRequest {
    pub(crate) fn new(page: PageRequests) -> FanoutRequest {
        FanoutRequest { page }
    }

    /// The clusters to ask, each with its request body: a cluster whose
    /// hits have all been shown, or which failed on an earlier page, is
    /// not asked again.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::opensearch::{Fanout, Search};
    /// let search = Search::new(serde_json::json!({ "match_all": {} }));
    /// let fanout = Fanout::new(search).cluster_with_pit("eu", "pit-eu").cluster_with_pit("us", "pit-us");
    /// let request = fanout.request(&Limits::new().limit(10), None)?;
    /// let names: Vec<&str> = request.bodies().map(|(name, _)| name).collect();
    /// assert_eq!(names, ["eu", "us"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bodies(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.page
            .names()
            .iter()
            .zip(self.page.bodies())
            .filter_map(|(name, body)| body.as_ref().map(|body| (name.as_str(), body)))
    }

    /// Reads the replies into one page whose items are the hits'
    /// `_source`.
    ///
    /// # Errors
    ///
    /// As [`read_with`](Self::read_with).
    ///
    /// # Example
    ///
    /// See [`Fanout`](super::Fanout).
    pub fn read<T, S, E>(
        &self,
        replies: impl IntoIterator<Item = (S, Result<Value, E>)>,
    ) -> Result<Bounded<T>, Error>
    where
        T: Serialize + DeserializeOwned,
        S: AsRef<str>,
        E: Display,
    {
        self.read_with(replies, source)
    }

    /// Reads the replies, one per cluster asked, into one page whose
    /// items `map` makes of each hit. A cluster asked and missing from
    /// `replies` failed (`no reply`).
    ///
    /// # Errors
    ///
    /// - [`InvalidArgument`](crate::ErrorKind::InvalidArgument) named
    ///   `replies` for a reply of a cluster not in the fan-out, or two of
    ///   one cluster;
    /// - `InvalidArgument` named `response` for a response that is not a
    ///   search response, a hit without its sort values or with one
    ///   nested more than 29 levels, hits of a
    ///   cluster whose sort values are not in the search's order (clusters
    ///   that map a sort field differently cannot be merged), or an error
    ///   from `map`;
    /// - [`StaleCursor`](crate::ErrorKind::StaleCursor) when a cluster's
    ///   point in time has expired, and `InvalidArgument` named `pit` on a
    ///   first page;
    /// - the errors of [`Bounded::merge`](crate::Bounded::merge).
    ///
    /// # Example
    ///
    /// See [`Fanout`](super::Fanout).
    pub fn read_with<T, S, E, E2, F>(
        &self,
        replies: impl IntoIterator<Item = (S, Result<Value, E2>)>,
        map: F,
    ) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
        S: AsRef<str>,
        E: Display,
        E2: Display,
        F: FnMut(&Value) -> Result<T, E>,
    {
        let names = self.page.names();
        let index: HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), i))
            .collect();
        let mut owned: Vec<Option<Result<Value, String>>> = vec![None; names.len()];
        for (name, reply) in replies {
            let name = name.as_ref();
            let i = *index.get(name).ok_or_else(|| {
                Error::invalid_argument("replies", format!("no cluster is named {name:?}"))
            })?;
            if owned[i].is_some() {
                return Err(Error::invalid_argument(
                    "replies",
                    format!("two replies of cluster {name:?}"),
                ));
            }
            owned[i] = Some(reply.map_err(|e| e.to_string()));
        }
        let borrowed: Vec<Option<Result<&Value, String>>> = owned
            .iter()
            .map(|reply| {
                reply
                    .as_ref()
                    .map(|r| r.as_ref().map_err(|e| crate::cluster::clip(e, 300)))
            })
            .collect();
        self.page.read(&borrowed, map).map_err(|e| match e.kind() {
            crate::ErrorKind::InvalidDisclosure { reason } => {
                response_error(format!("the replies make no consistent page: {reason}"))
            }
            _ => e,
        })
    }
}

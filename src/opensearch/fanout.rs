//! `Fanout`: one search across several clusters (or indices searched
//! apart), merged into one page under one global limit.

use super::page::PageRequests;
use super::request::FanoutRequest;
use super::search::Search;
use crate::error::Error;
use crate::{Cursor, Limits, Scope};

/// One [`Search`] across several clusters (or indices searched apart, or
/// regions), merged into one [`Bounded<T>`](crate::Bounded) per page under
/// one global limit, with one cursor that holds where the walk stands in
/// every cluster (its point in time, its last hit shown, how many of its
/// hits came before).
///
/// Each cluster is asked for `limit + 1` hits after its own position; the
/// merge keeps only the prefix that is certain, sums the totals, and
/// states every cluster that failed or timed out (see
/// [`FanoutRequest`]). Hits of different clusters are ordered by their
/// sort values (numbers by value, strings by their bytes, a missing
/// value last), then by the order the clusters were given: every cluster
/// must map the sort fields alike.
///
/// # Example
///
/// ```
/// use candor::{Limits, Total};
/// use candor::opensearch::{Fanout, Order, Search, SortField};
/// use serde_json::json;
///
/// let search = Search::new(json!({ "match": { "msg": "flush" } })).sort(SortField::new("day", Order::Asc));
/// let fanout = Fanout::new(search).cluster_with_pit("eu", "pit-eu").cluster_with_pit("us", "pit-us");
/// let limits = Limits::new().limit(2);
/// let request = fanout.request(&limits, None)?;
/// let reply = |hits: serde_json::Value, total: u64| json!({ "took": 2, "timed_out": false,
///     "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
///     "hits": { "total": { "value": total, "relation": "eq" }, "hits": hits } });
/// let eu = reply(json!([ { "_source": "eu-1", "sort": [1, 7] }, { "_source": "eu-4", "sort": [4, 2] } ]), 2);
/// let page = request.read::<String, _, String>([
///     ("eu", Ok(eu)),
///     ("us", Err("connection refused".to_owned())),
/// ])?;
/// assert_eq!(page.items(), ["eu-1", "eu-4"]);
/// assert!(!page.is_complete()); // cluster "us" failed, and says so
/// assert_eq!(page.skipped().sample()[0].path(), "us");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Fanout {
    search: Search,
    clusters: Vec<(String, Option<String>)>,
}

impl Fanout {
    /// A fan-out of `search`, to clusters added with
    /// [`cluster`](Self::cluster) or [`cluster_with_pit`](Self::cluster_with_pit).
    /// The search's own point in time is not used: each cluster has its
    /// own.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Fanout, Search};
    /// let fanout = Fanout::new(Search::new(serde_json::json!({ "match_all": {} })));
    /// assert!(fanout.get_clusters().is_empty());
    /// ```
    #[must_use]
    pub fn new(search: Search) -> Fanout {
        Fanout {
            search,
            clusters: Vec::new(),
        }
    }

    /// Adds a cluster searched without a point in time (the search needs
    /// a unique tie-breaker field).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Fanout, Search, TieBreaker};
    /// let search = Search::new(serde_json::json!({ "match_all": {} })).tie_breaker(TieBreaker::Field("id".into()));
    /// let fanout = Fanout::new(search).cluster("logs-2024").cluster("logs-2025");
    /// assert_eq!(fanout.get_clusters(), ["logs-2024", "logs-2025"]);
    /// ```
    #[must_use]
    pub fn cluster(mut self, name: impl Into<String>) -> Fanout {
        self.clusters.push((name.into(), None));
        self
    }

    /// Adds a cluster searched in the point in time `pit` (opened on that
    /// cluster), for the first page.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Fanout, Search};
    /// let fanout = Fanout::new(Search::new(serde_json::json!({ "match_all": {} })))
    ///     .cluster_with_pit("eu", "pit-eu");
    /// assert_eq!(fanout.get_clusters(), ["eu"]);
    /// ```
    #[must_use]
    pub fn cluster_with_pit(mut self, name: impl Into<String>, pit: impl Into<String>) -> Fanout {
        self.clusters.push((name.into(), Some(pit.into())));
        self
    }

    /// The clusters' names, in the order given.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Fanout, Search};
    /// let fanout = Fanout::new(Search::new(serde_json::json!({ "match_all": {} }))).cluster_with_pit("a", "p");
    /// assert_eq!(fanout.get_clusters(), ["a"]);
    /// ```
    #[must_use]
    pub fn get_clusters(&self) -> Vec<&str> {
        self.clusters
            .iter()
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// What this fan-out's cursors are bound to: the search's scope and
    /// the clusters' names.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Fanout, Search};
    /// let search = Search::new(serde_json::json!({ "match_all": {} }));
    /// let two = Fanout::new(search.clone()).cluster_with_pit("a", "p").cluster_with_pit("b", "q");
    /// let one = Fanout::new(search).cluster_with_pit("a", "p");
    /// assert_ne!(two.scope(), one.scope());
    /// ```
    #[must_use]
    pub fn scope(&self) -> Scope {
        self.search.scope_of(&self.names())
    }

    fn names(&self) -> Vec<String> {
        self.clusters.iter().map(|(name, _)| name.clone()).collect()
    }

    /// The requests of the page after `cursor` (the first page without
    /// one), each as [`Search::request`] writes it, from where the walk
    /// stands in its cluster.
    ///
    /// # Errors
    ///
    /// Those of [`Search::request`], and
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) named
    /// `clusters` without a cluster, with two clusters of one name or an
    /// empty name, and named `pit` when the search has a point in time of
    /// its own (each cluster takes its own).
    ///
    /// # Example
    ///
    /// See [`Fanout`].
    pub fn request(
        &self,
        limits: &Limits,
        cursor: Option<&Cursor>,
    ) -> Result<FanoutRequest, Error> {
        if self.clusters.is_empty() {
            return Err(Error::invalid_argument(
                "clusters",
                "a fan-out needs a cluster",
            ));
        }
        let names = self.names();
        if names.iter().any(String::is_empty) {
            return Err(Error::invalid_argument(
                "clusters",
                "a cluster's name is empty",
            ));
        }
        let mut sorted = names.clone();
        sorted.sort();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::invalid_argument(
                "clusters",
                format!("two clusters are named {:?}", w[0]),
            ));
        }
        if self.search.get_pit().is_some() {
            return Err(Error::invalid_argument(
                "pit",
                "a fan-out takes each cluster's point in time (cluster_with_pit), not the search's",
            ));
        }
        Ok(FanoutRequest::new(PageRequests::new(
            &self.search,
            &self.clusters,
            false,
            limits,
            cursor,
        )?))
    }
}

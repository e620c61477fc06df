//! `Search` and `Request`: a Zoekt search and one request's body, with
//! the limits Zoekt applies set explicitly so that the response can be
//! judged against them.

use serde_json::{Map, Value, json};

use crate::Limits;
use crate::error::Error;

/// Zoekt's default `ShardMaxMatchCount` (`SearchOptions.SetDefaults`).
const DEFAULT_SHARD_MAX_MATCH_COUNT: u64 = 100_000;
/// Zoekt's default `TotalMaxMatchCount`: ten times the shard's.
const DEFAULT_TOTAL_MAX_MATCH_COUNT: u64 = 1_000_000;

/// The options the adapter writes itself, or refuses: they decide what
/// the answer's completeness can be judged by.
const RESERVED: [&str; 7] = [
    "MaxDocDisplayCount",
    "ShardMaxMatchCount",
    "TotalMaxMatchCount",
    "MaxWallTime",
    "MaxMatchDisplayCount",
    "FlushWallTime",
    "EstimateDocCount",
];

/// A Zoekt search: the query (Zoekt's query syntax), the repositories
/// and the match limits Zoekt applies. [`request`](Self::request) writes
/// the body of `POST /api/search`.
///
/// # Example
///
/// ```
/// use candor::Limits;
/// use candor::zoekt::Search;
/// let search = Search::new("flush repo:kernel").shard_max_match_count(10_000);
/// let request = search.request(&Limits::new().limit(50))?;
/// assert_eq!(request.body()["Q"], "flush repo:kernel");
/// assert_eq!(request.body()["Opts"]["ShardMaxMatchCount"], 10_000);
/// assert_eq!(request.body()["Opts"]["TotalMaxMatchCount"], 1_000_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    query: String,
    repo_ids: Option<Vec<u32>>,
    shard_max_match_count: u64,
    total_max_match_count: u64,
    options: Map<String, Value>,
}

impl Search {
    /// A search for `query`, in Zoekt's query syntax. Default: every
    /// repository, Zoekt's default match limits (100,000 per shard,
    /// 1,000,000 in all).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::zoekt::Search::new("needle").get_query(), "needle");
    /// ```
    #[must_use]
    pub fn new(query: impl Into<String>) -> Search {
        Search {
            query: query.into(),
            repo_ids: None,
            shard_max_match_count: DEFAULT_SHARD_MAX_MATCH_COUNT,
            total_max_match_count: DEFAULT_TOTAL_MAX_MATCH_COUNT,
            options: Map::new(),
        }
    }

    /// Searches only the repositories with these ids (`RepoIDs`).
    /// Default: every repository.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::zoekt::Search;
    /// let search = Search::new("needle").repo_ids([1234, 4567]);
    /// assert_eq!(search.get_repo_ids(), Some(&[1234, 4567][..]));
    /// ```
    #[must_use]
    pub fn repo_ids(mut self, ids: impl IntoIterator<Item = u32>) -> Search {
        self.repo_ids = Some(ids.into_iter().collect());
        self
    }

    /// `ShardMaxMatchCount`: a shard stops after this many matches.
    /// Default: 100,000 (Zoekt's). At least 1: Zoekt reads 0 as "its
    /// default", which the response would not show.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::zoekt::Search;
    /// assert_eq!(Search::new("x").shard_max_match_count(500).get_shard_max_match_count(), 500);
    /// ```
    #[must_use]
    pub fn shard_max_match_count(mut self, matches: u64) -> Search {
        self.shard_max_match_count = matches;
        self
    }

    /// `TotalMaxMatchCount`: no more shards are searched once this many
    /// matches were found in all. Default: 1,000,000 (Zoekt's: ten times
    /// its shard default). At least 1.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::zoekt::Search;
    /// assert_eq!(Search::new("x").total_max_match_count(9).get_total_max_match_count(), 9);
    /// ```
    #[must_use]
    pub fn total_max_match_count(mut self, matches: u64) -> Search {
        self.total_max_match_count = matches;
        self
    }

    /// Another field of `Opts` (`SearchOptions`), such as
    /// `NumContextLines`, `ChunkMatches` or `ShardRepoMaxMatchCount`.
    /// The display and match limits, `MaxWallTime`, `FlushWallTime` and
    /// `EstimateDocCount` are the adapter's, and
    /// [`request`](Self::request) refuses them here, in any letter case
    /// (Zoekt reads field names without regard to case), as it refuses a
    /// name outside ASCII (which Go's case folding can also map onto an
    /// option). Default: none.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::zoekt::Search;
    /// let search = Search::new("x").option("NumContextLines", serde_json::json!(2));
    /// assert_eq!(search.request(&Limits::new())?.body()["Opts"]["NumContextLines"], 2);
    /// assert!(Search::new("x").option("MaxMatchDisplayCount", serde_json::json!(5)).request(&Limits::new()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn option(mut self, name: impl Into<String>, value: Value) -> Search {
        self.options.insert(name.into(), value);
        self
    }

    /// The query.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::zoekt::Search::new("f:README").get_query(), "f:README");
    /// ```
    #[must_use]
    pub fn get_query(&self) -> &str {
        &self.query
    }

    /// The repositories searched, when limited.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::zoekt::Search::new("x").get_repo_ids(), None);
    /// ```
    #[must_use]
    pub fn get_repo_ids(&self) -> Option<&[u32]> {
        self.repo_ids.as_deref()
    }

    /// `ShardMaxMatchCount`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::zoekt::Search::new("x").get_shard_max_match_count(), 100_000);
    /// ```
    #[must_use]
    pub fn get_shard_max_match_count(&self) -> u64 {
        self.shard_max_match_count
    }

    /// `TotalMaxMatchCount`.
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::zoekt::Search::new("x").get_total_max_match_count(), 1_000_000);
    /// ```
    #[must_use]
    pub fn get_total_max_match_count(&self) -> u64 {
        self.total_max_match_count
    }

    /// The request of this search under `limits`: `MaxDocDisplayCount` is
    /// the limit plus one (the extra file proves truncation; no limit, no
    /// display limit), `MaxWallTime` the deadline (in nanoseconds, as Go's
    /// `time.Duration`), and both match limits are sent. Zoekt has no
    /// cursor: a page is the first page.
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) for a match
    /// limit of 0, an option the adapter writes or refuses (see
    /// [`option`](Self::option)), or a limit whose successor overflows.
    ///
    /// # Example
    ///
    /// ```
    /// use std::time::Duration;
    /// use candor::Limits;
    /// use candor::zoekt::Search;
    /// let limits = Limits::new().limit(20).deadline(Duration::from_millis(1500));
    /// let body = Search::new("needle").request(&limits)?.body().clone();
    /// assert_eq!(body["Opts"]["MaxDocDisplayCount"], 21);
    /// assert_eq!(body["Opts"]["MaxWallTime"], 1_500_000_000u64);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn request(&self, limits: &Limits) -> Result<Request, Error> {
        // Zoekt decodes its request with Go's `encoding/json`, which
        // matches field names without regard to case: `estimateDocCount`
        // sets `EstimateDocCount`.
        // Every field of Zoekt's SearchOptions is named in ASCII, and Go
        // folds a few other letters onto ASCII ones (`ſ` reads as `s`,
        // the Kelvin sign as `k`): a name outside ASCII is no option.
        if let Some(name) = self.options.keys().find(|k| !k.is_ascii()) {
            return Err(Error::invalid_argument(
                "option",
                format!("{name:?} is not the name of a Zoekt option (they are ASCII)"),
            ));
        }
        if let Some(name) = self
            .options
            .keys()
            .find(|k| RESERVED.iter().any(|r| r.eq_ignore_ascii_case(k)))
        {
            return Err(Error::invalid_argument(
                "option",
                format!("{name} is set by the adapter or would hide a cut of the answer"),
            ));
        }
        if self.shard_max_match_count == 0 || self.total_max_match_count == 0 {
            return Err(Error::invalid_argument(
                "max_match_count",
                "a match limit of 0 means Zoekt's default to Zoekt, which the response would not show",
            ));
        }
        let limit = limits.applied_limit().limit();
        let display =
            match limit {
                Some(limit) => Some(limit.checked_add(1).ok_or_else(|| {
                    Error::invalid_argument("limit", "the limit plus one overflows")
                })?),
                None => None,
            };
        let mut opts = self.options.clone();
        opts.insert(
            "ShardMaxMatchCount".into(),
            Value::from(self.shard_max_match_count),
        );
        opts.insert(
            "TotalMaxMatchCount".into(),
            Value::from(self.total_max_match_count),
        );
        if let Some(display) = display {
            opts.insert("MaxDocDisplayCount".into(), Value::from(display as u64));
        }
        // The time left of the deadline: the request's wait before it
        // counts too (see `Limits::deadline_from`).
        let left = limits.time_left();
        let wall_ms = left.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1));
        if let Some(deadline) = left {
            let nanos = u64::try_from(deadline.as_nanos())
                .unwrap_or(i64::MAX as u64)
                .clamp(1, i64::MAX as u64);
            opts.insert("MaxWallTime".into(), Value::from(nanos));
        }
        let mut body = json!({ "Q": self.query, "Opts": opts });
        if let Some(ids) = &self.repo_ids {
            body["RepoIDs"] = json!(ids);
        }
        Ok(Request {
            body,
            limits: limits.clone(),
            limit,
            shard_max_match_count: self.shard_max_match_count,
            total_max_match_count: self.total_max_match_count,
            wall_ms,
        })
    }
}

/// The request of one [`Search`] to Zoekt's `POST /api/search`, and how
/// to read its response into a [`Bounded<T>`](crate::Bounded) (see
/// [`read_with`](Self::read_with)).
///
/// # Example
///
/// ```
/// use candor::Limits;
/// use candor::zoekt::Search;
/// let request = Search::new("needle").request(&Limits::new().limit(10))?;
/// assert_eq!(request.body()["Opts"]["MaxDocDisplayCount"], 11);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Request {
    body: Value,
    pub(super) limits: Limits,
    pub(super) limit: Option<usize>,
    pub(super) shard_max_match_count: u64,
    pub(super) total_max_match_count: u64,
    /// The deadline sent, in milliseconds.
    pub(super) wall_ms: Option<u64>,
}

impl Request {
    /// The request's JSON body: `{"Q": ..., "Opts": {...}}`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::zoekt::Search;
    /// let request = Search::new("needle").repo_ids([7]).request(&Limits::new())?;
    /// assert_eq!(request.body()["RepoIDs"], serde_json::json!([7]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn body(&self) -> &Value {
        &self.body
    }
}

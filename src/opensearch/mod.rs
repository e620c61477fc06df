//! OpenSearch and Elasticsearch: a search's pages as [`Bounded<T>`](crate::Bounded),
//! with the disclosure the cluster gives, kept true (feature `opensearch`).
//!
//! Pure and transport-free: a [`Search`] writes each page's request body
//! from [`Limits`](crate::Limits) and a cursor, any client sends it, and
//! the response's JSON becomes a `Bounded<T>`:
//!
//! | the response says                         | the page says                                               |
//! |-------------------------------------------|-------------------------------------------------------------|
//! | `limit + 1` hits                          | cut by the limit, a prefix, with a cursor                   |
//! | `hits.total` `eq` / `gte`                 | `Total::Exact` / `Total::AtLeast`, never below the page     |
//! | `timed_out: true`                         | a subset stopped by the deadline, no cursor                 |
//! | `timed_out` and `limit + 1` hits          | both stops: the deadline, and the limit reached as well     |
//! | `terminated_early: true`                  | a subset stopped by the document budget (`files`)           |
//! | fewer hits than `size`, `hits.total` more | a subset (the count says hits are missing), no cursor       |
//! | `_shards.failed`, `_shards.failures[]`    | error skips, `index/shard N`, reason = the failure's `type` |
//! | `_shards.skipped`                         | policy skips (`shard_prefiltered`)                          |
//! | `search_context_missing_exception`        | [`ErrorKind::StaleCursor`](crate::ErrorKind::StaleCursor)   |
//!
//! A time-out makes a subset because every shard returns the hits it had
//! found by then, so the page's hits are not the first of the sorted
//! answer, and resuming after the last of them could skip hits for good.
//! `terminated_early` is set only when `terminate_after` cut the
//! collection, which returns partial results, not when index sorting
//! ends a search early with the right top hits
//! (<https://github.com/elastic/elasticsearch/pull/26597>): it makes a
//! subset too.
//!
//! Paging is by `search_after` over a total order: the caller's sort
//! fields, then a tie-breaker (`_shard_doc` with a point in time, or a
//! unique field), so that a walk neither repeats nor skips a hit. The
//! cursor is bound to the search (its query, sort and body fields) and
//! carries the sort values of the last hit shown (of any JSON type, kept
//! exactly: floats are parsed with `serde_json`'s `float_roundtrip`, which
//! this feature turns on) and the point in time's latest id.
//!
//! A [`Fanout`] runs one search across several clusters and merges their
//! pages under one global limit (see [the contract](crate::contract),
//! rules M1 to M7): a cluster that fails or times out is stated on the
//! page, never dropped.
//!
//! Response shapes are those the engines document:
//! <https://www.elastic.co/guide/en/elasticsearch/reference/current/search-search.html>,
//! <https://www.elastic.co/guide/en/elasticsearch/reference/current/paginate-search-results.html>,
//! <https://opensearch.org/docs/latest/api-reference/search/> and
//! <https://opensearch.org/docs/latest/search-plugins/searching-data/point-in-time/>.
//!
//! # Example
//!
//! ```
//! use candor::Limits;
//! use candor::opensearch::{Order, Search, SortField};
//! use serde_json::json;
//!
//! let search = Search::new(json!({ "match": { "msg": "flush" } }))
//!     .sort(SortField::new("day", Order::Asc))
//!     .pit("46ToAwMD");
//! let limits = Limits::new().limit(2);
//! let mut cursor = None;
//! let mut pages = vec![
//!     json!([ { "_source": "a", "sort": [1, 4] }, { "_source": "b", "sort": [1, 9] }, { "_source": "c", "sort": [2, 1] } ]),
//!     json!([ { "_source": "c", "sort": [2, 1] } ]),
//! ]
//! .into_iter();
//! let mut seen = Vec::new();
//! loop {
//!     let request = search.request(&limits, cursor.as_ref())?;
//!     // Here a client sends `request.body()`; this one answers from a list.
//!     let response = json!({ "pit_id": "46ToAwMD", "took": 1, "timed_out": false,
//!         "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
//!         "hits": { "total": { "value": 3, "relation": "eq" }, "hits": pages.next().unwrap() } });
//!     let page = request.read::<String>(&response)?;
//!     seen.extend(page.items().iter().cloned());
//!     match page.next_cursor() {
//!         Some(next) => cursor = Some(next.clone()),
//!         None => {
//!             assert!(page.is_complete());
//!             break;
//!         }
//!     }
//! }
//! assert_eq!(seen, ["a", "b", "c"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fanout;
mod missing;
mod page;
mod reply;
mod request;
mod search;
mod sort;
mod state;

pub use fanout::Fanout;
pub use request::{FanoutRequest, Request};
pub use search::Search;
pub use sort::{Order, SortField, TieBreaker};

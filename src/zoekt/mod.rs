//! Zoekt's JSON search API (`POST /api/search` of `zoekt-webserver -rpc`):
//! a search's request from [`Limits`](crate::Limits), and the answer as a
//! [`Bounded<T>`](crate::Bounded) of file matches that is not whole
//! whenever one of Zoekt's limits could have cut it (feature `zoekt`).
//!
//! Zoekt says how whole its answer is only by implication, in the
//! response's `Stats` (see `api.go` in github.com/sourcegraph/zoekt):
//!
//! | the response says                               | could a limit have cut it?                                        |
//! |-------------------------------------------------|-------------------------------------------------------------------|
//! | `FilesSkipped > 0`                              | yes: a shard stopped at `ShardMaxMatchCount` (or the time ran out) |
//! | `ShardsSkipped > 0`                             | yes: shards not searched once the query was cancelled (time-out)   |
//! | `MatchCount >= ShardMaxMatchCount` or `>= TotalMaxMatchCount` | yes: a tripped `TotalMaxMatchCount` simply stops sending shards, and is seen only in the count |
//! | `FlushReason` `timer_expired` (1), `max_size_reached` (4), unknown, or absent | yes: results were flushed before the search ended, or may have been |
//! | fewer `Files` than `FileCount`, below the display limit | yes: files were dropped after the count              |
//! | `Crashes > 0`                                   | shards failed (or were still loading): an error skip             |
//!
//! When any limit could have cut the answer, the page is a subset (the
//! files found before the cut, in Zoekt's ranking, are not the best-ranked
//! files of the whole answer), stopped by the deadline (skipped shards, a
//! timer flush) or by the per-shard budget (`files`: the candidate files
//! left unsearched), with a lower-bound total (`FileCount`) and no cursor.
//! Otherwise the page is exact, or cut by the limit (`MaxDocDisplayCount`
//! is the limit plus one, so the extra file proves truncation) with
//! `FileCount` as its exact total. Zoekt cannot resume a search, so no
//! page has a cursor. `FlushReason` 0 (none, what `/api/search` answers:
//! it collects every shard's result before answering) and 2
//! (`final_flush`) say nothing of a cut. An answer without `FlushReason`
//! cannot rule one out: `Stats.FlushReason` has no `omitempty` in
//! `api.go`, so Zoekt writes it on every answer since it was added
//! (sourcegraph/zoekt#476), while results could be flushed early on
//! `FlushWallTime` since before then (#438); an answer that lacks it
//! comes from a Zoekt that could flush early without saying so, or from
//! something that is not Zoekt's encoder.
//!
//! The per-shard budget's figures are those the response proves: the
//! files searched are at least `FilesConsidered`, `FileCount` and the
//! files returned (a file that matched was searched), of those and the
//! `FilesSkipped` left unsearched.
//!
//! # Which settings make an answer provably whole
//!
//! The adapter always sends `ShardMaxMatchCount` and `TotalMaxMatchCount`
//! (Zoekt's defaults, 100,000 and 1,000,000, unless set), so the JSON
//! handler's own estimate does not replace them unseen. An answer is
//! whole, and the page exact, when the response shows `MatchCount` below
//! both, `FilesSkipped` and `ShardsSkipped` at 0, `Crashes` at 0,
//! `FlushReason` 0 or 2, every file it counts returned, and at most
//! `limit` files: raise the two match counts
//! above the query's number of matches, give `MaxWallTime` (the
//! [`deadline`](crate::Limits::deadline); without one the handler stops
//! after 20 seconds) time enough, and leave `MaxMatchDisplayCount`,
//! `FlushWallTime` and `ShardRepoMaxMatchCount` unset (the first two are
//! refused, the last shows as `FilesSkipped`).
//!
//! # Example
//!
//! ```
//! use candor::Limits;
//! use candor::zoekt::Search;
//! use serde_json::json;
//!
//! let search = Search::new("Typography lang:typescript");
//! let request = search.request(&Limits::new().limit(2))?;
//! assert_eq!(request.body()["Opts"]["MaxDocDisplayCount"], 3);
//! let response = json!({ "Result": {
//!     "MatchCount": 5, "FileCount": 2, "FilesSkipped": 0, "ShardsSkipped": 0,
//!     "ShardsSkippedFilter": 3, "Crashes": 0, "FlushReason": 0,
//!     "Files": [
//!         { "FileName": "src/a.ts", "Repository": "web", "LineMatches": [] },
//!         { "FileName": "src/b.ts", "Repository": "web", "LineMatches": [] }
//!     ] } });
//! let page = request.read_with(&response, |file| {
//!     file["FileName"].as_str().map(String::from).ok_or("no FileName")
//! })?;
//! assert!(page.is_complete());
//! assert_eq!(page.items(), ["src/a.ts", "src/b.ts"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod request;
mod response;

pub use request::{Request, Search};

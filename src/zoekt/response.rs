//! Reading Zoekt's answer to `/api/search` (`{"Result": SearchResult}`,
//! or `{"Error": "..."}`) into a `Bounded<T>`: whole, cut by the limit,
//! or, whenever one of Zoekt's limits could have cut it, a subset.
//!
//! Field names are those of `SearchResult` and its embedded `Stats` in
//! Zoekt's `api.go`, encoded by Go's `encoding/json` (the embedded
//! struct's fields at the top level, `Files` `null` when empty).

use std::fmt::Display;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::request::Request;
use crate::cluster::{SubsetPage, bulk_skips, clip, count_at, response_error};
use crate::collector::Collector;
use crate::error::Error;
use crate::{Bounded, Budget, BudgetKind, SkipReason, Skipped, Total};

/// How long the JSON handler lets a search run when the request gives no
/// `MaxWallTime` (`defaultTimeout` in `internal/json/json.go`).
const HANDLER_TIMEOUT_MS: u64 = 20_000;

/// `FlushReason` values that say nothing of a cut: none (what
/// `/api/search` answers: it collects every shard's result before
/// answering) and `final_flush` (the flush at the search's end).
const NO_FLUSH: u64 = 0;
const FINAL_FLUSH: u64 = 2;
const TIMER_EXPIRED: u64 = 1;
const MAX_SIZE_REACHED: u64 = 4;

/// The per-shard budget of a cut the clock did not make, in files: those
/// searched (`used`: at least the files `FilesConsidered` says were
/// evaluated, the `FileCount` files that matched and the `shown` files
/// returned, whichever is the most, since a file that matched was
/// evaluated) of the candidates (`max`: those searched and the
/// `FilesSkipped` left unsearched). Each figure is one the response
/// proves, never a 0 it does not state.
fn files_budget(considered: Option<u64>, file_count: u64, shown: u64, skipped: u64) -> Budget {
    let used = considered.unwrap_or(0).max(file_count).max(shown);
    Budget::new(BudgetKind::Files, used.saturating_add(skipped), used)
}

impl Request {
    /// Reads the response into a page whose items are the file matches
    /// (`Files`), each decoded as a `T`.
    ///
    /// # Errors
    ///
    /// As [`read_with`](Self::read_with).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::Limits;
    /// use candor::zoekt::Search;
    /// use serde_json::json;
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// #[serde(rename_all = "PascalCase")]
    /// struct FileMatch { file_name: String, repository: String }
    /// let request = Search::new("needle").request(&Limits::new().limit(1))?;
    /// let response = json!({ "Result": {
    ///     "MatchCount": 3, "FileCount": 2, "FilesSkipped": 0, "ShardsSkipped": 0,
    ///     "Crashes": 0, "FlushReason": 0,
    ///     "Files": [ { "FileName": "a.go", "Repository": "r" }, { "FileName": "b.go", "Repository": "r" } ] } });
    /// let page = request.read::<FileMatch>(&response)?;
    /// assert_eq!(page.len(), 1);
    /// assert_eq!(page.total(), candor::Total::Exact(2));
    /// assert!(page.completeness().is_truncated_by_limit());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read<T>(&self, response: &Value) -> Result<Bounded<T>, Error>
    where
        T: Serialize + DeserializeOwned,
    {
        self.read_with(response, |file| {
            T::deserialize(file).map_err(|e| format!("it does not decode: {e}"))
        })
    }

    /// Reads the response into a page whose items `map` makes of each
    /// file match (`{"FileName": ..., "Repository": ..., "LineMatches":
    /// [...], ...}`), in Zoekt's ranking.
    ///
    /// The page is a subset, stopped by the deadline or the per-shard
    /// budget (`files`), with a lower-bound total and the limit reached as
    /// well when Zoekt returned more than the limit, whenever a Zoekt
    /// limit could have cut the answer (see the [module](super) docs);
    /// otherwise exact, or cut by the limit with `FileCount` as its total.
    /// Shards that crashed (`Crashes`) are error skips (`shard_crash`).
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) named
    /// `response` for Zoekt's error response (`{"Error": ...}`), a JSON
    /// that is not a search response (a missing count among
    /// `MatchCount`, `FileCount`, `FilesSkipped`, `ShardsSkipped`,
    /// `Crashes`), or an error from `map`; and those of the byte budget,
    /// as in [`Bounded::collect`](crate::Bounded::collect).
    ///
    /// # Example
    ///
    /// ```
    /// use candor::{BudgetKind, Limits};
    /// use candor::zoekt::Search;
    /// use serde_json::json;
    /// let request = Search::new("needle").shard_max_match_count(100).request(&Limits::new().limit(10))?;
    /// // A shard stopped at ShardMaxMatchCount, leaving candidate files unsearched.
    /// let response = json!({ "Result": {
    ///     "MatchCount": 100, "FileCount": 4, "FilesConsidered": 30, "FilesSkipped": 70,
    ///     "ShardsSkipped": 0, "Crashes": 0, "FlushReason": 0,
    ///     "Files": [ { "FileName": "a.go" }, { "FileName": "b.go" } ] } });
    /// let page = request.read_with(&response, |f| f["FileName"].as_str().map(String::from).ok_or("no name"))?;
    /// assert!(!page.is_complete() && page.disclosure().is_subset());
    /// assert_eq!(page.completeness().budget().map(|b| b.kind()), Some(BudgetKind::Files));
    /// assert_eq!(page.total(), candor::Total::AtLeast(4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_with<T, E, F>(&self, response: &Value, mut map: F) -> Result<Bounded<T>, Error>
    where
        T: Serialize,
        E: Display,
        F: FnMut(&Value) -> Result<T, E>,
    {
        let result = search_result(response)?;
        let stats = Stats::read(result)?;
        let files = files_of(result, stats.file_count)?;
        let cut = self.cut(&stats, files.len());
        let skipped = bulk_skips(
            &SkipReason::Other("shard_crash".into()),
            stats.crashes,
            true,
            ["shards (crashed, or not loaded yet)".to_owned()],
        );
        let keep = self.limit.unwrap_or(usize::MAX);
        // A whole answer's page is cut by the collector, which must be
        // offered the file past the limit that proves truncation.
        let take = if cut.causes.is_empty() {
            keep.saturating_add(1)
        } else {
            keep
        };
        let mut items = Vec::with_capacity(files.len().min(take));
        for (i, file) in files.iter().take(take).enumerate() {
            items.push(map(file).map_err(|e| response_error(format!("file {i}: {e}")))?);
        }
        if cut.causes.is_empty() {
            self.whole_page(items, skipped, stats.file_count, files.len())
        } else {
            self.subset_page(items, skipped, result, &stats, files.len(), cut)
        }
    }

    /// Every reason the response gives to think one of Zoekt's limits cut
    /// the answer, `shown` files being returned; none for a whole answer.
    fn cut(&self, stats: &Stats, shown: usize) -> Cut {
        let mut cut = Cut {
            causes: Vec::new(),
            timed: false,
        };
        if stats.shards_skipped > 0 {
            cut.timed = true;
            cut.causes.push(format!(
                "{} shards were not searched once the search was cancelled (ShardsSkipped)",
                stats.shards_skipped
            ));
        }
        match stats.flush {
            None => cut.causes.push(
                "the response does not say why results were flushed (no FlushReason), so an early flush cannot be ruled out".into(),
            ),
            Some(NO_FLUSH | FINAL_FLUSH) => {}
            Some(TIMER_EXPIRED) => {
                cut.timed = true;
                cut.causes.push(
                    "results were flushed when FlushWallTime expired (FlushReason timer_expired)"
                        .into(),
                );
            }
            Some(MAX_SIZE_REACHED) => cut
                .causes
                .push("results were flushed at a size limit (FlushReason max_size_reached)".into()),
            Some(other) => cut.causes.push(format!(
                "results were flushed for a reason not known here (FlushReason {other})"
            )),
        }
        cut.causes.extend(self.match_limit_causes(stats));
        let display = self.limit.map(|l| l.saturating_add(1));
        let file_count = stats.file_count;
        if (shown as u64) < file_count && display.is_none_or(|d| shown < d) {
            cut.causes.push(format!(
                "{shown} files are returned of the {file_count} counted"
            ));
        }
        cut
    }

    /// The causes of a cut that the match limits say could have been
    /// made: files left unsearched, a match count at a limit.
    fn match_limit_causes(&self, stats: &Stats) -> Vec<String> {
        let mut causes = Vec::new();
        if stats.files_skipped > 0 {
            causes.push(format!(
                "{} candidate files were left unsearched (FilesSkipped): a shard reached ShardMaxMatchCount ({}) or ran out of time",
                stats.files_skipped, self.shard_max_match_count
            ));
        }
        let match_count = stats.match_count;
        if match_count >= self.total_max_match_count {
            causes.push(format!(
                "the {match_count} matches reached TotalMaxMatchCount ({}), after which no more shards are searched",
                self.total_max_match_count
            ));
        } else if match_count >= self.shard_max_match_count {
            causes.push(format!(
                "the {match_count} matches reached ShardMaxMatchCount ({}), where a shard stops",
                self.shard_max_match_count
            ));
        }
        causes
    }

    /// The page of a whole answer: exact, or cut by the limit with
    /// `FileCount` as its total.
    fn whole_page<T: Serialize>(
        &self,
        items: Vec<T>,
        skipped: Skipped,
        file_count: u64,
        shown: usize,
    ) -> Result<Bounded<T>, Error> {
        let mut collector = Collector::new(&self.limits);
        collector.absorb_skipped(skipped);
        for item in items {
            if collector.offer(item).is_break() {
                break;
            }
        }
        let shown = shown as u64;
        // More files shown than counted: the count is not to be trusted
        // as the whole answer's size, only as a lower bound.
        let total = if file_count < shown {
            Total::AtLeast(shown)
        } else {
            Total::Exact(file_count)
        };
        collector.finish(|_| None, Some(total))
    }

    /// The page of an answer one of Zoekt's limits could have cut: a
    /// subset stopped by the deadline or the per-shard budget, its note
    /// naming every cause.
    fn subset_page<T: Serialize>(
        &self,
        items: Vec<T>,
        skipped: Skipped,
        result: &Value,
        stats: &Stats,
        shown: usize,
        cut: Cut,
    ) -> Result<Bounded<T>, Error> {
        let limit_reached = self.limit.filter(|l| shown > *l);
        let shown = shown as u64;
        let budget = if cut.timed {
            let max = self.wall_ms.unwrap_or(HANDLER_TIMEOUT_MS);
            let used = count_at(result, "Duration").map_or(max, |ns| ns / 1_000_000);
            Budget::new(BudgetKind::Deadline, max, used)
        } else {
            files_budget(
                count_at(result, "FilesConsidered"),
                stats.file_count,
                shown,
                stats.files_skipped,
            )
        };
        let mut note = format!(
            "Zoekt stopped early: {}. These files are some of the matching files in Zoekt's ranking, not the best-ranked of the whole answer, and Zoekt cannot resume a search: raise ShardMaxMatchCount and TotalMaxMatchCount, allow more time, or narrow the query.",
            cut.causes.join("; ")
        );
        if let Some(limit) = limit_reached {
            note.push_str(&format!(
                " More files exist: the limit of {limit} was reached as well."
            ));
        }
        SubsetPage {
            items,
            budget,
            limit_reached,
            at_least: stats.file_count.max(shown),
            start: 0,
            skipped,
            note,
        }
        .finish(&self.limits)
    }
}

/// Why an answer could have been cut: the causes, in the note's words,
/// and whether the clock made one of them.
struct Cut {
    causes: Vec<String>,
    timed: bool,
}

/// The counts of `SearchResult`'s `Stats` the page is judged by.
struct Stats {
    match_count: u64,
    file_count: u64,
    files_skipped: u64,
    shards_skipped: u64,
    crashes: u64,
    /// `FlushReason`; `None` when the answer does not say.
    flush: Option<u64>,
}

impl Stats {
    /// Reads the counts of `result`, refusing an answer of estimate mode.
    fn read(result: &Value) -> Result<Stats, Error> {
        let stat = |name: &str| {
            count_at(result, name).ok_or_else(|| {
                response_error(format!(
                    "not a Zoekt search response: Result.{name} is not a count"
                ))
            })
        };
        let match_count = stat("MatchCount")?;
        let file_count = stat("FileCount")?;
        let files_skipped = stat("FilesSkipped")?;
        let shards_skipped = stat("ShardsSkipped")?;
        let crashes = stat("Crashes")?;
        // Zoekt writes FlushReason on every answer (a field of `Stats`
        // with no `omitempty`, since sourcegraph/zoekt#476), and could
        // flush early on FlushWallTime before it said so (#438): an answer
        // without it cannot rule out an early flush.
        let flush = match result.get("FlushReason") {
            None => None,
            Some(_) => Some(stat("FlushReason")?),
        };
        Ok(Stats {
            match_count,
            file_count,
            files_skipped,
            shards_skipped,
            crashes,
            flush,
        })
    }
}

/// The `Result` object of a search response, or the error Zoekt
/// answered with.
fn search_result(response: &Value) -> Result<&Value, Error> {
    if let Some(error) = response.get("Error") {
        let message = error
            .as_str()
            .map_or_else(|| error.to_string(), String::from);
        return Err(response_error(format!(
            "Zoekt answered with an error: {}",
            clip(&message, 300)
        )));
    }
    response
        .get("Result")
        .filter(|r| r.is_object())
        .ok_or_else(|| response_error("not a Zoekt search response: no Result object"))
}

/// The file matches of `result`, which counted `file_count` files; an
/// error for an answer of estimate mode or one returning more files than
/// it counted.
fn files_of(result: &Value, file_count: u64) -> Result<&[Value], Error> {
    let files: &[Value] = match result.get("Files") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(files)) => files,
        Some(_) => {
            return Err(response_error(
                "not a Zoekt search response: Result.Files is not a list",
            ));
        }
    };
    // In estimate mode (EstimateDocCount) each shard returns at once
    // with ShardFilesConsidered alone, searching nothing; a search
    // sends ShardMaxMatchCount, which Zoekt answers with 0 there.
    match result.get("ShardFilesConsidered") {
        None | Some(Value::Null) => {}
        Some(_) => match count_at(result, "ShardFilesConsidered") {
            Some(0) => {}
            None => {
                return Err(response_error(
                    "not a Zoekt search response: Result.ShardFilesConsidered is not a count",
                ));
            }
            Some(_) => {
                return Err(response_error(
                    "not a Zoekt search response: ShardFilesConsidered is set, so the shards only estimated the files (EstimateDocCount) and searched none",
                ));
            }
        },
    }
    if files.len() as u64 > file_count {
        return Err(response_error(format!(
            "not a Zoekt search response: {} files returned, more than the {file_count} counted (FileCount)",
            files.len()
        )));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_budget_states_what_the_response_proves() {
        // No FilesConsidered, 11 counted, 3 shown, none skipped: 11 searched.
        assert_eq!(
            files_budget(None, 11, 3, 0),
            Budget::new(BudgetKind::Files, 11, 11)
        );
        assert_eq!(
            files_budget(Some(30), 4, 2, 70),
            Budget::new(BudgetKind::Files, 100, 30)
        );
        // More shown than either count says: the files shown were searched.
        assert_eq!(
            files_budget(Some(1), 0, 5, 2),
            Budget::new(BudgetKind::Files, 7, 5)
        );
    }
}

//! The Zoekt adapter on recorded responses, and the property that a page
//! is whole only when no Zoekt limit could have cut the answer.
//!
//! The recordings in `tests/data/zoekt/` are `/api/search` answers as
//! Zoekt writes them (`internal/json/json.go`: `{"Result":
//! SearchResult}`, or `{"Error": ...}`): `SearchResult` of `api.go` with
//! its embedded `Stats` at the top level (`MatchCount`, `FileCount`,
//! `FilesSkipped`, `ShardsSkipped`, `Crashes`, `FlushReason`, durations in
//! nanoseconds), `Files` of `FileMatch` (`LineMatches` with their `Line`
//! in base64, as Go encodes `[]byte`), `null` when none, as Go encodes an
//! empty slice. Source: github.com/sourcegraph/zoekt, `api.go` and
//! `internal/json/json.go`.
//!
//! | file                  | what it records                                                   |
//! |-----------------------|-------------------------------------------------------------------|
//! | `whole.json`          | a whole answer, `FlushReason` 0 (none)                            |
//! | `final-flush.json`    | a whole answer, `FlushReason` 2 (`final_flush`)                   |
//! | `timer-expired.json`  | `FlushReason` 1 (`timer_expired`)                                 |
//! | `max-size.json`       | `FlushReason` 4 (`max_size_reached`)                              |
//! | `shard-max.json`      | a shard at `ShardMaxMatchCount` (100): `FilesSkipped` 812         |
//! | `total-max.json`      | `MatchCount` 57 past `TotalMaxMatchCount` (50), nothing skipped   |
//! | `shards-skipped.json` | 14 shards skipped after a time-out                                |
//! | `crashes.json`        | a shard crashed                                                   |
//! | `limit.json`          | 4 files for a limit of 3, of 11 counted                           |
//! | `no-files.json`       | nothing matched (`Files` is `null`)                               |
//! | `error.json`          | the error response                                                |
#![cfg(feature = "zoekt")]

use std::time::Duration;

use candor::zoekt::Search;
use candor::{Bounded, BudgetKind, Completeness, ErrorKind, Limits, Total};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::core_support::config;

fn recorded(name: &str) -> Value {
    let path = format!("{}/tests/data/zoekt/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn name(file: &Value) -> Result<String, &'static str> {
    file["FileName"]
        .as_str()
        .map(String::from)
        .ok_or("no FileName")
}

fn read(search: &Search, limits: &Limits, file: &str) -> Result<Bounded<String>, candor::Error> {
    search.request(limits)?.read_with(&recorded(file), name)
}

/// The recorded cases: the file, the search's match limits, and whether
/// the page must be whole.
const CASES: &[(&str, u64, u64, bool)] = &[
    ("whole.json", 100_000, 1_000_000, true),
    ("final-flush.json", 100_000, 1_000_000, true),
    ("no-files.json", 100_000, 1_000_000, true),
    ("timer-expired.json", 100_000, 1_000_000, false),
    ("max-size.json", 100_000, 1_000_000, false),
    ("shard-max.json", 100, 1_000, false),
    ("total-max.json", 100_000, 50, false),
    ("shards-skipped.json", 100_000, 1_000_000, false),
    ("crashes.json", 100_000, 1_000_000, false),
];

#[test]
fn recorded_answers_are_whole_only_when_no_limit_could_have_cut_them() {
    let limits = Limits::new().limit(10);
    for &(file, shard_max, total_max, whole) in CASES {
        let search = Search::new("flush")
            .shard_max_match_count(shard_max)
            .total_max_match_count(total_max);
        let page = read(&search, &limits, file).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            page.is_complete(),
            whole,
            "{file}: {}",
            page.summary("files")
        );
        assert!(page.next_cursor().is_none(), "{file}: Zoekt cannot resume");
        let text = page.to_json().unwrap();
        let back: Bounded<String> = serde_json::from_str(&text).expect("decodes");
        assert_eq!(back, page, "{file}");
        let files = recorded(file)["Result"]["FileCount"].as_u64().unwrap();
        if whole {
            assert_eq!(page.total(), Total::Exact(files), "{file}");
            assert_eq!(page.len() as u64, files, "{file}");
        } else if file != "crashes.json" {
            // Cut by a limit: a subset, with a lower-bound total.
            assert!(page.disclosure().is_subset(), "{file}");
            assert_eq!(page.total(), Total::AtLeast(files), "{file}");
        }
    }
}

#[test]
fn each_cut_names_its_stop_and_the_setting_that_made_it() {
    let limits = Limits::new().limit(10).deadline(Duration::from_secs(20));
    let stop = |search: &Search, file: &str| {
        let page = read(search, &limits, file).expect("a page");
        let budget = *page.completeness().budget().expect("a budget stop");
        let wire: Value = serde_json::from_str(&page.to_json().unwrap()).unwrap();
        (
            budget,
            wire["truncation"]["note"].as_str().unwrap().to_owned(),
        )
    };
    let default = Search::new("flush");
    let (budget, note) = stop(&default, "shards-skipped.json");
    assert_eq!(
        (budget.kind(), budget.max(), budget.used()),
        (BudgetKind::Deadline, 20_000, 20_001)
    );
    assert!(note.contains("14 shards were not searched"), "{note}");
    let (budget, note) = stop(&default, "timer-expired.json");
    assert_eq!(budget.kind(), BudgetKind::Deadline);
    assert!(note.contains("FlushReason timer_expired"), "{note}");
    let (budget, note) = stop(&default, "max-size.json");
    assert_eq!(budget.kind(), BudgetKind::Files);
    assert!(note.contains("max_size_reached"), "{note}");
    let (budget, note) = stop(
        &Search::new("flush").shard_max_match_count(100),
        "shard-max.json",
    );
    // 12 files searched (9 matched), 812 left unsearched.
    assert_eq!(
        (budget.kind(), budget.max(), budget.used()),
        (BudgetKind::Files, 824, 12)
    );
    assert!(note.contains("ShardMaxMatchCount (100)"), "{note}");
    let (_, note) = stop(
        &Search::new("flush").total_max_match_count(50),
        "total-max.json",
    );
    assert!(note.contains("TotalMaxMatchCount (50)"), "{note}");
    // The same answer under the default limits: 57 matches could not
    // have reached them.
    let page = read(&default, &limits, "total-max.json").unwrap();
    assert!(page.is_complete());
}

#[test]
fn more_files_than_the_limit_is_a_cut_by_the_limit_with_an_exact_total() {
    let page = read(&Search::new("flush"), &Limits::new().limit(3), "limit.json").unwrap();
    assert_eq!(
        page.completeness(),
        &Completeness::TruncatedByLimit {
            limit: 3,
            requested: None
        }
    );
    assert_eq!(page.total(), Total::Exact(11));
    assert_eq!(page.len(), 3);
    assert!(page.next_cursor().is_none());
    assert!(!page.disclosure().is_subset());
    // The same files, when a limit could have cut them too: a subset that
    // also reached the limit.
    let search = Search::new("flush").total_max_match_count(4);
    let page = read(&search, &Limits::new().limit(3), "limit.json").unwrap();
    assert!(page.disclosure().is_subset());
    assert_eq!(page.disclosure().limit_reached(), Some(3));
    assert_eq!(page.total(), Total::AtLeast(11));
}

#[test]
fn a_crash_is_an_error_skip() {
    let page = read(
        &Search::new("flush"),
        &Limits::new().limit(10),
        "crashes.json",
    )
    .unwrap();
    assert!(!page.is_complete());
    assert_eq!(page.completeness(), &Completeness::Exact);
    assert_eq!(
        page.skipped()
            .errors_by_reason()
            .next()
            .map(|(r, n)| (r.as_str(), n)),
        Some(("shard_crash", 1))
    );
}

#[test]
fn an_answer_without_flush_reason_cannot_rule_out_an_early_flush() {
    // `Stats.FlushReason` has no `omitempty` (api.go): Zoekt writes it on
    // every answer since sourcegraph/zoekt#476, and could flush early on
    // FlushWallTime since #438, before it said so. Without it, a flush
    // cannot be ruled out: not whole, and the total a lower bound.
    let request = Search::new("flush")
        .request(&Limits::new().limit(10))
        .unwrap();
    let mut answer = recorded("whole.json");
    assert!(request.read_with(&answer, name).unwrap().is_complete());
    answer["Result"]
        .as_object_mut()
        .unwrap()
        .remove("FlushReason");
    let page = request.read_with(&answer, name).expect("a page");
    assert!(!page.is_complete());
    assert!(page.disclosure().is_subset());
    let files = answer["Result"]["FileCount"].as_u64().unwrap();
    assert_eq!(page.total(), Total::AtLeast(files));
    let wire: Value = serde_json::from_str(&page.to_json().unwrap()).unwrap();
    let note = wire["truncation"]["note"].as_str().unwrap();
    assert!(note.contains("no FlushReason"), "{note}");
}

#[test]
fn files_dropped_after_the_count_state_the_files_searched() {
    // 5 files counted, 2 returned under a limit of 10, no FilesConsidered:
    // at least the 5 that matched were searched, none left unsearched.
    let request = Search::new("flush")
        .request(&Limits::new().limit(10))
        .unwrap();
    let answer = json!({ "Result": {
        "MatchCount": 7, "FileCount": 5, "FilesSkipped": 0, "ShardsSkipped": 0,
        "Crashes": 0, "FlushReason": 0,
        "Files": [ { "FileName": "a.go" }, { "FileName": "b.go" } ] } });
    let page = request.read_with(&answer, name).expect("a page");
    assert!(page.disclosure().is_subset());
    assert_eq!(page.total(), Total::AtLeast(5));
    let budget = page.completeness().budget().expect("a budget stop");
    assert_eq!(
        (budget.kind(), budget.max(), budget.used()),
        (BudgetKind::Files, 5, 5)
    );
}

#[test]
fn the_error_response_and_other_shapes_are_errors() {
    let err = read(&Search::new("flush"), &Limits::new(), "error.json").expect_err("an error");
    assert!(err.to_string().contains("missing query"), "{err}");
    let request = Search::new("flush").request(&Limits::new()).unwrap();
    let mut no_count = recorded("whole.json");
    no_count["Result"]
        .as_object_mut()
        .unwrap()
        .remove("FilesSkipped");
    let err = request
        .read_with(&no_count, name)
        .expect_err("a count is missing");
    assert!(err.to_string().contains("FilesSkipped"), "{err}");
    assert!(matches!(
        err.kind(),
        ErrorKind::InvalidArgument {
            name: "response",
            ..
        }
    ));
    // Options that would hide a cut, or a zero limit Zoekt replaces, are refused.
    for search in [
        Search::new("x").option("MaxMatchDisplayCount", json!(5)),
        Search::new("x").option("FlushWallTime", json!(1)),
        Search::new("x").shard_max_match_count(0),
        // Go's encoding/json matches field names without regard to case:
        // these set the same options.
        Search::new("x").option("estimateDocCount", json!(true)),
        Search::new("x").option("maxdocdisplaycount", json!(1)),
        Search::new("x").option("TOTALMAXMATCHCOUNT", json!(1)),
        Search::new("x").option("flushWallTime", json!(1)),
    ] {
        assert!(search.request(&Limits::new()).is_err());
    }
}

#[test]
fn a_page_under_a_byte_budget_fits_it() {
    for file in ["whole.json", "shard-max.json", "limit.json"] {
        for max in (120..1200).step_by(37) {
            let search = Search::new("flush").shard_max_match_count(100);
            let limits = Limits::new().limit(3).max_bytes(max);
            match read(&search, &limits, file) {
                Ok(page) => assert!(page.to_json().unwrap().len() <= max, "{file} {max}"),
                Err(e) => assert!(
                    matches!(e.kind(), ErrorKind::BudgetTooSmall { .. }),
                    "{e:?}"
                ),
            }
        }
    }
}

/// A generated `Stats` and its files.
#[derive(Debug, Clone)]
struct Answer {
    match_count: u64,
    file_count: u64,
    files: usize,
    files_skipped: u64,
    shards_skipped: u64,
    crashes: u64,
    /// `FlushReason`, or `None` when the response leaves it out.
    flush: Option<u64>,
    /// `FilesConsidered`, or `None` when the response leaves it out.
    considered: Option<u64>,
}

impl Answer {
    fn rules_out_every_cut(&self, limit: usize, shard_max: u64, total_max: u64) -> bool {
        self.match_count < shard_max
            && self.match_count < total_max
            && self.files_skipped == 0
            && self.shards_skipped == 0
            && self.crashes == 0
            && matches!(self.flush, Some(0 | 2))
            && self.files <= limit
            && self.file_count <= self.files as u64
    }

    fn to_json(&self) -> Value {
        let files: Vec<Value> = (0..self.files)
            .map(|i| json!({ "FileName": format!("f{i}.go"), "Repository": "r", "Language": "Go", "Checksum": "AA==" }))
            .collect();
        let mut response = json!({ "Result": {
            "Crashes": self.crashes, "Duration": 1_000_000, "FileCount": self.file_count,
            "FilesSkipped": self.files_skipped,
            "ShardsScanned": 4, "ShardsSkipped": self.shards_skipped, "ShardsSkippedFilter": 0,
            "MatchCount": self.match_count,
            "Files": if files.is_empty() { Value::Null } else { Value::Array(files) },
            "RepoURLs": {}, "LineFragments": {}
        } });
        if let Some(flush) = self.flush {
            response["Result"]["FlushReason"] = json!(flush);
        }
        if let Some(considered) = self.considered {
            response["Result"]["FilesConsidered"] = json!(considered);
        }
        response
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// A page is whole only when the response rules out every cut:
    /// matches under both limits, no file or shard skipped, no crash, a
    /// `FlushReason` that says no early flush (an absent one cannot), the
    /// files within the limit, and every file counted returned. A cut the
    /// clock did not make states the files searched as the response
    /// proves them: at least those it says were considered, counted and
    /// returned, of those and the ones left unsearched.
    #[test]
    fn a_page_is_complete_only_when_no_zoekt_limit_could_have_cut_it(
        limit in 0usize..5,
        shard_max in 1u64..40,
        total_max in 1u64..60,
        (files, extra) in (0usize..8, prop_oneof![3 => Just(0u64), 1 => 0u64..5]),
        match_count in 0u64..80,
        files_skipped in prop_oneof![3 => Just(0u64), 1 => 1u64..100],
        shards_skipped in prop_oneof![3 => Just(0u64), 1 => 1u64..5],
        crashes in prop_oneof![4 => Just(0u64), 1 => 1u64..3],
        flush in prop_oneof![3 => Just(Some(0u64)), 2 => Just(Some(2u64)), 1 => Just(Some(1u64)), 1 => Just(Some(4u64)), 1 => (5u64..9).prop_map(Some), 1 => Just(None)],
        considered in prop::option::weighted(0.6, 0u64..12),
        max_bytes in prop::option::weighted(0.3, 100usize..700),
    ) {
        let answer = Answer {
            match_count: match_count.max(files as u64),
            file_count: files as u64 + extra,
            files,
            files_skipped,
            shards_skipped,
            crashes,
            flush,
            considered,
        };
        let search = Search::new("q").shard_max_match_count(shard_max).total_max_match_count(total_max);
        let mut limits = Limits::new().limit(limit);
        if let Some(max) = max_bytes {
            limits = limits.max_bytes(max);
        }
        let page = match search.request(&limits).unwrap().read_with(&answer.to_json(), name) {
            Ok(page) => page,
            Err(e) => {
                prop_assert!(matches!(e.kind(), ErrorKind::BudgetTooSmall { .. }), "{e:?}");
                return Ok(());
            }
        };
        let whole = answer.rules_out_every_cut(limit, shard_max, total_max);
        if page.is_complete() {
            prop_assert!(whole, "{answer:?} read as whole");
        }
        if max_bytes.is_none() && whole {
            prop_assert!(page.is_complete());
        }
        if let Some(max) = max_bytes {
            prop_assert!(page.to_json().unwrap().len() <= max);
        }
        prop_assert!(page.total().value() >= page.len() as u64);
        prop_assert!(page.len() <= limit);
        prop_assert!(page.next_cursor().is_none());
        if let Some(budget) = page.completeness().budget().filter(|b| b.kind() == BudgetKind::Files) {
            let proven = answer.considered.unwrap_or(0).max(answer.file_count).max(answer.files as u64);
            prop_assert!(budget.used() >= proven, "{budget:?} for {answer:?}");
            prop_assert_eq!(budget.max() - budget.used(), answer.files_skipped);
        }
        let text = page.to_json().unwrap();
        let back: Bounded<String> = serde_json::from_str(&text).expect("the decoder's rules hold");
        prop_assert_eq!(&back, &page);
    }
}

#[test]
fn the_adapter_s_types_are_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<Search>();
    both::<candor::zoekt::Request>();
}

#[test]
fn an_estimate_or_more_files_than_counted_is_refused() {
    let request = Search::new("flush")
        .request(&Limits::new().limit(10))
        .unwrap();
    // In estimate mode (EstimateDocCount) each shard answers at once with
    // ShardFilesConsidered alone and searches nothing (index/eval.go):
    // never "0 of exactly 0".
    let mut answer = recorded("whole.json");
    answer["Result"]["ShardFilesConsidered"] = json!(48_211);
    let err = request.read_with(&answer, name).expect_err("an estimate");
    assert!(err.to_string().contains("EstimateDocCount"), "{err}");
    answer["Result"]["ShardFilesConsidered"] = json!(0);
    assert!(request.read_with(&answer, name).unwrap().is_complete());
    // More files returned than FileCount counts contradicts itself.
    let mut answer = recorded("whole.json");
    answer["Result"]["FileCount"] = json!(0);
    let err = request
        .read_with(&answer, name)
        .expect_err("a contradiction");
    assert!(err.to_string().contains("FileCount"), "{err}");
}

#[test]
fn option_names_outside_ascii_are_refused() {
    // Go's encoding/json folds `ſ` onto `s` and the Kelvin sign onto `k`
    // when it matches a key to a field: these would set the options the
    // adapter refuses.
    for name in [
        "EſtimateDocCount",
        "MaxMatchDiſplayCount",
        "FluſhWallTime",
        "\u{212A}eep",
    ] {
        let err = Search::new("x")
            .option(name, json!(1))
            .request(&Limits::new())
            .expect_err(name);
        assert!(err.to_string().contains("ASCII"), "{err}");
    }
    assert!(
        Search::new("x")
            .option("NumContextLines", json!(1))
            .request(&Limits::new())
            .is_ok()
    );
}

/// The options the adapter writes or refuses, as Zoekt names them.
const REFUSED: [&str; 7] = [
    "MaxDocDisplayCount",
    "ShardMaxMatchCount",
    "TotalMaxMatchCount",
    "MaxWallTime",
    "MaxMatchDisplayCount",
    "FlushWallTime",
    "EstimateDocCount",
];

proptest! {
    #![proptest_config(config(256))]

    /// Any spelling Go's encoding/json would match to a refused option
    /// (each letter in either case; `s` as `ſ`, `k` as the Kelvin sign,
    /// which Go's folding maps onto them) is refused.
    #[test]
    fn every_spelling_zoekt_reads_as_a_refused_option_is_refused(
        which in 0..REFUSED.len(),
        flips in prop::collection::vec(0u8..4, 32),
    ) {
        let spelled: String = REFUSED[which]
            .chars()
            .zip(flips.iter().cycle())
            .map(|(c, flip)| match (c.to_ascii_lowercase(), flip) {
                ('s', 3) => 'ſ',
                ('k', 3) => '\u{212A}',
                (_, 0 | 3) => c.to_ascii_lowercase(),
                (_, 1) => c.to_ascii_uppercase(),
                _ => c,
            })
            .collect();
        let refused = Search::new("x").option(spelled.as_str(), json!(1)).request(&Limits::new());
        prop_assert!(refused.is_err(), "{spelled} was sent");
    }
}

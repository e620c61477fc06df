//! The `opensearch` example run as a process: on recorded responses
//! (`--replay`), its pages, its `--json`, the `--cursor` flag it prints,
//! and its errors; and through the official client (`--url`) against a
//! stand-in cluster in the test process, each request checked and the
//! output the same as the replay's (`live`, and `generated` for walks
//! over generated hits).

mod cluster;
mod generated;
mod live;
mod walk;

use std::path::Path;
use std::process::{Command, Output};

use candor::Bounded;
use serde_json::Value;

/// The example's binary, as `cargo test` built it.
fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_opensearch"))
}

/// A recorded response of the contract's tests.
fn data(name: &str) -> String {
    format!(
        "{}/../../tests/data/opensearch/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Runs the example with the walk recordings' search and `args`.
fn run(args: &[&str], files: &[&str]) -> Output {
    let mut command = Command::new(binary());
    command.args([
        "--pit",
        "pit-a",
        "--sort",
        "service:asc",
        "--sort",
        "latency:desc",
        "--limit",
        "2",
    ]);
    command.args(args);
    if !files.is_empty() {
        command.arg("--replay");
        command.args(files.iter().map(|f| data(f)));
    }
    command.output().expect("the example runs")
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn a_replayed_walk_prints_every_hit_once_and_each_page_s_disclosure() {
    let out = run(&[], &["walk-1.json", "walk-2.json", "walk-3.json"]);
    assert!(out.status.success(), "{out:?}");
    let ids: Vec<String> = lines(&out.stdout)
        .iter()
        .map(|l| l.split(':').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        ids,
        [
            "logs-2024.06/d1",
            "logs-2024.06/d2",
            "logs-2024.06/d3",
            "logs-2024.07/d4",
            "logs-2024.07/d5"
        ]
    );
    let status = lines(&out.stderr);
    assert_eq!(status.len(), 3, "{status:?}");
    assert!(status[0].starts_with("Incomplete: hits 1-2 of 5 (limit 2). Resume with --cursor "));
    assert!(status[1].starts_with("Incomplete: hits 3-4 of 5 (limit 2). Resume with --cursor "));
    assert_eq!(status[2], "Complete: hits 5-5 of 5 (the last page).");
}

#[test]
fn the_printed_cursor_flag_resumes_the_walk() {
    let out = run(&[], &["walk-1.json"]);
    let status = lines(&out.stderr);
    let token = status[0]
        .split("--cursor ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("a cursor flag");
    let out = run(&["--cursor", token], &["walk-2.json"]);
    assert!(out.status.success(), "{out:?}");
    let printed = lines(&out.stdout);
    assert_eq!(printed.len(), 2);
    assert!(printed[0].starts_with("logs-2024.06/d3: "));
    assert!(lines(&out.stderr)[0].starts_with("Incomplete: hits 3-4 of 5"));
}

#[test]
fn json_prints_each_page_s_wire_shape() {
    let out = run(&["--json"], &["walk-1.json", "walk-2.json", "walk-3.json"]);
    assert!(out.status.success(), "{out:?}");
    let pages: Vec<Bounded<Value>> = lines(&out.stdout)
        .iter()
        .map(|l| serde_json::from_str(l).expect("a page's wire shape"))
        .collect();
    assert_eq!(pages.len(), 3);
    let ids: Vec<&str> = pages
        .iter()
        .flat_map(|p| p.iter().map(|h| h["_id"].as_str().unwrap()))
        .collect();
    assert_eq!(ids, ["d1", "d2", "d3", "d4", "d5"]);
    assert!(pages[2].is_complete());
    assert_eq!(pages[1].start(), 2);
}

#[test]
fn a_replayed_time_out_and_an_expired_point_in_time_are_disclosed() {
    let out = run(
        &["--timeout-ms", "500"],
        &["timeout-1.json", "timeout-2.json"],
    );
    assert!(out.status.success(), "{out:?}");
    let status = lines(&out.stderr);
    assert_eq!(
        status[1],
        "Incomplete: 2 hits of at least 5 (deadline budget of 500 ms ran out; limit 2 reached as well). \
         A subset: some of the hits after the first 2, not the next ones in order. \
         Allow more time or narrow the query to see the rest."
    );
    let out = run(&[], &["walk-1.json", "expired-pit.json"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let last = lines(&out.stderr).pop().unwrap();
    assert!(
        last.starts_with("opensearch: the point in time has expired"),
        "{last}"
    );
    // The walk that ends before the recordings do says so.
    let out = run(&[], &["walk-3.json", "walk-1.json"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("the later recordings were not read"));
}

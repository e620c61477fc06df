//! The example's live path (`--url`, the official client over HTTP)
//! against a stand-in cluster that answers with recorded responses: each
//! request checked, and the output the same as `--replay` of the same
//! recordings prints; then the failures a replay cannot show (an answer
//! that is not JSON, a closed connection, no server), each a clear error
//! and exit status 2.

use std::process::Output;

use super::cluster::{Answer, Cluster, Exchange};
use super::walk::{Walk, answered, live, recorded, replayed, run, shown};

/// Runs `walk` live on the recordings `names`, checks every request and
/// that each recording was asked for once, and returns the output with
/// the output of their replay.
fn live_and_replayed(walk: &Walk, names: &[&str]) -> (Output, Output) {
    let cluster = Cluster::scripted(recorded(names));
    let out = live(walk, &cluster);
    let exchanges = cluster.finish();
    assert_eq!(exchanges.len(), names.len(), "{}", shown(&out));
    if let Err(e) = walk.check_requests(&exchanges, &[]) {
        panic!("{e}\n{}", shown(&out));
    }
    let replay = replayed(walk, &answered(&exchanges));
    (out, replay)
}

/// The same output, byte for byte, and the same exit status.
fn assert_same(live: &Output, replay: &Output) {
    assert_eq!(
        (live.status.code(), &live.stdout, &live.stderr),
        (replay.status.code(), &replay.stdout, &replay.stderr),
        "live:\n{}\nreplayed:\n{}",
        shown(live),
        shown(replay)
    );
}

fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(String::from)
        .collect()
}

/// No panic, exit status 2, and a last line that names the error.
fn assert_clear_error(out: &Output, words: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", shown(out));
    assert!(!stderr.contains("panicked"), "{}", shown(out));
    let last = stderr.lines().last().unwrap_or("");
    assert!(last.starts_with("opensearch: "), "{}", shown(out));
    for word in words {
        assert!(last.contains(word), "{word:?} not in {last:?}");
    }
}

#[test]
fn a_live_walk_sends_each_page_s_request_and_prints_what_its_replay_prints() {
    let walk = Walk {
        keep_alive_ms: Some(300_000),
        count_total: true,
        ..Walk::recorded()
    };
    for json in [false, true] {
        let walk = Walk {
            json,
            ..walk.clone()
        };
        let (out, replay) =
            live_and_replayed(&walk, &["walk-1.json", "walk-2.json", "walk-3.json"]);
        assert!(out.status.success(), "{}", shown(&out));
        assert_same(&out, &replay);
        let status = stderr_lines(&out);
        assert_eq!(status.len(), 3, "{}", shown(&out));
        assert_eq!(status[2], "Complete: hits 5-5 of 5 (the last page).");
    }
}

#[test]
fn a_live_walk_goes_on_past_a_failed_shard_and_says_so_as_its_replay_does() {
    for (json, names) in [
        (false, &["failed-shard.json"][..]),
        (true, &["failed-shard.json"][..]),
        (
            false,
            &["walk-1.json", "failed-shard-2.json", "walk-3.json"][..],
        ),
        (
            true,
            &["walk-1.json", "failed-shard-2.json", "walk-3.json"][..],
        ),
    ] {
        let walk = Walk {
            json,
            ..Walk::recorded()
        };
        let (out, replay) = live_and_replayed(&walk, names);
        assert!(out.status.success(), "{}", shown(&out));
        assert_same(&out, &replay);
        let status = stderr_lines(&out);
        let failed = names.iter().position(|n| n.starts_with("failed-shard"));
        assert!(
            status[failed.unwrap()].contains("node_disconnected_exception: 1"),
            "{}",
            shown(&out)
        );
    }
}

#[test]
fn a_live_time_out_page_is_a_subset_without_a_cursor_as_replayed() {
    for json in [false, true] {
        let walk = Walk {
            timeout_ms: Some(500),
            json,
            ..Walk::recorded()
        };
        let (out, replay) = live_and_replayed(&walk, &["timeout-1.json", "timeout-2.json"]);
        assert!(out.status.success(), "{}", shown(&out));
        assert_same(&out, &replay);
        let status = stderr_lines(&out);
        assert!(status[1].contains("A subset"), "{}", shown(&out));
        assert!(!status[1].contains("--cursor"), "{}", shown(&out));
    }
}

#[test]
fn a_live_expired_point_in_time_is_a_clear_error_as_replayed() {
    // During the walk: the first page printed, then the error.
    let (out, replay) = live_and_replayed(&Walk::recorded(), &["walk-1.json", "expired-pit.json"]);
    assert_same(&out, &replay);
    assert_clear_error(
        &out,
        &[
            "point in time has expired",
            "No search context found for id [5]",
            "--pit",
        ],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    // On the first page.
    let (out, replay) = live_and_replayed(&Walk::recorded(), &["expired-pit.json"]);
    assert_same(&out, &replay);
    assert_clear_error(&out, &["point in time has expired", "pit"]);
    assert!(out.stdout.is_empty());
}

#[test]
fn a_live_error_response_is_a_clear_error_as_replayed() {
    for names in [
        &["server-error.json"][..],
        &["walk-1.json", "server-error.json"][..],
        &["bad-query.json"][..],
    ] {
        let (out, replay) = live_and_replayed(&Walk::recorded(), names);
        assert_same(&out, &replay);
        assert_clear_error(&out, &["the cluster answered with an error"]);
    }
}

/// Runs the recorded walk live on `answers`; checks the requests and
/// returns the output, with the replay of the whole answers before the
/// last one, which is not whole (none when there are none), and the
/// address.
fn live_until_broken(answers: Vec<Answer>) -> (Output, Option<Output>, String) {
    let walk = Walk::recorded();
    let cluster = Cluster::scripted(answers.clone());
    let url = cluster.url();
    let out = live(&walk, &cluster);
    let exchanges: Vec<Exchange> = cluster.finish();
    assert_eq!(exchanges.len(), answers.len(), "{}", shown(&out));
    if let Err(e) = walk.check_requests(&exchanges, &[]) {
        panic!("{e}\n{}", shown(&out));
    }
    let whole = answered(&exchanges[..exchanges.len() - 1]);
    let replay = (!whole.is_empty()).then(|| replayed(&walk, &whole));
    (out, replay, url)
}

#[test]
fn an_answer_that_is_not_json_a_closed_connection_or_a_cut_body_is_a_clear_error() {
    let html = "<html><head><title>500 Internal Server Error</title></head>\
                <body><center><h1>500 Internal Server Error</h1></center></body></html>";
    let broken = [
        (
            Answer::Http {
                status: 500,
                content_type: "text/html",
                body: html.to_owned(),
            },
            vec![
                "answered HTTP 500 Internal Server Error",
                "not JSON",
                "<html>",
            ],
        ),
        (
            Answer::Http {
                status: 502,
                content_type: "text/plain",
                body: String::new(),
            },
            vec!["answered HTTP 502 Bad Gateway", "not JSON"],
        ),
        (Answer::Close, vec!["no answer from", "connection closed"]),
        (
            Answer::Cut {
                status: 200,
                body: recorded(&["walk-2.json"])[0].body().unwrap().to_owned(),
            },
            vec!["(HTTP 200 OK) broke off"],
        ),
    ];
    for (answer, words) in broken {
        for first in [true, false] {
            let mut answers = if first {
                Vec::new()
            } else {
                recorded(&["walk-1.json"])
            };
            answers.push(answer.clone());
            let (out, replay, url) = live_until_broken(answers);
            assert_clear_error(&out, &words);
            assert_clear_error(&out, &[&url]);
            // What came before the failure is what the replay prints.
            let status = stderr_lines(&out);
            match replay {
                Some(replay) => {
                    assert_eq!(out.stdout, replay.stdout, "{}", shown(&out));
                    assert_eq!(
                        status[..status.len() - 1],
                        stderr_lines(&replay)[..],
                        "{}",
                        shown(&out)
                    );
                }
                None => {
                    assert!(out.stdout.is_empty(), "{}", shown(&out));
                    assert_eq!(status.len(), 1, "{}", shown(&out));
                }
            }
        }
    }
}

#[test]
fn no_server_at_the_address_is_a_clear_error() {
    // A port just freed: nothing listens there.
    let address = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a loopback port");
    let url = format!("http://{address}");
    let mut args = Walk::recorded().args();
    args.extend(["--url".to_owned(), url.clone(), "--all".to_owned()]);
    let out = run(&args);
    assert_clear_error(&out, &["no answer from", &url]);
    assert!(out.stdout.is_empty());
    // And an address that is not one.
    let mut args = Walk::recorded().args();
    args.extend(["--url".to_owned(), "localhost".to_owned()]);
    let out = run(&args);
    assert_clear_error(&out, &["--url localhost"]);
}

//! The `grep` example run as a process: its `--json` is the library's own
//! answer, its exit codes follow grep's, and the resume flag it prints on
//! standard error really resumes.
//!
//! Also holds [`example`], which builds the example binaries once for this
//! module and `examples_mcp`.
#![cfg(feature = "tree")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use candor_search::{Corpus, Limits, Match, Query, Tree};
use serde_json::Value;

use crate::sample::sample_tree;

/// The path of the main example, the `candor-grep` package's binary (its
/// `grep`), built (once per test run) with the profile and target
/// directory of this test binary.
pub(crate) fn example(name: &str) -> PathBuf {
    assert_eq!(name, "grep", "the one example these tests run");
    static GREP: OnceLock<PathBuf> = OnceLock::new();
    GREP.get_or_init(|| {
        // With the index too when this binary has it (`--index`).
        let mut args = vec!["-p", "candor-grep"];
        if cfg!(feature = "index") {
            args.extend(["--features", "index"]);
        }
        build(&args).join(format!("candor-grep{}", std::env::consts::EXE_SUFFIX))
    })
    .clone()
}

/// Builds (`cargo build` with `args`) with the profile and target
/// directory of this test binary, and returns the folder of the binaries.
fn build(args: &[&str]) -> PathBuf {
    // This binary is <target>/<profile>/deps/integration-<hash>.
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary sits in <target>/<profile>/deps");
    let target_dir = profile_dir.parent().expect("a target directory");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(other) => other,
        None => panic!("no profile directory in {}", exe.display()),
    };
    let output = Command::new(env!("CARGO"))
        .args(["build", "--quiet"])
        .args(args)
        .args(["--profile", profile])
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building the example failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    profile_dir.to_owned()
}

fn grep(dir: &Path, args: &[&str]) -> Output {
    Command::new(example("grep"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the grep example runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 output")
}

/// The paths of a `--json` answer's items, in order.
fn item_paths(answer: &Value) -> Vec<&str> {
    answer["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["path"].as_str().expect("a path"))
        .collect()
}

fn json_of(output: &Output) -> Value {
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "grep failed: {}",
        stderr(output)
    );
    let text = stdout(output);
    assert_eq!(text.lines().count(), 1, "one JSON object on one line");
    serde_json::from_str(&text).expect("valid JSON")
}

fn library(dir: &Path, query: &Query, limits: &Limits) -> Value {
    let tree = Tree::new(dir).expect("a tree");
    let answer = tree.search(query, limits, None).expect("the search runs");
    serde_json::to_value(&answer).expect("serializes")
}

#[test]
fn json_is_the_librarys_answer() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let root = dir.to_str().expect("a UTF-8 path");
    let cases: Vec<(&str, Vec<&str>, Query, Limits)> = vec![
        (
            "regex, all",
            vec!["--json", r"fn \w+", root],
            Query::regex(r"fn \w+"),
            Limits::new(),
        ),
        (
            "regex, limit",
            vec!["--json", "--limit", "3", r"fn \w+", root],
            Query::regex(r"fn \w+"),
            Limits::new().limit(3),
        ),
        (
            "literal, case-insensitive, whole word, exact total",
            vec![
                "--json",
                "-F",
                "-i",
                "-w",
                "--limit",
                "2",
                "--count-total",
                "fish",
                root,
            ],
            Query::literal("fish")
                .case_insensitive(true)
                .whole_word(true),
            Limits::new().limit(2).count_total(true),
        ),
        (
            "several literals with -e",
            vec!["--json", "-F", "-e", "alpha", "-e", "red", root],
            Query::literals(["alpha", "red"]),
            Limits::new(),
        ),
        (
            "byte budget and column cut",
            vec![
                "--json",
                "--max-bytes",
                "700",
                "--max-columns",
                "6",
                "fish",
                root,
            ],
            Query::regex("fish").max_columns(6),
            Limits::new().max_bytes(700),
        ),
        (
            "zero limit",
            vec!["--json", "--limit", "0", "fish", root],
            Query::regex("fish"),
            Limits::new().limit(0),
        ),
        (
            "no match",
            vec!["--json", "zebra", root],
            Query::regex("zebra"),
            Limits::new(),
        ),
    ];
    for (name, args, query, limits) in cases {
        let cli = json_of(&grep(dir, &args));
        assert_eq!(cli, library(dir, &query, &limits), "case {name:?}");
    }
}

/// The `--json` output, byte for byte, is the library's `to_json` and a
/// newline: streamed through a temporary file when there is no byte
/// budget, collected under one. The answers are large enough (megabytes of
/// JSON, tens of thousands of lines) that most of a streamed one goes
/// through the file, and that searchers wait for the lines they hold to be
/// handed on.
#[test]
fn json_is_the_librarys_bytes_streamed_or_collected() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path();
    for file in 0..12 {
        let text: String = (0..2000)
            .map(|n| format!("fn item_{n}() {{ \"fish\" \\ {file} }} // line {n}\n"))
            .collect();
        let folder = dir.join(format!("d{}", file % 2));
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::write(folder.join(format!("f{file}.rs")), text).expect("write");
    }
    let root = dir.to_str().expect("a UTF-8 path");
    let tree = Tree::new(dir).expect("a tree");
    let query = Query::regex(r"fn \w+");
    let page = tree
        .search(&query, &Limits::new().limit(1000), None)
        .expect("the search runs");
    let token = page.next_cursor().expect("more pages").to_string();
    let resumed = candor_search::Cursor::parse(&token).expect("a token");
    let cases: Vec<(&str, Vec<&str>, Limits, Option<&candor_search::Cursor>)> = vec![
        ("all", vec![], Limits::new(), None),
        ("one thread", vec!["--threads", "1"], Limits::new(), None),
        ("four threads", vec!["--threads", "4"], Limits::new(), None),
        (
            "limit",
            vec!["--limit", "20000"],
            Limits::new().limit(20000),
            None,
        ),
        (
            "exact total",
            vec!["--limit", "7", "--count-total"],
            Limits::new().limit(7).count_total(true),
            None,
        ),
        (
            "zero limit",
            vec!["--limit", "0"],
            Limits::new().limit(0),
            None,
        ),
        (
            "resumed",
            vec!["--limit", "20000", "--cursor", token.as_str()],
            Limits::new().limit(20000),
            Some(&resumed),
        ),
        (
            "byte budget",
            vec!["--max-bytes", "20000"],
            Limits::new().max_bytes(20_000),
            None,
        ),
    ];
    for (name, flags, limits, cursor) in cases {
        let mut args = vec!["--json"];
        args.extend(flags);
        args.extend([r"fn \w+", root]);
        let output = grep(dir, &args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "case {name:?}: {}",
            stderr(&output)
        );
        let expected = tree
            .search(&query, &limits, cursor)
            .expect("the search runs")
            .to_json()
            .expect("serializes");
        if name == "all" {
            assert!(expected.len() > 2_000_000, "{} bytes", expected.len());
        }
        assert_eq!(stdout(&output), format!("{expected}\n"), "case {name:?}");
        assert_eq!(stderr(&output), "", "case {name:?}");
    }
}

#[test]
fn json_with_several_paths_searches_them_under_their_common_folder() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let output = grep(dir, &["--json", "-F", "fish", "b", "c.txt"]);
    let expected = library(
        dir,
        &Query::literal("fish").paths(["b", "c.txt"]),
        &Limits::new(),
    );
    assert_eq!(json_of(&output), expected);
    // Only b/three.txt and b/deep/four.txt hold "fish" there (c.txt has "FISH").
    let paths: Vec<&str> = item_paths(&expected);
    assert!(paths.iter().all(|p| p.starts_with("b/")), "{paths:?}");
}

#[test]
#[cfg(unix)]
fn paths_named_with_a_backslash_or_bytes_outside_utf8_are_searched() {
    use std::os::unix::ffi::OsStrExt as _;
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path();
    let odd = std::ffi::OsStr::from_bytes(b"bad\xffname");
    std::fs::create_dir(dir.join("d")).expect("a folder");
    std::fs::write(dir.join("d").join("we\\ird"), "needle 1\n").expect("write");
    std::fs::write(dir.join("d").join(odd), "needle 2\n").expect("write");
    std::fs::write(dir.join("d").join("other"), "needle 3\n").expect("write");
    let output = Command::new(example("grep"))
        .args(["--json", "-F", "needle"])
        .arg(Path::new("d").join("we\\ird"))
        .arg(Path::new("d").join(odd))
        .current_dir(dir)
        .output()
        .expect("the grep example runs");
    let answer = json_of(&output);
    let paths: Vec<&str> = item_paths(&answer);
    assert_eq!(paths, [r"bad\xffname", r"we\\ird"], "{answer}");
    assert_eq!(answer["complete"], true);
}

#[test]
fn json_pages_resume_with_the_cursor() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let full = library(dir, &Query::regex("fish"), &Limits::new());
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut args = vec!["--json", "--limit", "2", "fish"];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let page = json_of(&grep(dir, &args));
        items.extend(page["items"].as_array().expect("items").iter().cloned());
        match page.get("next_cursor") {
            Some(next) => cursor = Some(next.as_str().expect("a token").to_owned()),
            None => {
                assert_eq!(page["complete"], Value::Bool(true));
                break;
            }
        }
    }
    assert_eq!(Value::Array(items), full["items"]);
}

#[test]
fn exit_status_is_0_on_a_match_1_on_none_2_on_an_error() {
    let tmp = sample_tree();
    let dir = tmp.path();

    let found = grep(dir, &["fish"]);
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    // A cut answer still matched.
    assert_eq!(grep(dir, &["--limit", "0", "fish"]).status.code(), Some(0));

    // Cut short before any match (a deadline already passed): nothing
    // matched in what was searched, which is not "no match".
    for extra in [
        &[][..],
        &["--json"],
        &["--max-bytes", "4000"],
        &["--json", "--max-bytes", "4000"],
    ] {
        let args: Vec<&str> = ["--deadline-ms", "0", "zebra"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let cut = grep(dir, &args);
        assert_eq!(cut.status.code(), Some(2), "{args:?}: {}", stderr(&cut));
    }

    let none = grep(dir, &["zebra"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stdout(&none).is_empty());
    assert!(
        stderr(&none).contains("Complete: 0 matches"),
        "{}",
        stderr(&none)
    );

    let bad_regex = grep(dir, &["fish("]);
    assert_eq!(bad_regex.status.code(), Some(2));
    assert!(
        stderr(&bad_regex).contains("invalid pattern"),
        "{}",
        stderr(&bad_regex)
    );

    let missing = grep(dir, &["fish", "no/such/folder"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("no/such/folder"),
        "{}",
        stderr(&missing)
    );

    let bad_cursor = grep(dir, &["--cursor", "not-a-cursor", "fish"]);
    assert_eq!(bad_cursor.status.code(), Some(2));
    assert!(
        stderr(&bad_cursor).contains("cursor"),
        "{}",
        stderr(&bad_cursor)
    );

    // A cursor of another query is refused, not silently restarted.
    let other = grep(dir, &["--json", "--limit", "1", "fn"]);
    let token = json_of(&other)["next_cursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    let foreign = grep(dir, &["--cursor", &token, "fish"]);
    assert_eq!(foreign.status.code(), Some(2));
    assert!(
        stderr(&foreign).contains("another query"),
        "{}",
        stderr(&foreign)
    );
}

#[test]
fn bad_flags_exit_2_with_usage() {
    let tmp = sample_tree();
    let dir = tmp.path();
    for args in [
        &["--no-such-flag", "fish"][..],
        &["--limit", "many", "fish"],
        &["--max-filesize", "12Q", "fish"],
        &["--threads", "0", "fish"],
        &[],
    ] {
        let output = grep(dir, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("Usage:"),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty(), "{args:?}");
    }
}

#[test]
fn human_output_is_path_line_text_and_the_last_line_discloses() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let output = grep(dir, &["-F", "red fish"]);
    assert_eq!(stdout(&output), "b/three.txt:3:red fish\n");
    let last = stderr(&output)
        .lines()
        .last()
        .expect("a status line")
        .to_owned();
    assert!(last.starts_with("Complete: 1 of 1 matches."), "{last}");
    assert!(
        last.contains("binary: 1"),
        "the binary file is disclosed: {last}"
    );

    // A PATH given is shown in front of each path, as ripgrep does.
    let output = grep(dir, &["-F", "red fish", "b"]);
    assert_eq!(stdout(&output), "b/three.txt:3:red fish\n");
    let output = grep(dir, &["-F", "red fish", "b/"]);
    assert_eq!(stdout(&output), "b/three.txt:3:red fish\n");

    // Policy skips are disclosed, and --hidden brings hidden files in.
    let output = grep(dir, &["-F", "fish in hiding"]);
    assert_eq!(output.status.code(), Some(1));
    let output = grep(dir, &["--hidden", "-F", "fish in hiding"]);
    assert_eq!(stdout(&output), ".hidden/secret.txt:1:fish in hiding\n");

    let cut = grep(dir, &["--limit", "2", "fish"]);
    let last = stderr(&cut)
        .lines()
        .last()
        .expect("a status line")
        .to_owned();
    assert!(
        last.starts_with("Incomplete: matches 1-2 of at least"),
        "{last}"
    );
    assert!(last.contains("(limit 2)"), "{last}");
    assert!(last.contains("--cursor "), "{last}");

    let counted = grep(dir, &["--limit", "2", "--count-total", "-i", "fish"]);
    let last = stderr(&counted)
        .lines()
        .last()
        .expect("a status line")
        .to_owned();
    let expected_total = library(
        dir,
        &Query::regex("fish").case_insensitive(true),
        &Limits::new(),
    )["count"]
        .as_u64()
        .expect("a count");
    assert!(
        last.starts_with(&format!("Incomplete: matches 1-2 of {expected_total}")),
        "{last}"
    );
}

/// The token after `--cursor ` in the status line, if any.
fn resume_token(status_line: &str) -> Option<String> {
    let (_, rest) = status_line.split_once("--cursor ")?;
    Some(rest.split_whitespace().next()?.to_owned())
}

#[test]
fn the_printed_resume_flag_resumes_without_gap_or_duplicate() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let full = Tree::new(dir)
        .expect("a tree")
        .search(&Query::regex("fish|fn"), &Limits::new(), None)
        .expect("the search runs");
    let expected: Vec<String> = full
        .iter()
        .map(|m: &Match| format!("{}:{}:{}", m.path, m.line_number, m.line))
        .collect();
    assert!(expected.len() > 9, "the sample needs several pages");

    for extra in [
        &[][..],
        &["--max-bytes", "4000"][..],
        &["--threads", "1"][..],
    ] {
        let mut lines = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            pages += 1;
            assert!(pages <= expected.len() + 1, "paging does not end");
            let mut args = vec!["--limit", "3"];
            args.extend_from_slice(extra);
            if let Some(c) = &cursor {
                args.extend(["--cursor", c.as_str()]);
            }
            args.push("fish|fn");
            let output = grep(dir, &args);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            lines.extend(stdout(&output).lines().map(str::to_owned));
            let status = stderr(&output);
            let last = status.lines().last().expect("a status line");
            match resume_token(last) {
                Some(token) => {
                    assert!(last.starts_with("Incomplete:"), "{last}");
                    cursor = Some(token);
                }
                None => {
                    assert!(last.starts_with("Complete:"), "{last}");
                    break;
                }
            }
        }
        assert_eq!(lines, expected, "pages with {extra:?}");
    }
}

/// A link named on the command line is judged by the tree's link policy,
/// like a link met in a walk: without `-L` it is not followed, and with it
/// it is followed only inside the root. Outside content never shows.
#[cfg(unix)]
#[test]
fn a_link_named_on_the_command_line_never_leads_outside() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("t")).unwrap();
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::fs::write(root.join("out/secret.txt"), "secret needle\n").unwrap();
    std::fs::write(root.join("t/own.txt"), "own needle\n").unwrap();
    std::os::unix::fs::symlink("../out/secret.txt", root.join("t/outfile")).unwrap();
    std::os::unix::fs::symlink("own.txt", root.join("t/inlink")).unwrap();
    for flags in [&[][..], &["-L"][..]] {
        for named in [&["t/outfile"][..], &["t/outfile", "t/own.txt"][..]] {
            let args: Vec<&str> = flags
                .iter()
                .copied()
                .chain(["--json", "needle"])
                .chain(named.iter().copied())
                .collect();
            let output = grep(&root, &args);
            let text = format!("{}{}", stdout(&output), stderr(&output));
            assert!(!text.contains("secret"), "{args:?}: {text}");
        }
    }
    // Inside the root, -L follows the link named; without it, it is left out.
    let followed = json_of(&grep(
        &root,
        &["-L", "--json", "needle", "t/inlink", "t/own.txt"],
    ));
    assert_eq!(followed["count"], 2, "{followed}");
    // Named, the link is an input the caller asked for and did not get:
    // the answer is incomplete, and the status says an input failed.
    let output = grep(&root, &["--json", "needle", "t/inlink", "t/own.txt"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let not_followed: Value = serde_json::from_str(&stdout(&output)).expect("valid JSON");
    assert_eq!(not_followed["complete"], false, "{not_followed}");
    assert_eq!(
        not_followed["skipped"]["errors"]["symlink"], 1,
        "{not_followed}"
    );
    let items: Vec<&str> = item_paths(&not_followed);
    assert_eq!(items, ["own.txt"], "{not_followed}");
    assert_eq!(
        not_followed["skipped"]["by_reason"]["symlink"], 1,
        "{not_followed}"
    );
}

/// A link named without -L is counted as skipped, as the help says; the
/// caller named it, so the answer is incomplete and the status is 2, while
/// the other paths are searched and their matches printed.
#[cfg(unix)]
#[test]
fn a_link_named_without_follow_is_counted_as_skipped() {
    let tmp = sample_tree();
    let dir = tmp.path();
    std::os::unix::fs::symlink("three.txt", dir.join("b/link.txt")).unwrap();
    let help = stdout(&grep(dir, &["--help"]));
    assert!(help.contains("links are counted as skipped"), "{help}");

    let alone = grep(dir, &["-F", "red fish", "b/link.txt"]);
    assert_eq!(alone.status.code(), Some(2), "{}", stderr(&alone));
    let last = stderr(&alone).lines().last().unwrap_or_default().to_owned();
    assert!(last.contains("symlink: 1"), "{last}");
    assert!(last.starts_with("Incomplete"), "{last}");

    let with = grep(dir, &["-F", "red fish", "b/link.txt", "b/three.txt"]);
    assert_eq!(with.status.code(), Some(2), "{}", stderr(&with));
    assert_eq!(stdout(&with), "b/three.txt:3:red fish\n");
}

/// `-e` takes a pattern that starts with `-`, as ripgrep does, and with
/// `-e` every positional argument is a PATH, whatever its bytes.
#[test]
fn a_pattern_after_e_may_start_with_a_dash_and_positionals_are_paths() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path();
    std::fs::write(dir.join("f"), "test\nfoo -test\n").expect("write");
    let output = grep(dir, &["-e", "-test", "f"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "f:2:foo -test\n");
    let output = grep(dir, &["-F", "-e", "-t", "-e", "--x", "f"]);
    assert_eq!(stdout(&output), "f:2:foo -test\n");

    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let odd = std::ffi::OsStr::from_bytes(b"odd\xffname");
        std::fs::write(dir.join(odd), "a test\n").expect("write");
        let output = Command::new(example("grep"))
            .args(["--json", "-e", "test"])
            .arg(odd)
            .arg("f")
            .current_dir(dir)
            .output()
            .expect("the grep example runs");
        let answer = json_of(&output);
        let paths: Vec<&str> = item_paths(&answer);
        assert_eq!(paths, ["f", "f", r"odd\xffname"], "{answer}");
    }
}

/// A PATH that does not exist, among others, is reported on standard
/// error as ripgrep does; the others are searched and printed, the
/// answer says it is incomplete, and the status is 2 (an error occurred),
/// even with matches.
#[test]
fn a_missing_path_among_several_is_reported_and_the_others_searched() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let args = ["-F", "fish", "b", "missing.txt", "c.txt", "no/such/folder"];
    let output = grep(dir, &args);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let expected = library(
        dir,
        &Query::literal("fish").paths(["b", "c.txt"]),
        &Limits::new(),
    );
    let lines: Vec<String> = expected["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| {
            format!(
                "{}:{}:{}",
                m["path"].as_str().unwrap(),
                m["line_number"],
                m["line"].as_str().unwrap()
            )
        })
        .collect();
    assert!(!lines.is_empty());
    assert_eq!(stdout(&output).lines().collect::<Vec<_>>(), lines);
    let err = stderr(&output);
    assert!(err.contains("grep: missing.txt: "), "{err}");
    assert!(err.contains("grep: no/such/folder: "), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("Incomplete:"), "{last}");

    let json = grep(dir, &[&["--json"][..], &args].concat());
    assert_eq!(json.status.code(), Some(2), "{}", stderr(&json));
    let answer: Value = serde_json::from_str(&stdout(&json)).expect("valid JSON");
    assert_eq!(answer["items"], expected["items"]);
    assert_eq!(answer["complete"], false);
    assert_eq!(answer["skipped"]["by_reason"]["vanished"], 2, "{answer}");

    // Alone, it is reported too, and nothing else is searched.
    let alone = grep(dir, &["fish", "missing.txt"]);
    assert_eq!(alone.status.code(), Some(2));
    assert!(stdout(&alone).is_empty());
    assert!(stderr(&alone).contains("grep: missing.txt: "));
}

/// A UTF-8 byte-order mark is not text: `^` matches after it, and the line
/// shown holds none; a `!` rule of a `.gitignore` lets a hidden file in.
#[test]
fn a_byte_order_mark_is_not_text_and_a_negated_ignore_rule_lets_a_hidden_file_in() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path();
    std::fs::write(dir.join("bom.txt"), b"\xEF\xBB\xBFtest\ntest\n").expect("write");
    std::fs::write(dir.join(".gitignore"), "!.foo\n").expect("write");
    std::fs::write(dir.join(".foo"), "test in hiding\n").expect("write");
    std::fs::write(dir.join(".bar"), "test in hiding\n").expect("write");
    let output = grep(dir, &["^test"]);
    assert_eq!(
        stdout(&output),
        ".foo:1:test in hiding\nbom.txt:1:test\nbom.txt:2:test\n"
    );
    let json = json_of(&grep(dir, &["--json", "^test", "bom.txt"]));
    assert_eq!(json["items"][0]["byte_offset"], 3, "{json}");
}

/// Stdout, and stderr's last line without its cursor token (bound to the
/// corpus that issued it).
#[cfg(feature = "index")]
fn shown(output: &Output) -> (String, Option<i32>, String) {
    let err = stderr(output);
    let last = err.lines().last().unwrap_or("").to_owned();
    let last = match last.find("--cursor ") {
        Some(i) => last[..i].to_owned(),
        None => last,
    };
    (stdout(output), output.status.code(), last)
}

#[cfg(feature = "index")]
#[test]
fn grep_with_an_index_prints_what_grep_without_it_prints() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let store = tempfile::tempdir().expect("a folder");
    let index = store.path().join("idx");
    let index = index.to_str().expect("a UTF-8 path");
    let cases: [&[&str]; 4] = [
        &["-F", "fish", "."],
        &["--limit", "1", "-F", "fn", "."],
        &["--json", "-i", "FN", "."],
        &["--limit", "0", "--count-total", "-F", "fn", "."],
    ];
    for round in 0..2 {
        for args in cases {
            let plain = grep(dir, args);
            let mut with = vec!["--index", index];
            with.extend_from_slice(args);
            let indexed = grep(dir, &with);
            assert_eq!(shown(&plain), shown(&indexed), "round {round}: {args:?}");
        }
        // Then the tree changes: the index still answers as the tree does.
        std::fs::write(dir.join("fish-late.txt"), "fish fn late\n").expect("write");
    }
    assert!(
        Path::new(index).join("CURRENT").exists(),
        "built where asked"
    );
}

/// An index that cannot be written (here its folder would be below a
/// file; a full or read-only disk does the same) is no reason to answer
/// nothing: the tree answers, as grep without `--index` does, and a note
/// says why (as "cannot write", not "cannot read").
#[cfg(feature = "index")]
#[test]
fn grep_with_an_index_it_cannot_write_searches_the_tree() {
    let tmp = sample_tree();
    let dir = tmp.path();
    let store = tempfile::tempdir().expect("a folder");
    std::fs::write(store.path().join("file"), "not a folder\n").expect("write");
    let index = store.path().join("file").join("idx");
    let index = index.to_str().expect("a UTF-8 path");
    for args in [&["-F", "fish", "."][..], &["--json", "-i", "FN", "."]] {
        let plain = grep(dir, args);
        let mut with = vec!["--index", index];
        with.extend_from_slice(args);
        let indexed = grep(dir, &with);
        assert_eq!(plain.status.code(), indexed.status.code(), "{args:?}");
        assert_eq!(stdout(&plain), stdout(&indexed), "{args:?}");
        let said = stderr(&indexed);
        assert!(said.contains("the index cannot be written"), "{said}");
        assert!(said.contains("cannot write"), "{said}");
    }
}

/// A search runs ahead of its searchers within the table of descriptors
/// the process has room for: whatever the limit on open handles (here
/// 64, the table a process starts with, where the search keeps its walk
/// within it; and 256, the table it asks for, where the walk runs
/// further ahead), a tree of many small folders, deep and wide, is
/// answered whole, as the library answers it in this process.
#[cfg(target_os = "linux")]
#[test]
fn a_search_within_a_limit_on_open_handles_is_whole() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let dir = tmp.path();
    let deep = "d/".repeat(30);
    for i in 0..400 {
        // Wide: one folder per file, two levels down; deep: below 30.
        let wide = dir.join(format!("w{:02}/f{i:03}", i / 20));
        let below = dir.join(format!("{deep}g{i:03}"));
        for folder in [&wide, &below] {
            std::fs::create_dir_all(folder).expect("a folder");
            std::fs::write(folder.join("a.txt"), format!("hit {i}\nmiss\n")).expect("write");
        }
    }
    let expected = library(dir, &Query::literal("hit"), &Limits::new());
    assert_eq!(item_paths(&expected).len(), 800);
    for limit in ["64", "256"] {
        // The shell sets the limit, then becomes the example.
        let output = Command::new("sh")
            .args(["-c", &format!("ulimit -n {limit} && exec \"$0\" \"$@\"")])
            .arg(example("grep"))
            .args(["--json", "-F", "hit", "."])
            .current_dir(dir)
            .output()
            .expect("sh runs");
        let answer = json_of(&output);
        assert_eq!(answer, expected, "a limit of {limit} handles");
    }
}

//! The MCP server driven over stdio by rmcp's client: its tools
//! describe the contract, answer in the wire shape with a disclosure line,
//! page without gap or duplicate, and turn bad input into tool errors while
//! they keep serving.

use std::path::Path;
use std::time::Duration;

use candor_search::{Bounded, Corpus, Excerpt, FileCount, Limits, Match, Query, Tree};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

#[path = "../../candor-search/tests/integration/sample.rs"]
mod sample;

use sample::sample_tree;

/// The server, as `cargo test` built it.
fn server() -> &'static str {
    env!("CARGO_BIN_EXE_candor-mcp-server")
}

type Client = RunningService<RoleClient, ()>;

/// Guards against a hung server: a failure message instead of a test that
/// never ends. Not a timing assertion.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// Where the servers of this test run keep their indexes (one folder per
/// tree and rules inside): outside every tree, gone at the end.
fn index_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a folder"))
        .path()
}

async fn connect(root: &Path, extra: &[&str]) -> Client {
    let binary = server();
    let mut command = tokio::process::Command::new(binary);
    command.arg("--root").arg(root).args(extra);
    if !extra
        .iter()
        .any(|a| *a == "--index-dir" || *a == "--no-index")
    {
        command.arg("--index-dir").arg(index_dir());
    }
    let transport = TokioChildProcess::new(command).expect("the server starts");
    tokio::time::timeout(HANG_GUARD, ().serve(transport))
        .await
        .expect("the server answers initialize")
        .expect("the MCP handshake succeeds")
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    tokio::time::timeout(HANG_GUARD, client.call_tool(params))
        .await
        .expect("the server answers")
        .expect("a tool result, not a protocol error")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// Checks a successful result's two channels against each other and
/// returns the structured wire shape.
fn wire<T>(result: &CallToolResult, noun: &str) -> Value
where
    T: serde::de::DeserializeOwned,
{
    assert!(!is_error(result), "unexpected tool error: {}", text(result));
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    // Two text blocks: the disclosure line, then exactly the JSON, so a
    // client that parses a text block as JSON can.
    let blocks: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect();
    let [first, json] = blocks[..] else {
        panic!("expected two text blocks, got {blocks:?}");
    };
    assert!(
        !first.contains('\n'),
        "the disclosure is one line: {first:?}"
    );
    let from_text: Value = serde_json::from_str(json).expect("the second block is the JSON");
    assert_eq!(
        from_text, structured,
        "the text duplicates structuredContent"
    );
    // Disclosure first, items last, in both channels.
    for keys in [
        structured
            .as_object()
            .expect("an object")
            .keys()
            .collect::<Vec<_>>(),
        from_text
            .as_object()
            .expect("an object")
            .keys()
            .collect::<Vec<_>>(),
    ] {
        assert_eq!(
            keys.first().map(|k| k.as_str()),
            Some("complete"),
            "{keys:?}"
        );
        assert_eq!(keys.last().map(|k| k.as_str()), Some("items"), "{keys:?}");
    }
    let bounded: Bounded<T> = serde_json::from_value(structured.clone()).expect("the wire shape");
    assert_eq!(
        first,
        bounded.summary(noun),
        "the text opens with the disclosure"
    );
    structured
}

fn items(page: &Value) -> Vec<Value> {
    page["items"].as_array().expect("items").clone()
}

fn tree(root: &Path) -> Tree {
    Tree::new(root).expect("a tree")
}

/// A tree with enough matches for several pages.
fn many_matches() -> tempfile::TempDir {
    let dir = sample_tree();
    std::fs::create_dir_all(dir.path().join("many")).expect("mkdir");
    for f in 0..6 {
        let body: String = (0..7)
            .map(|l| format!("line {l} of file {f}: needle {}\n", l * f))
            .collect();
        std::fs::write(dir.path().join(format!("many/file{f}.txt")), body).expect("write");
    }
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_are_listed_with_output_schemas_and_the_guide() {
    let tmp = sample_tree();
    let client = connect(tmp.path(), &[]).await;
    let tools = tokio::time::timeout(HANG_GUARD, client.list_all_tools())
        .await
        .expect("the server answers")
        .expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "count_matches",
            "excerpt",
            "files_with_matches",
            "search_text"
        ]
    );
    for tool in &tools {
        let description = tool.description.as_deref().unwrap_or_default();
        for word in ["complete", "truncation", "total", "next_cursor", "never"] {
            assert!(
                description.contains(word),
                "{} description lacks {word:?}",
                tool.name
            );
        }
        assert!(
            description.contains(candor_search::LLM_GUIDE),
            "{}",
            tool.name
        );
        assert!(description.contains("100"), "the default limit is stated");
        assert!(
            description.contains("bounds the whole tool result"),
            "{}: what max_bytes bounds is stated",
            tool.name
        );
        let max_bytes = tool.input_schema["properties"]["max_bytes"]["description"]
            .as_str()
            .unwrap_or_default();
        assert!(max_bytes.contains("whole tool result"), "{max_bytes}");
        let output = tool.output_schema.as_ref().expect("an outputSchema");
        let properties = output["properties"].as_object().expect("properties");
        for key in [
            "complete",
            "truncation",
            "count",
            "total",
            "next_cursor",
            "items",
        ] {
            assert!(
                properties.contains_key(key),
                "{} outputSchema lacks {key}",
                tool.name
            );
        }
        let input = tool.input_schema["properties"]
            .as_object()
            .expect("input properties");
        for key in ["limit", "max_bytes", "cursor"] {
            assert!(input.contains_key(key), "{} takes {key}", tool.name);
        }
    }
    let search = tools
        .iter()
        .find(|t| t.name == "search_text")
        .expect("search_text");
    let input = search.input_schema["properties"]
        .as_object()
        .expect("props");
    for key in [
        "query",
        "mode",
        "case_insensitive",
        "whole_word",
        "path",
        "count_total",
        "strict",
    ] {
        assert!(input.contains_key(key), "search_text takes {key}");
    }
    client.cancel().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_answers_like_the_library() {
    let tmp = sample_tree();
    let root = tmp.path();
    let client = connect(root, &[]).await;
    let tree = tree(root);

    let search = call(&client, "search_text", json!({ "query": "fish" })).await;
    let page = wire::<Match>(&search, "matching lines");
    let expected = tree
        .search(
            &Query::literal("fish").max_columns(500),
            &Limits::new().limit(100),
            None,
        )
        .expect("search");
    assert_eq!(page, serde_json::to_value(&expected).expect("json"));
    assert!(text(&search).starts_with("Complete: "), "{}", text(&search));

    let regex = call(
        &client,
        "search_text",
        json!({ "query": r"fn \w+", "mode": "regex", "path": "a", "whole_word": true }),
    )
    .await;
    let expected = tree
        .search(
            &Query::regex(r"fn \w+")
                .whole_word(true)
                .paths(["a"])
                .max_columns(500),
            &Limits::new(),
            None,
        )
        .expect("search");
    assert_eq!(
        items(&wire::<Match>(&regex, "matching lines")).len(),
        expected.len()
    );
    assert!(
        items(&wire::<Match>(&regex, "matching lines"))
            .iter()
            .all(|m| m["path"].as_str().is_some_and(|p| p.starts_with("a/")))
    );

    let counts = call(
        &client,
        "count_matches",
        json!({ "query": "FISH", "case_insensitive": true }),
    )
    .await;
    let expected = tree
        .count_per_file(
            &Query::literal("FISH").case_insensitive(true),
            &Limits::new(),
            None,
        )
        .expect("count");
    assert_eq!(
        items(&wire::<FileCount>(&counts, "files with matching lines")),
        items(&serde_json::to_value(&expected).expect("json"))
    );

    let files = call(&client, "files_with_matches", json!({ "query": "fn" })).await;
    let expected = tree
        .files_with_matches(&Query::literal("fn"), &Limits::new(), None)
        .expect("files");
    assert_eq!(
        items(&wire::<String>(&files, "files")),
        items(&serde_json::to_value(&expected).expect("json"))
    );

    let excerpt = call(
        &client,
        "excerpt",
        json!({ "path": "b/three.txt", "start_line": 2, "end_line": 4 }),
    )
    .await;
    let lines: Vec<String> = items(&wire::<candor_search::Line>(&excerpt, "excerpt lines"))
        .iter()
        .map(|l| l["line"].as_str().expect("a line").to_owned())
        .collect();
    assert_eq!(lines, ["two fish", "red fish", "blue fish"]);
    let expected = tree
        .excerpt(&Excerpt::new("b/three.txt", 2..=4), &Limits::new(), None)
        .expect("excerpt");
    assert_eq!(lines.len(), expected.len());

    // Without end_line, the excerpt runs to the end of the file.
    let rest = call(
        &client,
        "excerpt",
        json!({ "path": "b/three.txt", "start_line": 4 }),
    )
    .await;
    assert_eq!(
        items(&wire::<candor_search::Line>(&rest, "excerpt lines")).len(),
        2
    );
    client.cancel().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread")]
async fn max_depth_limits_the_walk_of_every_search_tool_as_the_library_does() {
    let tmp = many_matches();
    let root = tmp.path();
    let client = connect(root, &[]).await;
    let tree = tree(root);
    for (depth, path) in [
        (0, None),
        (1, None),
        (2, None),
        (1, Some("many")),
        (0, Some("b/three.txt")),
    ] {
        let limited = tree.clone().max_depth(depth);
        let mut arguments = json!({ "query": "fish", "max_depth": depth });
        let mut query = Query::literal("fish");
        if let Some(path) = path {
            arguments["path"] = json!(path);
            query = query.paths([path]);
        }
        let what = format!("{arguments}");
        let search = call(&client, "search_text", arguments.clone()).await;
        let expected = limited
            .search(
                &query.clone().max_columns(500),
                &Limits::new().limit(100),
                None,
            )
            .expect("search");
        assert_eq!(
            wire::<Match>(&search, "matching lines"),
            serde_json::to_value(&expected).expect("json"),
            "{what}"
        );
        let counts = call(&client, "count_matches", arguments.clone()).await;
        let expected = limited
            .count_per_file(&query, &Limits::new().limit(100), None)
            .expect("count");
        assert_eq!(
            wire::<FileCount>(&counts, "files with matching lines"),
            serde_json::to_value(&expected).expect("json"),
            "{what}"
        );
        let files = call(&client, "files_with_matches", arguments).await;
        let expected = limited
            .files_with_matches(&query, &Limits::new().limit(100), None)
            .expect("files");
        assert_eq!(
            wire::<String>(&files, "files"),
            serde_json::to_value(&expected).expect("json"),
            "{what}"
        );
    }
    // Page by page, the cursors bound to the depth: every match once.
    let paged = all_pages(
        &client,
        "search_text",
        json!({ "query": "needle", "max_depth": 1, "path": "many", "limit": 4 }),
        "matching lines",
    )
    .await;
    let whole = tree
        .clone()
        .max_depth(1)
        .search(
            &Query::literal("needle").paths(["many"]).max_columns(500),
            &Limits::new(),
            None,
        )
        .expect("search");
    assert_eq!(paged, items(&serde_json::to_value(&whole).expect("json")));
    // A bad depth is a tool error; an excerpt takes none.
    for (tool, arguments) in [
        ("search_text", json!({ "query": "fish", "max_depth": -1 })),
        (
            "count_matches",
            json!({ "query": "fish", "max_depth": "deep" }),
        ),
        ("excerpt", json!({ "path": "c.txt", "max_depth": 1 })),
    ] {
        let result = call(&client, tool, arguments.clone()).await;
        assert!(is_error(&result), "{tool} {arguments}: {}", text(&result));
    }
    client.cancel().await.expect("shutdown");
}

/// Follows `next_cursor` to the end and returns every item once.
async fn all_pages(client: &Client, tool: &str, arguments: Value, noun: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1000 {
        let mut args = arguments.clone();
        if let Some(c) = &cursor {
            args["cursor"] = Value::String(c.clone());
        }
        let result = call(client, tool, args).await;
        let page = match tool {
            "count_matches" => wire::<FileCount>(&result, noun),
            "files_with_matches" => wire::<String>(&result, noun),
            "excerpt" => wire::<candor_search::Line>(&result, noun),
            _ => wire::<Match>(&result, noun),
        };
        all.extend(items(&page));
        match page.get("next_cursor").and_then(Value::as_str) {
            Some(next) => {
                assert_eq!(page["complete"], Value::Bool(false), "a page with a cursor");
                assert!(text(&result).starts_with("Incomplete: "));
                cursor = Some(next.to_owned());
            }
            None => return all,
        }
    }
    panic!("paging did not end");
}

#[tokio::test(flavor = "multi_thread")]
async fn following_next_cursor_yields_every_match_exactly_once() {
    let tmp = many_matches();
    let root = tmp.path();
    let client = connect(root, &[]).await;
    let tree = tree(root);

    let full = tree
        .search(&Query::literal("needle"), &Limits::new(), None)
        .expect("search");
    assert!(full.len() > 30);
    let full = items(&serde_json::to_value(&full).expect("json"));

    let by_limit = all_pages(
        &client,
        "search_text",
        json!({ "query": "needle", "limit": 7 }),
        "matching lines",
    )
    .await;
    assert_eq!(by_limit, full);

    // The byte budget cuts pages too, and each whole tool result (every
    // content block and structuredContent) keeps to it.
    let first = call(
        &client,
        "search_text",
        json!({ "query": "needle", "max_bytes": 3000 }),
    )
    .await;
    let sent = serde_json::to_vec(&first).expect("JSON").len();
    assert!(sent <= 3000, "{sent} bytes");
    let page = wire::<Match>(&first, "matching lines");
    assert_eq!(page["truncation"]["by"], "budget");
    assert_eq!(page["truncation"]["budget"], "output_bytes");
    let by_bytes = all_pages(
        &client,
        "search_text",
        json!({ "query": "needle", "max_bytes": 3000 }),
        "matching lines",
    )
    .await;
    assert_eq!(by_bytes, full);

    let files = all_pages(
        &client,
        "files_with_matches",
        json!({ "query": "needle", "limit": 2 }),
        "files",
    )
    .await;
    let expected = tree
        .files_with_matches(&Query::literal("needle"), &Limits::new(), None)
        .expect("files");
    assert_eq!(
        files,
        items(&serde_json::to_value(&expected).expect("json"))
    );

    let counts = all_pages(
        &client,
        "count_matches",
        json!({ "query": "needle", "limit": 4 }),
        "files with matching lines",
    )
    .await;
    let expected = tree
        .count_per_file(&Query::literal("needle"), &Limits::new(), None)
        .expect("count");
    assert_eq!(
        counts,
        items(&serde_json::to_value(&expected).expect("json"))
    );

    let lines = all_pages(
        &client,
        "excerpt",
        json!({ "path": "many/file3.txt", "limit": 3 }),
        "excerpt lines",
    )
    .await;
    assert_eq!(lines.len(), 7);
    client.cancel().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_limit_above_the_ceiling_is_clamped_and_disclosed() {
    let tmp = many_matches();
    let client = connect(tmp.path(), &["--ceiling", "5"]).await;
    let result = call(
        &client,
        "search_text",
        json!({ "query": "needle", "limit": 50, "count_total": true }),
    )
    .await;
    let page = wire::<Match>(&result, "matching lines");
    assert_eq!(page["count"], 5);
    assert_eq!(page["truncation"]["by"], "limit");
    assert_eq!(page["truncation"]["limit"], 5);
    assert_eq!(page["truncation"]["requested"], 50);
    assert_eq!(page["total"]["relation"], "eq");
    let first = text(&result).lines().next().unwrap_or_default().to_owned();
    assert!(
        first.starts_with("Incomplete: matching lines 1-5 of 42"),
        "{first}"
    );
    assert!(first.contains("50 requested"), "{first}");

    // The server's default limit is not a request: no clamp to disclose.
    let result = call(&client, "search_text", json!({ "query": "needle" })).await;
    let page = wire::<Match>(&result, "matching lines");
    assert_eq!(page["truncation"]["limit"], 5);
    assert!(page["truncation"].get("requested").is_none(), "{page}");

    // A JSON Schema integer written as a float is an integer.
    let result = call(
        &client,
        "search_text",
        json!({ "query": "needle", "limit": 3.0, "max_bytes": 8192.0 }),
    )
    .await;
    assert_eq!(wire::<Match>(&result, "matching lines")["count"], 3);
    client.cancel().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_is_a_tool_error_and_the_server_keeps_serving() {
    let tmp = sample_tree();
    let root = tmp.path();
    let elsewhere = tempfile::tempdir().expect("another folder");
    std::fs::write(elsewhere.path().join("x.txt"), "fish\n").expect("write");
    let client = connect(root, &[]).await;

    let count_page = call(
        &client,
        "count_matches",
        json!({ "query": "fish", "limit": 1 }),
    )
    .await;
    let foreign = wire::<FileCount>(&count_page, "files with matching lines")["next_cursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    let outside = elsewhere.path().to_str().expect("UTF-8").to_owned();
    let outside_file = elsewhere
        .path()
        .join("x.txt")
        .to_str()
        .expect("UTF-8")
        .to_owned();

    let cases: Vec<(&str, &str, Value, &str)> = vec![
        (
            "bad regex",
            "search_text",
            json!({ "query": "fish(", "mode": "regex" }),
            "invalid pattern",
        ),
        (
            "unknown mode",
            "search_text",
            json!({ "query": "fish", "mode": "glob" }),
            "mode",
        ),
        (
            "garbage cursor",
            "search_text",
            json!({ "query": "fish", "cursor": "garbage!" }),
            "cursor",
        ),
        (
            "cursor of another tool",
            "search_text",
            json!({ "query": "fish", "cursor": foreign }),
            "another query",
        ),
        (
            "parent escape",
            "search_text",
            json!({ "query": "fish", "path": "../" }),
            "outside",
        ),
        (
            "nested parent escape",
            "files_with_matches",
            json!({ "query": "fish", "path": "a/../../x" }),
            "outside",
        ),
        (
            "absolute path elsewhere",
            "count_matches",
            json!({ "query": "fish", "path": outside }),
            "outside",
        ),
        (
            "excerpt outside",
            "excerpt",
            json!({ "path": outside_file }),
            "outside",
        ),
        (
            "excerpt escape",
            "excerpt",
            json!({ "path": "../x.txt" }),
            "outside",
        ),
        (
            "excerpt of a missing file",
            "excerpt",
            json!({ "path": "nope.txt" }),
            "nope.txt",
        ),
        (
            "missing query",
            "search_text",
            json!({ "limit": 3 }),
            "query",
        ),
        (
            "wrong type",
            "search_text",
            json!({ "query": "fish", "limit": "ten" }),
            "limit",
        ),
        (
            "unknown argument",
            "search_text",
            json!({ "query": "fish", "max_results": 3 }),
            "max_results",
        ),
        (
            "misspelled argument",
            "count_matches",
            json!({ "query": "fish", "limt": 3 }),
            "did you mean \"limit\"",
        ),
        (
            "fractional limit",
            "search_text",
            json!({ "query": "fish", "limit": 2.5 }),
            "limit",
        ),
        (
            "budget too small",
            "search_text",
            json!({ "query": "fish", "max_bytes": 5 }),
            "max_bytes",
        ),
        (
            "strict mode, incomplete",
            "search_text",
            json!({ "query": "fish", "limit": 1, "strict": true }),
            "incomplete",
        ),
        (
            "search of a missing path",
            "search_text",
            json!({ "query": "fish", "path": "typo.txt" }),
            "\"typo.txt\" is not in the corpus",
        ),
        (
            "count of a missing path",
            "count_matches",
            json!({ "query": "fish", "path": "a/typo" }),
            "\"a/typo\" is not in the corpus",
        ),
        (
            "files of a missing path",
            "files_with_matches",
            json!({ "query": "fish", "path": "typo/x.rs" }),
            "\"typo/x.rs\" is not in the corpus",
        ),
        (
            "excerpt of a folder",
            "excerpt",
            json!({ "path": "a" }),
            "\"a\" is a folder, not a file",
        ),
        (
            "null query",
            "search_text",
            json!({ "query": null }),
            "query",
        ),
    ];
    for (name, tool, arguments, needle) in cases {
        let result = call(&client, tool, arguments).await;
        assert!(is_error(&result), "{name}: expected a tool error");
        let message = text(&result);
        assert!(
            message.to_lowercase().contains(needle),
            "{name}: {message:?} does not mention {needle:?}"
        );
        // Still serving.
        let next = call(&client, "files_with_matches", json!({ "query": "red" })).await;
        let files = wire::<String>(&next, "files");
        assert_eq!(items(&files), [json!("b/three.txt")], "after {name}");
    }

    // Strict mode's error carries what was found, marked as partial.
    let strict = call(
        &client,
        "search_text",
        json!({ "query": "fish", "limit": 1, "strict": true }),
    )
    .await;
    let message = text(&strict);
    let json_start = message
        .find("{\"complete\":false")
        .expect("the partial JSON");
    let partial: Bounded<Match> =
        serde_json::from_str(&message[json_start..]).expect("the wire shape");
    assert_eq!(partial.len(), 1);
    assert!(!partial.is_complete());

    // An argument sent as null is read as absent, whatever its type: the
    // same answer as without it.
    let plain = call(&client, "search_text", json!({ "query": "fish" })).await;
    let nulls = call(
        &client,
        "search_text",
        json!({
            "query": "fish", "mode": null, "case_insensitive": null, "whole_word": null,
            "path": null, "directory": null, "hidden": null, "no_ignore": null,
            "follow_links": null, "max_depth": null, "deadline_ms": null, "max_columns": null,
            "limit": null, "cursor": null, "max_bytes": null, "count_total": null, "strict": null
        }),
    )
    .await;
    assert!(!is_error(&nulls), "{}", text(&nulls));
    assert_eq!(
        wire::<Match>(&nulls, "matching lines"),
        wire::<Match>(&plain, "matching lines")
    );

    // An absolute path inside the root is fine.
    let inside = root.join("b").to_str().expect("UTF-8").to_owned();
    let result = call(
        &client,
        "files_with_matches",
        json!({ "query": "red", "path": inside }),
    )
    .await;
    assert_eq!(
        items(&wire::<String>(&result, "files")),
        [json!("b/three.txt")]
    );
    client.cancel().await.expect("shutdown");
}

/// Drives the server with raw JSON-RPC lines, for what a well-behaved
/// client never sends.
struct RawSession {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
}

impl RawSession {
    async fn start(root: &Path) -> RawSession {
        let mut child = tokio::process::Command::new(server())
            .arg("--root")
            .arg(root)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        use tokio::io::AsyncBufReadExt;
        let mut session = RawSession {
            child,
            stdin,
            stdout: tokio::io::BufReader::new(stdout).lines(),
        };
        let init = session
            .request(json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": { "protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": { "name": "raw", "version": "0" } }
            }))
            .await;
        assert!(init.get("result").is_some(), "{init}");
        session
            .send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string())
            .await;
        session
    }

    async fn send_bytes(&mut self, bytes: &[u8]) {
        use tokio::io::AsyncWriteExt;
        self.stdin
            .write_all(bytes)
            .await
            .expect("write to the server");
        self.stdin.flush().await.expect("flush");
    }

    async fn send(&mut self, line: &str) {
        use tokio::io::AsyncWriteExt;
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write to the server");
        self.stdin.flush().await.expect("flush");
    }

    async fn reply(&mut self) -> Value {
        let line = tokio::time::timeout(HANG_GUARD, self.stdout.next_line())
            .await
            .expect("the server answers")
            .expect("read")
            .expect("a line before the end");
        serde_json::from_str(&line).expect("a JSON-RPC message")
    }

    async fn request(&mut self, message: Value) -> Value {
        self.send(&message.to_string()).await;
        self.reply().await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_lines_and_wrong_argument_types_get_json_rpc_errors() {
    let tmp = sample_tree();
    let mut session = RawSession::start(tmp.path()).await;

    for garbage in ["{not json", "[1, 2", "tools/call please"] {
        session.send(garbage).await;
        let reply = session.reply().await;
        assert_eq!(reply["error"]["code"], json!(-32700), "{garbage}: {reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not JSON"),
            "{reply}"
        );
    }

    for (id, arguments, kind) in [
        (7, json!("fish"), "a string"),
        (8, json!([1, 2]), "an array"),
        (9, json!(3), "a number"),
    ] {
        let reply = session
            .request(json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "search_text", "arguments": arguments }
            }))
            .await;
        assert_eq!(reply["id"], json!(id), "{reply}");
        assert_eq!(reply["error"]["code"], json!(-32602), "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`arguments`") && message.contains(kind),
            "{message}"
        );
    }

    // Still serving, in step: the next answer is to the next request.
    let reply = session
        .request(json!({
            "jsonrpc": "2.0", "id": 10, "method": "tools/call",
            "params": { "name": "files_with_matches", "arguments": { "query": "red" } }
        }))
        .await;
    assert_eq!(reply["id"], json!(10), "{reply}");
    let result = &reply["result"];
    assert_eq!(result["isError"], json!(false), "{reply}");
    assert_eq!(result["structuredContent"]["items"], json!(["b/three.txt"]));
    let mirror: Value =
        serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).expect("JSON");
    assert_eq!(mirror, result["structuredContent"]);
    session.child.kill().await.expect("stop the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn lines_that_are_not_utf8_get_a_parse_error_and_the_session_goes_on() {
    let tmp = sample_tree();
    let mut session = RawSession::start(tmp.path()).await;
    for garbage in [
        &b"\xff\xfe\n"[..],
        b"\xc3\x28\n",
        b"{\"jsonrpc\": \"2.0\xff\"}\r\n",
    ] {
        session.send_bytes(garbage).await;
        let reply = session.reply().await;
        assert_eq!(reply["error"]["code"], json!(-32700), "{reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("not UTF-8"), "{message}");
    }
    let reply = session
        .request(json!({ "jsonrpc": "2.0", "id": 555, "method": "tools/list" }))
        .await;
    assert_eq!(reply["id"], json!(555), "{reply}");
    assert!(reply["result"]["tools"].is_array(), "{reply}");
    session.child.kill().await.expect("stop the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_line_longer_than_a_mebibyte_gets_an_error_with_its_id_and_the_session_goes_on() {
    let tmp = sample_tree();
    let mut session = RawSession::start(tmp.path()).await;
    // A request padded to `len` bytes, then `ending`.
    let padded = |len: usize, ending: &[u8]| {
        let head = br#"{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}"#;
        let mut line = head.to_vec();
        line.resize(len, b' ');
        line.extend_from_slice(ending);
        line
    };
    // Exactly the most a line may hold is read, whatever its line ending;
    // one byte more is refused.
    for ending in [&b"\n"[..], b"\r\n"] {
        session.send_bytes(&padded(1 << 20, ending)).await;
        let reply = session.reply().await;
        assert_eq!(reply["id"], json!(7), "{reply}");
    }
    for (len, ending) in [
        ((1 << 20) + 1, &b"\n"[..]),
        ((1 << 20) + 1, b"\r\n"),
        (10 << 20, b"\n"),
    ] {
        session.send_bytes(&padded(len, ending)).await;
        let reply = session.reply().await;
        assert_eq!(reply["id"], json!(7), "{reply}");
        assert_eq!(reply["error"]["code"], json!(-32600), "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("longer than 1048576 bytes"), "{message}");
    }
    // A line whose id cannot be read is answered with a null id.
    let mut garbage = vec![b'x'; 2 << 20];
    garbage.push(b'\n');
    session.send_bytes(&garbage).await;
    let reply = session.reply().await;
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert_eq!(reply["error"]["code"], json!(-32600), "{reply}");
    let reply = session
        .request(json!({ "jsonrpc": "2.0", "id": 556, "method": "tools/list" }))
        .await;
    assert_eq!(reply["id"], json!(556), "{reply}");
    session.child.kill().await.expect("stop the server");
}

/// The issue's case: a client that sends a 10 MiB pattern or a 1 MiB
/// cursor gets an answer to its request (it used to wait forever), and
/// the server keeps serving it.
#[tokio::test(flavor = "multi_thread")]
async fn a_request_over_the_line_cap_is_answered_and_the_client_goes_on() {
    let tmp = sample_tree();
    let client = connect(tmp.path(), &[]).await;
    let huge_pattern = json!({ "query": "x".repeat(10 << 20) });
    let huge_cursor = json!({ "query": "fish", "cursor": "A".repeat(1 << 20) });
    for arguments in [huge_pattern, huge_cursor] {
        let Value::Object(arguments) = arguments else {
            unreachable!()
        };
        let params = CallToolRequestParams::new("search_text").with_arguments(arguments);
        let answer = tokio::time::timeout(HANG_GUARD, client.call_tool(params))
            .await
            .expect("the server answers the request");
        let Err(rmcp::ServiceError::McpError(error)) = answer else {
            panic!("expected a JSON-RPC error, got {answer:?}");
        };
        assert_eq!(error.code.0, -32600, "{error:?}");
        assert!(
            error.message.contains("longer than 1048576 bytes"),
            "{error:?}"
        );
        let next = call(&client, "files_with_matches", json!({ "query": "red" })).await;
        assert_eq!(
            items(&wire::<String>(&next, "files")),
            [json!("b/three.txt")]
        );
    }
    client.cancel().await.expect("shutdown");
}

/// The target directory this test binary was built in, for `cargo run`.
fn target_dir() -> std::path::PathBuf {
    // This binary is <target>/<profile>/deps/integration-<hash>.
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary sits in <target>/<profile>/deps")
        .to_owned()
}

/// How the README starts the server: a `cargo run` command (run with
/// cargo, as written), or an installed `candor-mcp-server` with its
/// arguments (a client configuration or a `claude mcp add` line, run with
/// the binary `cargo test` built).
#[derive(Debug)]
struct Shown {
    /// Where the README shows it.
    what: String,
    /// Through cargo, or the installed binary.
    cargo: bool,
    /// The arguments: cargo's, or the server's.
    args: Vec<String>,
}

/// Every way the README shows of starting the server: the `cargo run`
/// lines of its `sh` blocks and of its prose, the servers of its
/// `mcpServers` configurations (`json` blocks), and the `claude mcp add`
/// lines.
fn shown_in_readme(readme: &str) -> Vec<Shown> {
    let mut shown = Vec::new();
    let mut fence: Option<String> = None;
    let mut block = String::new();
    let mut prose = String::new();
    for line in readme.lines() {
        let trimmed = line.trim();
        if let Some(lang) = trimmed.strip_prefix("```") {
            match fence.take() {
                Some(lang) if lang == "json" && block.contains("mcpServers") => {
                    let config: Value = serde_json::from_str(&block)
                        .unwrap_or_else(|e| panic!("a json block that does not parse: {e}"));
                    let servers = config["mcpServers"].as_object().expect("mcpServers");
                    for (name, server) in servers {
                        assert_eq!(
                            server["command"], "candor-mcp-server",
                            "the command `cargo install` puts in place"
                        );
                        let args = server["args"].as_array().expect("args");
                        shown.push(Shown {
                            what: format!("the mcpServers entry {name:?}: {server}"),
                            cargo: false,
                            args: args
                                .iter()
                                .map(|a| a.as_str().expect("a string").to_owned())
                                .collect(),
                        });
                    }
                }
                Some(_) => {}
                None => fence = Some(lang.trim().to_owned()),
            }
            block.clear();
            continue;
        }
        match fence.as_deref() {
            Some("sh") if trimmed.starts_with("cargo run") => shown.push(Shown {
                what: trimmed.to_owned(),
                cargo: true,
                args: trimmed
                    .split_whitespace()
                    .skip(1)
                    .map(str::to_owned)
                    .collect(),
            }),
            Some(_) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {
                prose.push_str(line);
                prose.push(' ');
            }
        }
    }
    // Inline spans: the odd pieces between backticks.
    for span in prose.split('`').skip(1).step_by(2) {
        if span.starts_with("cargo run") {
            shown.push(Shown {
                what: span.to_owned(),
                cargo: true,
                args: span.split_whitespace().skip(1).map(str::to_owned).collect(),
            });
        } else if let Some(rest) = span.strip_prefix("claude mcp add ") {
            let (_, command) = rest
                .split_once(" -- ")
                .expect("claude mcp add NAME -- COMMAND");
            let mut words = command.split_whitespace();
            assert_eq!(words.next(), Some("candor-mcp-server"), "{span}");
            shown.push(Shown {
                what: span.to_owned(),
                cargo: false,
                args: words.map(str::to_owned).collect(),
            });
        }
    }
    shown
}

/// Every way of starting the server that the README shows works as
/// written: each `cargo run` command (run from the repository's root,
/// `DIR` a folder), each client configuration and each `claude mcp add`
/// line (`/path/to/project` the folder searched, any other absolute path
/// a folder of its own: another root, or the indexes' folder) starts a
/// server that lists its tools and answers a search.
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_s_mcp_commands_run_as_written() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(manifest.join("README.md")).expect("README.md");
    let shown = shown_in_readme(&readme);
    let cargo = shown.iter().filter(|s| s.cargo).count();
    let installed = shown.len() - cargo;
    assert!(cargo >= 2 && installed >= 2, "{shown:#?}");
    for flag in ["--no-index", "--index-dir"] {
        assert!(
            shown.iter().any(|s| s.args.iter().any(|a| a == flag)),
            "a way with {flag}: {shown:#?}"
        );
    }
    let workspace = manifest
        .ancestors()
        .nth(2)
        .expect("the workspace holds the crate at crates/NAME");
    let tmp = sample_tree();
    let indexes = tempfile::tempdir().expect("a temporary folder");
    for (n, way) in shown.iter().enumerate() {
        let args: Vec<std::ffi::OsString> = way
            .args
            .iter()
            .map(|word| match word.as_str() {
                "DIR" | "/path/to/project" => tmp.path().as_os_str().to_owned(),
                // Another root, or an index's folder: a folder of its own.
                word if word.starts_with('/') => {
                    let folder = indexes
                        .path()
                        .join(n.to_string())
                        .join(Path::new(word).file_name().expect("a folder's name"));
                    std::fs::create_dir_all(&folder).expect("a folder");
                    folder.into()
                }
                word => word.into(),
            })
            .collect();
        let mut process = if way.cargo {
            let mut process = tokio::process::Command::new(env!("CARGO"));
            // The command may build the server first.
            process
                .current_dir(workspace)
                .env("CARGO_TARGET_DIR", target_dir());
            process
        } else {
            tokio::process::Command::new(server())
        };
        // The default index folder is the user's cache: a temporary one.
        process.args(&args).env("XDG_CACHE_HOME", indexes.path());
        let what = &way.what;
        let transport = TokioChildProcess::new(process).expect("the process starts");
        let Ok(session) = tokio::time::timeout(Duration::from_secs(900), ().serve(transport)).await
        else {
            panic!("{what}: no answer to initialize");
        };
        let client = session.unwrap_or_else(|e| panic!("{what}: no MCP session: {e}"));
        let tools = tokio::time::timeout(HANG_GUARD, client.list_all_tools())
            .await
            .expect("the server answers")
            .expect("tools/list");
        let search = tools
            .iter()
            .find(|t| t.name.starts_with("search"))
            .unwrap_or_else(|| panic!("{what}: no search tool"));
        let result = call(
            &client,
            &search.name,
            json!({ "query": "red fish", "limit": 5 }),
        )
        .await;
        let page = wire::<Match>(&result, "matching lines");
        assert_eq!(page["items"][0]["path"], "b/three.txt", "{what}: {page}");
        client.cancel().await.expect("shutdown");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_exits_when_its_input_ends() {
    let tmp = sample_tree();
    // Mid-session, after a request, and before anything at all.
    for initialize in [true, false] {
        let mut child = tokio::process::Command::new(server())
            .arg("--root")
            .arg(tmp.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let mut stdin = child.stdin.take().expect("stdin");
        if initialize {
            use tokio::io::AsyncWriteExt;
            let init = json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": { "protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": { "name": "raw", "version": "0" } }
            });
            stdin
                .write_all(format!("{init}\n").as_bytes())
                .await
                .expect("write");
        }
        drop(stdin);
        let status = tokio::time::timeout(HANG_GUARD, child.wait())
            .await
            .unwrap_or_else(|_| {
                panic!("still running after its input ended (initialize: {initialize})")
            })
            .expect("wait");
        // Before the handshake there was no session: the server says it
        // could not start, and fails.
        assert_eq!(status.success(), initialize, "{status}");
    }
}

/// The wire shape of a tool result without its cursor (bound to the
/// corpus that issued it).
fn without_cursor(result: &CallToolResult) -> Value {
    let mut value = result
        .structured_content
        .clone()
        .expect("structured content");
    if let Some(object) = value.as_object_mut() {
        object.remove("next_cursor");
    }
    value
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_answers_from_the_index_as_from_the_tree() {
    let tmp = many_matches();
    let root = tmp.path();
    let store = tempfile::tempdir().expect("a folder");
    let store_arg = store.path().to_str().expect("a UTF-8 path");
    let plain = connect(root, &["--no-index"]).await;
    let indexed = connect(root, &["--index-dir", store_arg]).await;
    // The first call asks for the folder's index, and a scan answers it
    // while the index is built; then the index answers.
    let first = call(&indexed, "search_text", json!({ "query": "needle" })).await;
    assert!(!is_error(&first), "{}", text(&first));
    let built = || {
        std::fs::read_dir(store.path())
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.path().join("CURRENT").exists())
    };
    let waited = std::time::Instant::now();
    while !built() {
        assert!(waited.elapsed() < HANG_GUARD, "the index was never built");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let calls = [
        ("search_text", json!({ "query": "needle", "limit": 5 })),
        ("search_text", json!({ "query": "fish" })),
        // With a depth limit, the tree answers: the same answer.
        ("search_text", json!({ "query": "fish", "max_depth": 1 })),
        ("count_matches", json!({ "query": "fish", "max_depth": 2 })),
        ("count_matches", json!({ "query": "needle" })),
        ("files_with_matches", json!({ "query": "line", "limit": 2 })),
        (
            "excerpt",
            json!({ "path": "many/file1.txt", "start_line": 2, "end_line": 3 }),
        ),
    ];
    for (tool, arguments) in &calls {
        let a = call(&plain, tool, arguments.clone()).await;
        let b = call(&indexed, tool, arguments.clone()).await;
        assert_eq!(without_cursor(&a), without_cursor(&b), "{tool} {arguments}");
    }
    // A change is seen (the watcher's report, or the stamps).
    std::fs::write(root.join("many/late.txt"), "needle late\n").expect("write");
    let arguments = json!({ "query": "late" });
    let mut found = false;
    for _ in 0..100 {
        let b = call(&indexed, "search_text", arguments.clone()).await;
        if without_cursor(&b)["count"] == 1 {
            found = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(found, "the change was never seen");
}

/// The official TypeScript MCP client (which checks every
/// `structuredContent` against the tool's `outputSchema`) drives the
/// server and the minimal example as an agent would: a walk of pages,
/// each saying where it starts, every tool's answer valid, a misspelled
/// argument refused, `strict` an error that holds what was found.
///
/// Needs Node.js and the client's packages (`npm ci` in
/// `tests/ts-client`); without them the test says so and passes, unless
/// `CANDOR_REQUIRE_NODE=1` (as CI sets it), when it fails.
#[test]
fn the_typescript_client_finds_both_servers_keep_their_promises() {
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ts-client");
    let ready = client
        .join("node_modules/@modelcontextprotocol/sdk")
        .exists()
        && std::process::Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !ready {
        assert!(
            std::env::var_os("CANDOR_REQUIRE_NODE").is_none(),
            "Node.js or the TypeScript client's packages are missing (npm ci in {})",
            client.display()
        );
        eprintln!(
            "skipped: no Node.js, or no `npm ci` in {}",
            client.display()
        );
        return;
    }
    let tmp = many_matches();
    let store = tempfile::tempdir().expect("a folder");
    let root = tmp.path().to_str().expect("a UTF-8 path");
    let minimal = build_minimal_example();
    let servers: [(&str, Vec<String>); 3] = [
        (
            "search_text",
            vec![
                server().to_owned(),
                "--root".into(),
                root.into(),
                "--index-dir".into(),
                store.path().to_str().expect("UTF-8").into(),
            ],
        ),
        (
            "search_text",
            vec![
                server().to_owned(),
                "--root".into(),
                root.into(),
                "--no-index".into(),
            ],
        ),
        ("search", vec![minimal, root.into()]),
    ];
    for (tool, command) in servers {
        let output = std::process::Command::new("node")
            .arg(client.join("check.mjs"))
            .args([tool, "needle", "--"])
            .args(&command)
            .output()
            .expect("node runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.trim_end().ends_with("ok"),
            "{command:?}:\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Builds the MCP crate's minimal example with this test's profile and
/// target directory, and gives its path.
fn build_minimal_example() -> String {
    let target = target_dir();
    let status = std::process::Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "-p",
            "candor-mcp",
            "--example",
            "mcp_minimal",
        ])
        .arg("--target-dir")
        .arg(&target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the minimal example builds");
    target
        .join("debug/examples/mcp_minimal")
        .to_str()
        .expect("a UTF-8 path")
        .to_owned()
}

/// The calls of the load tests: searches, counts, file lists, excerpts,
/// a bad cursor, a bad pattern and a misspelled argument.
fn mixed_calls() -> Vec<(&'static str, Value)> {
    let mut calls = Vec::new();
    for limit in [1, 3, 10, 50] {
        calls.push(("search_text", json!({ "query": "needle", "limit": limit })));
        calls.push((
            "search_text",
            json!({ "query": r"needle \d+", "mode": "regex", "limit": limit, "count_total": true }),
        ));
        calls.push((
            "count_matches",
            json!({ "query": "line", "limit": limit, "count_total": true }),
        ));
        calls.push((
            "files_with_matches",
            json!({ "query": "fish", "limit": limit }),
        ));
    }
    calls.push((
        "excerpt",
        json!({ "path": "many/file3.txt", "start_line": 2 }),
    ));
    calls.push((
        "search_text",
        json!({ "query": "needle", "cursor": "not-a-cursor" }),
    ));
    calls.push(("search_text", json!({ "query": "(", "mode": "regex" })));
    calls.push(("count_matches", json!({ "query": "needle", "limt": 5 })));
    calls
}

/// What a call's answer says, less its cursor: the same call made alone
/// must say the same.
fn answer_of(result: &CallToolResult) -> (bool, Value, String) {
    let mut structured = result.structured_content.clone().unwrap_or(Value::Null);
    if let Some(object) = structured.as_object_mut() {
        object.remove("next_cursor");
    }
    let first = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    (is_error(result), structured, first)
}

/// Whether `cut` is a disclosed cut of `whole`: cut by the deadline (or
/// the call's cancellation), its items a prefix of the whole answer's,
/// and it says so.
fn is_disclosed_cut(cut: &Value, whole: &Value) -> bool {
    let stopped_by_time = matches!(
        cut["truncation"]["budget"].as_str(),
        Some("deadline" | "cancelled")
    ) || matches!(
        cut["total"]["cut_by"]["budget"].as_str(),
        Some("deadline" | "cancelled")
    );
    let cut_items = cut["items"].as_array().cloned().unwrap_or_default();
    let whole_items = whole["items"].as_array().cloned().unwrap_or_default();
    stopped_by_time
        && cut["complete"] == false
        && cut_items.len() <= whole_items.len()
        && cut_items[..] == whole_items[..cut_items.len()]
}

/// Hundreds of calls in flight in one session: every one is answered, and
/// each answer is the one the same call gets alone, or a cut of it that
/// says it was cut and why, or a clear "busy" error (nothing searched).
#[tokio::test(flavor = "multi_thread")]
async fn hundreds_of_calls_in_flight_each_answer_as_alone_or_say_why_not() {
    let tmp = many_matches();
    let calls = mixed_calls();
    // Each call made alone, with time to spare: the whole answers.
    let alone = {
        let client = connect(tmp.path(), &["--deadline-ms", "60000"]).await;
        let mut alone = Vec::new();
        for (tool, arguments) in &calls {
            alone.push(answer_of(&call(&client, tool, arguments.clone()).await));
        }
        alone
    };
    // Time and room to wait for all; then little time, and the default
    // queue (64 calls for two threads).
    for (deadline, waiting) in [("10000", "1000"), ("1", "64")] {
        let client = connect(
            tmp.path(),
            &[
                "--workers",
                "2",
                "--deadline-ms",
                deadline,
                "--max-waiting",
                waiting,
            ],
        )
        .await;
        let client = std::sync::Arc::new(client);
        let mut tasks = Vec::new();
        for round in 0..12 {
            for (n, (tool, arguments)) in calls.iter().enumerate() {
                let (client, tool, arguments) =
                    (std::sync::Arc::clone(&client), *tool, arguments.clone());
                tasks.push(tokio::spawn(async move {
                    let result = call(&client, tool, arguments).await;
                    (round, n, answer_of(&result))
                }));
            }
        }
        let (mut same, mut cut, mut busy) = (0, 0, 0);
        for task in tasks {
            let (round, n, (error, structured, first)) = task.await.expect("a call's task");
            let (alone_error, alone_structured, alone_first) = &alone[n];
            if (error, &structured, &first) == (*alone_error, alone_structured, alone_first) {
                same += 1;
            } else if error && first.starts_with("busy: ") && first.ends_with("call again") {
                busy += 1;
            } else if !error && is_disclosed_cut(&structured, alone_structured) {
                cut += 1;
            } else {
                panic!(
                    "deadline {deadline} ms, round {round}, call {:?}: {first}\n{structured}\nalone: {alone_first}\n{alone_structured}",
                    calls[n]
                );
            }
        }
        eprintln!("deadline {deadline} ms: {same} as alone, {cut} cut, {busy} busy");
        assert_eq!(same + cut + busy, 12 * calls.len());
        if deadline == "10000" {
            // Ten seconds is ample for this tree: nothing is cut.
            assert_eq!((cut, busy), (0, 0));
        }
    }
}

/// A folder or a file spelled from a root as the command line gave it (a
/// root that is a link), or an absolute path in the second root without a
/// `directory`, is found; an excerpt's long line is cut by default rather
/// than too long to send; `deadline_ms` is an argument.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn paths_are_found_as_the_client_spells_them() {
    let first = sample_tree();
    let second = tempfile::tempdir().expect("a folder");
    std::fs::create_dir(second.path().join("sub")).expect("mkdir");
    std::fs::write(
        second.path().join("sub/in.txt"),
        "needle in the second root\n",
    )
    .expect("write");
    std::fs::write(
        second.path().join("long.txt"),
        format!("{}\n", "x".repeat(400_000)),
    )
    .expect("write");
    let links = tempfile::tempdir().expect("a folder");
    let linked = links.path().join("linkroot");
    std::os::unix::fs::symlink(second.path(), &linked).expect("a link");
    let client = connect(
        first.path(),
        &["--root", linked.to_str().expect("UTF-8"), "--no-index"],
    )
    .await;
    let through_link = linked.join("sub");
    let found = call(
        &client,
        "search_text",
        json!({ "query": "needle", "directory": through_link.to_str().expect("UTF-8") }),
    )
    .await;
    let page = wire::<Match>(&found, "matching lines");
    assert_eq!(page["items"][0]["path"], "in.txt", "{page}");
    // An absolute path in the second root, no directory: its root.
    let file = linked.join("sub/in.txt");
    let excerpt = call(
        &client,
        "excerpt",
        json!({ "path": file.to_str().expect("UTF-8") }),
    )
    .await;
    assert!(!is_error(&excerpt), "{}", text(&excerpt));
    assert_eq!(
        excerpt.structured_content.expect("a page")["items"][0]["line"],
        "needle in the second root"
    );
    // A 400,000-byte line: cut at 2,000 bytes by default, and it says so.
    let long = call(
        &client,
        "excerpt",
        json!({ "path": "long.txt", "directory": linked.to_str().expect("UTF-8") }),
    )
    .await;
    assert!(!is_error(&long), "{}", text(&long));
    let item = &long.structured_content.expect("a page")["items"][0];
    assert_eq!(item["line_cut"]["original_bytes"], 400_000, "{item}");
    // Asked for whole, it is too long for any page: the answer says a
    // larger max_bytes will not help.
    let whole = call(
        &client,
        "excerpt",
        json!({ "path": "long.txt", "directory": linked.to_str().expect("UTF-8"),
                "max_columns": 1_000_000, "max_bytes": 2_000_000 }),
    )
    .await;
    assert!(is_error(&whole));
    assert!(
        text(&whole).contains("a larger max_bytes will not help"),
        "{}",
        text(&whole)
    );
    // deadline_ms is read; excerpt takes no `hidden`.
    let timed = call(
        &client,
        "count_matches",
        json!({ "query": "fish", "deadline_ms": 30_000, "count_total": true }),
    )
    .await;
    assert!(!is_error(&timed), "{}", text(&timed));
    let hidden = call(
        &client,
        "excerpt",
        json!({ "path": "c.txt", "hidden": true }),
    )
    .await;
    assert!(
        is_error(&hidden) && text(&hidden).contains("hidden"),
        "{}",
        text(&hidden)
    );
}

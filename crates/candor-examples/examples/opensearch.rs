//! Pages of an OpenSearch or Elasticsearch search, each with the
//! cluster's own disclosure carried into candor's: time-outs, failed
//! shards, capped totals.
//!
//! ```text
//! cargo run -p candor-examples --bin opensearch -- \
//!     --url http://localhost:9200 --index logs --query '{"match":{"message":"flush"}}' \
//!     --sort @timestamp:desc --tie-breaker event_id --limit 20
//! cargo run -p candor-examples --bin opensearch -- --sort service:asc --sort latency:desc \
//!     --pit 46ToAwMD --limit 2 --replay tests/data/opensearch/walk-1.json \
//!     tests/data/opensearch/walk-2.json tests/data/opensearch/walk-3.json
//! ```
//!
//! With `--url`, the requests go to the cluster through the official
//! client (`opensearch` crate; plain HTTP); `--all` follows the cursors
//! to the last page. With `--replay FILE...`, recorded responses stand in
//! for the cluster, one per page in order, and the walk follows the
//! cursors through them: no server is needed.
//!
//! Each page prints its hits on standard output, one line each
//! (`index/id: source`), then one line on standard error that says
//! whether the answer is complete, and if not, why, how many hits there
//! are, and the `--cursor` flag that resumes it. `--json` prints each
//! page's wire shape instead, one JSON object per line.
//!
//! Exit status: 0 when something matched, 1 when nothing did, 2 on an
//! error.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use candor::opensearch::{Order, Request, Search, SortField, TieBreaker};
use candor::{Bounded, Cursor, Limits};
use clap::Parser;
use opensearch::http::transport::Transport;
use opensearch::{OpenSearch, SearchParts};
use serde::Serialize;
use serde_json::Value;

/// Page through an OpenSearch or Elasticsearch search, and say whether
/// the answer is complete.
#[derive(Debug, Parser)]
#[command(name = "opensearch", max_term_width = 100)]
struct Args {
    /// The cluster's address.
    #[arg(long, default_value = "http://localhost:9200")]
    url: String,

    /// The index, alias or pattern to search (not sent with --pit, whose
    /// point in time names it).
    #[arg(long)]
    index: Option<String>,

    /// The query clause, as JSON.
    #[arg(long, default_value = r#"{"match_all":{}}"#)]
    query: String,

    /// A sort field, FIELD:asc or FIELD:desc; repeat for several.
    #[arg(long = "sort", value_name = "FIELD:ORDER")]
    sorts: Vec<String>,

    /// A field unique per document, the sort's last (default with --pit:
    /// _shard_doc).
    #[arg(long, value_name = "FIELD")]
    tie_breaker: Option<String>,

    /// A point in time to search (its id).
    #[arg(long)]
    pit: Option<String>,

    /// The most hits per page.
    #[arg(long, default_value_t = 10)]
    limit: usize,

    /// The most bytes of a page's JSON.
    #[arg(long, value_name = "BYTES")]
    max_bytes: Option<usize>,

    /// The cluster's time-out per page, in milliseconds.
    #[arg(long, value_name = "MS")]
    timeout_ms: Option<u64>,

    /// Ask the cluster for an exact total.
    #[arg(long)]
    count_total: bool,

    /// Resume after this cursor (printed by an earlier page).
    #[arg(long)]
    cursor: Option<String>,

    /// With --url: follow the cursors to the last page.
    #[arg(long)]
    all: bool,

    /// Print each page's wire shape (JSON) instead of lines.
    #[arg(long)]
    json: bool,

    /// Read recorded responses, one per page in order, instead of asking
    /// a cluster.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    replay: Vec<PathBuf>,
}

/// One hit, as printed: where it is, and its source.
#[derive(Debug, Serialize)]
struct Hit {
    #[serde(rename = "_index")]
    index: String,
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "_source")]
    source: Value,
}

fn hit(value: &Value) -> Result<Hit, &'static str> {
    Ok(Hit {
        index: value["_index"].as_str().unwrap_or("").to_owned(),
        id: value["_id"].as_str().ok_or("no _id")?.to_owned(),
        source: value.get("_source").cloned().unwrap_or(Value::Null),
    })
}

struct Failure(String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure(e.to_string())
    }
}

fn build_search(args: &Args) -> Result<Search, Failure> {
    let query: Value = serde_json::from_str(&args.query)
        .map_err(|e| Failure(format!("--query is not JSON: {e}")))?;
    let mut search = Search::new(query);
    for sort in &args.sorts {
        let (field, order) = match sort.rsplit_once(':') {
            Some((field, "asc")) => (field, Order::Asc),
            Some((field, "desc")) => (field, Order::Desc),
            _ => (sort.as_str(), Order::Asc),
        };
        search = search.sort(SortField::new(field, order));
    }
    if let Some(field) = &args.tie_breaker {
        search = search.tie_breaker(TieBreaker::Field(field.clone()));
    }
    if let Some(pit) = &args.pit {
        search = search.pit(pit.clone());
    }
    if let Some(index) = &args.index {
        search = search.target(index.clone());
    }
    Ok(search)
}

fn build_limits(args: &Args) -> Limits {
    let mut limits = Limits::new()
        .limit(args.limit)
        .count_total(args.count_total);
    if let Some(max) = args.max_bytes {
        limits = limits.max_bytes(max);
    }
    if let Some(ms) = args.timeout_ms {
        limits = limits.deadline(Duration::from_millis(ms));
    }
    limits
}

/// Prints one page; returns whether it holds or counts a hit.
fn print_page(args: &Args, page: &Bounded<Hit>) -> Result<bool, Failure> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if args.json {
        page.write_json(&mut out)?;
        writeln!(out)?;
    } else {
        for hit in page.iter() {
            writeln!(out, "{}/{}: {}", hit.index, hit.id, hit.source)?;
        }
    }
    out.flush()?;
    eprintln!("{}", status_line(page.summary("hits"), page.next_cursor()));
    Ok(!page.is_empty() || page.total().value() > 0)
}

/// The line on standard error: the library's disclosure, with the wire's
/// "next_cursor" turned into the flag that resumes this command.
fn status_line(disclosure: String, next: Option<&Cursor>) -> String {
    match next {
        Some(next) => {
            let flag = format!("Resume with --cursor {next} (same command and arguments).");
            disclosure.replace("Resume with next_cursor.", &flag)
        }
        None => disclosure,
    }
}

/// Sends one page's request to the cluster and returns its JSON body,
/// whatever the HTTP status (an error response is read as one).
async fn send(client: &OpenSearch, args: &Args, request: &Request) -> Result<Value, Failure> {
    let index: Vec<&str> = args.index.iter().map(String::as_str).collect();
    let parts = if args.pit.is_some() || index.is_empty() {
        SearchParts::None
    } else {
        SearchParts::Index(&index)
    };
    let response = client
        .search(parts)
        .body(request.body().clone())
        .send()
        .await?;
    Ok(response.json::<Value>().await?)
}

async fn run(args: &Args) -> Result<bool, Failure> {
    let search = build_search(args)?;
    let limits = build_limits(args);
    let mut cursor = match &args.cursor {
        Some(token) => Some(Cursor::parse(token).map_err(|e| Failure(format!("--cursor: {e}")))?),
        None => None,
    };
    let mut matched = false;
    if !args.replay.is_empty() {
        for (n, file) in args.replay.iter().enumerate() {
            let request = search.request(&limits, cursor.as_ref())?;
            let text = std::fs::read_to_string(file)
                .map_err(|e| Failure(format!("cannot read {}: {e}", file.display())))?;
            let response: Value = serde_json::from_str(&text)
                .map_err(|e| Failure(format!("{} is not JSON: {e}", file.display())))?;
            let page = request.read_with(&response, hit)?;
            matched |= print_page(args, &page)?;
            cursor = page.next_cursor().cloned();
            if cursor.is_none() {
                if n + 1 < args.replay.len() {
                    eprintln!(
                        "opensearch: the walk ended at {}; the later recordings were not read",
                        file.display()
                    );
                }
                break;
            }
        }
        return Ok(matched);
    }
    let transport = Transport::single_node(&args.url)?;
    let client = OpenSearch::new(transport);
    loop {
        let request = search.request(&limits, cursor.as_ref())?;
        let response = send(&client, args, &request).await?;
        let page = request.read_with(&response, hit)?;
        matched |= print_page(args, &page)?;
        cursor = page.next_cursor().cloned();
        if !args.all || cursor.is_none() {
            return Ok(matched);
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Failure(message)) => {
            eprintln!("opensearch: {message}");
            ExitCode::from(2)
        }
    }
}

//! A search as the example's flags state it, the requests the official
//! client must send for it page after page (worked out here from the
//! flags and the answers before each request, as the search API
//! documents them), and the runs of the example on a stand-in cluster
//! (`--url`) and on the same answers recorded (`--replay`).

use std::process::{Command, Output};

use serde_json::{Map, Value, json};

use super::binary;
use super::cluster::{Answer, Cluster, Exchange};

/// The flags of a search.
#[derive(Debug, Clone)]
pub struct Walk {
    pub query: Value,
    /// Sort fields and their order, `asc` or `desc`.
    pub sorts: Vec<(String, &'static str)>,
    pub pit: Option<String>,
    pub keep_alive_ms: Option<u64>,
    pub index: Option<String>,
    pub tie_breaker: Option<String>,
    pub limit: usize,
    pub max_bytes: Option<usize>,
    pub timeout_ms: Option<u64>,
    pub count_total: bool,
    pub json: bool,
}

impl Walk {
    /// The search of the recordings `walk-*.json`: a point in time,
    /// two sort fields, two hits a page.
    pub fn recorded() -> Walk {
        Walk {
            query: json!({ "match": { "message": "flush" } }),
            sorts: vec![("service".into(), "asc"), ("latency".into(), "desc")],
            pit: Some("pit-a".into()),
            keep_alive_ms: None,
            index: None,
            tie_breaker: None,
            limit: 2,
            max_bytes: None,
            timeout_ms: None,
            count_total: false,
            json: false,
        }
    }

    /// The example's arguments for this search (no `--url`, `--all`,
    /// `--cursor` nor `--replay`), each `--flag=value`, so that a value
    /// may start with `-`.
    pub fn args(&self) -> Vec<String> {
        let mut args = vec![format!("--query={}", self.query)];
        for (field, order) in &self.sorts {
            args.push(format!("--sort={field}:{order}"));
        }
        let options = [
            ("--pit", self.pit.clone()),
            (
                "--keep-alive-ms",
                self.keep_alive_ms.map(|ms| ms.to_string()),
            ),
            ("--index", self.index.clone()),
            ("--tie-breaker", self.tie_breaker.clone()),
            ("--limit", Some(self.limit.to_string())),
            ("--max-bytes", self.max_bytes.map(|n| n.to_string())),
            ("--timeout-ms", self.timeout_ms.map(|ms| ms.to_string())),
        ];
        for (flag, value) in options {
            if let Some(value) = value {
                args.push(format!("{flag}={value}"));
            }
        }
        if self.count_total {
            args.push("--count-total".into());
        }
        if self.json {
            args.push("--json".into());
        }
        args
    }

    /// The path of every request: `/_search` with a point in time (which
    /// names the indices), `/<index>/_search` otherwise.
    pub fn path(&self) -> String {
        match (&self.pit, &self.index) {
            (None, Some(index)) => format!("/{index}/_search"),
            _ => "/_search".to_owned(),
        }
    }

    /// The body of the request that follows the answers `before` (the
    /// search responses to the earlier requests of the walk), the last of
    /// which showed `shown` hits: `size` is the limit plus one, the sort
    /// ends with the tie-breaker (a named field ascending, or
    /// `_shard_doc` with a point in time), the point in time is the
    /// latest id the cluster returned, and `search_after` holds the sort
    /// values of the last hit the previous page showed.
    pub fn body_after(&self, before: &[Value], shown: usize) -> Value {
        let mut body = Map::new();
        body.insert("query".into(), self.query.clone());
        body.insert("size".into(), json!(self.limit + 1));
        let mut sort: Vec<Value> = self
            .sorts
            .iter()
            .map(|(field, order)| json!({ field.as_str(): { "order": order } }))
            .collect();
        sort.push(match &self.tie_breaker {
            Some(field) => json!({ field.as_str(): { "order": "asc" } }),
            None => json!({ "_shard_doc": "asc" }),
        });
        body.insert("sort".into(), Value::Array(sort));
        body.insert("track_total_hits".into(), json!(self.count_total));
        if let Some(ms) = self.timeout_ms {
            body.insert("timeout".into(), json!(format!("{ms}ms")));
        }
        if let Some(first) = &self.pit {
            let id = before
                .iter()
                .rev()
                .find_map(|answer| answer["pit_id"].as_str())
                .unwrap_or(first);
            let keep_alive = self.keep_alive_ms.unwrap_or(60_000);
            body.insert(
                "pit".into(),
                json!({ "id": id, "keep_alive": format!("{keep_alive}ms") }),
            );
        }
        if let Some(previous) = before.last() {
            body.insert("search_after".into(), last_shown(previous, shown).clone());
        }
        Value::Object(body)
    }

    /// Checks every request of `exchanges`, each against the answers
    /// before it: `POST`, the path, no query string, a JSON body, and
    /// that body whole ([`body_after`](Self::body_after)), with
    /// `search_after` written exactly as the cluster wrote the values.
    /// `shown` holds how many hits each page showed, when a byte budget
    /// may have kept fewer than the limit (empty: the limit, on every
    /// page that a later one follows).
    pub fn check_requests(&self, exchanges: &[Exchange], shown: &[usize]) -> Result<(), String> {
        let shown_on = |page: usize| shown.get(page).copied().unwrap_or(self.limit);
        let mut before: Vec<Value> = Vec::new();
        for (n, (request, answer)) in exchanges.iter().enumerate() {
            let page = n + 1;
            let fail = |what: String| Err(format!("request {page}: {what}"));
            if request.method != "POST" {
                return fail(format!("method {}, not POST", request.method));
            }
            if request.path() != self.path() {
                return fail(format!("path {:?}, not {:?}", request.path(), self.path()));
            }
            if let Some(query) = request.query() {
                return fail(format!("an unexpected query string {query:?}"));
            }
            let content_type = request.header("content-type").unwrap_or("");
            if !content_type.starts_with("application/json") {
                return fail(format!("content type {content_type:?}"));
            }
            let body = match request.json() {
                Ok(body) => body,
                Err(e) => return fail(e),
            };
            let expected = self.body_after(&before, n.checked_sub(1).map_or(self.limit, shown_on));
            if body != expected {
                return fail(format!("body\n  {body}\nnot\n  {expected}"));
            }
            // `Value` equality takes -0.0 for 0.0; the text does not.
            if let Some(previous) = before.last() {
                let sent = body["search_after"].to_string();
                let answered = last_shown(previous, shown_on(n - 1)).to_string();
                if sent != answered {
                    return fail(format!("search_after {sent}, not {answered} as answered"));
                }
            }
            match answer.body().map(serde_json::from_str::<Value>) {
                Some(Ok(value)) => before.push(value),
                // The walk cannot go on after an answer that is not one.
                _ => {
                    if page != exchanges.len() {
                        return fail("a request after an answer that was none".into());
                    }
                }
            }
        }
        Ok(())
    }
}

/// The sort values of the last of the first `shown` hits of an answer.
fn last_shown(answer: &Value, shown: usize) -> &Value {
    match shown.checked_sub(1) {
        Some(last) => &answer["hits"]["hits"][last]["sort"],
        None => &Value::Null,
    }
}

/// Runs the example with `args`, no proxy in the way of a loopback
/// address.
pub fn run(args: &[String]) -> Output {
    let mut command = Command::new(binary());
    command.args(args);
    for proxy in [
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    ] {
        command.env_remove(proxy);
    }
    command.output().expect("the example runs")
}

/// Runs `walk` to its end (`--all`) against `cluster`.
pub fn live(walk: &Walk, cluster: &Cluster) -> Output {
    let mut args = walk.args();
    args.extend(["--url".to_owned(), cluster.url(), "--all".to_owned()]);
    run(&args)
}

/// Runs `walk` on `answers` written to files and replayed.
pub fn replayed(walk: &Walk, answers: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut args = walk.args();
    args.push("--replay".into());
    for (n, answer) in answers.iter().enumerate() {
        let path = dir.path().join(format!("page-{}.json", n + 1));
        std::fs::write(&path, answer).expect("a recording written");
        args.push(path.to_string_lossy().into_owned());
    }
    run(&args)
}

/// The bodies of the answers of `exchanges` that were whole (HTTP
/// responses).
pub fn answered(exchanges: &[Exchange]) -> Vec<&str> {
    exchanges
        .iter()
        .filter_map(|(_, answer)| answer.body())
        .collect()
}

/// The example's output as text, for messages.
pub fn shown(output: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Answers of recordings, by file name.
pub fn recorded(names: &[&str]) -> Vec<Answer> {
    names
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(super::data(name)).expect("a recording");
            Answer::json(&text)
        })
        .collect()
}

//! An MCP server over stdio that searches one directory tree with candor.
//!
//! ```text
//! cargo run --release -p candor-mcp-server -- --root /path/to/project [--ceiling 1000]
//! cargo run --release -p candor-mcp-server -- --root DIR --index /path/to/index
//! ```
//!
//! With `--index`, every tool answers from the index at that folder
//! (built there when missing or unusable), with the same answers as the
//! tree's: a watcher reports what changes, queries trust
//! the rest without a stat, and a background thread brings the index up
//! to date within a second of a change. Where the tree cannot be watched,
//! each query checks the tree's stamps instead.
//!
//! Tools: `search_text`, `count_matches`, `files_with_matches` and
//! `excerpt`. Each answers through `candor_mcp`: the wire shape in
//! `structuredContent` (its JSON Schema is the tool's `outputSchema`), a
//! text block with the one-line disclosure, and one with exactly the JSON,
//! the whole within the client's `max_bytes`. A bad pattern, a bad cursor,
//! an unknown argument or a path outside the root is a tool error
//! (`isError: true`). In front of the SDK, `candor_mcp::StdioGuard`
//! answers every line the SDK would not: a line over 1 MiB gets an
//! invalid-request error with its id, a line that is not JSON a parse error
//! (-32700), and `arguments` that are not an object an invalid-params
//! error (-32602). The server keeps serving after each.
//!
//! Standard output is the protocol channel: the server logs nothing there.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use candor_mcp::{PageArgs, Policy, StdioGuard, bounded_tool, error_result, invalid_argument};
use candor_search::{CancelToken, Corpus, Error, Excerpt, LLM_GUIDE, Limits, Query, Tree};
use clap::Parser;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// Matched lines longer than this are cut around their first match, unless
/// the client asks otherwise: one minified file must not eat the budget.
const DEFAULT_MAX_COLUMNS: usize = 500;

/// Serve one directory tree to MCP clients over stdio.
#[derive(Debug, Parser)]
#[command(name = "mcp_server", version)]
struct Args {
    /// The folder to serve; no tool reads outside it.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,

    /// The largest `limit` a client may ask for; a larger one is clamped,
    /// and the result says so.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    ceiling: usize,

    /// The longest a tool call may search before it answers with what it
    /// has (and a cursor to resume).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    deadline_ms: u64,

    /// Follow symbolic links inside the root (never out of it). By
    /// default they are counted as skipped and not followed.
    #[arg(long)]
    follow_links: bool,

    /// Answer from the index in the folder INDEX (feature `index`), kept
    /// fresh with a watcher.
    #[arg(long, value_name = "INDEX")]
    index: Option<PathBuf>,
}

#[derive(Clone)]
struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    tree: Arc<dyn Corpus + Send + Sync>,
    policy: Policy,
    deadline: Duration,
    tools: Vec<Tool>,
}

/// The JSON Schema of one text-search match.
fn match_schema() -> Value {
    json!({
        "type": "object",
        "required": ["path", "line_number", "byte_offset", "line", "matches"],
        "properties": {
            "path": { "type": "string", "description": "Relative to the served root, with / separators." },
            "line_number": { "type": "integer", "minimum": 1 },
            "byte_offset": { "type": "integer", "minimum": 0, "description": "The line's offset in the file." },
            "line": { "type": "string", "description": "The line; when cut, the kept part around the first match." },
            "matches": {
                "type": "array",
                "description": "Byte ranges of the matches within `line`.",
                "items": {
                    "type": "object",
                    "required": ["start", "end"],
                    "properties": {
                        "start": { "type": "integer", "minimum": 0 },
                        "end": { "type": "integer", "minimum": 0 }
                    }
                }
            },
            "line_cut": line_cut_schema()
        }
    })
}

fn line_cut_schema() -> Value {
    json!({
        "type": "object",
        "description": "Present when the line was longer than max_columns and was cut.",
        "required": ["original_bytes", "kept_from"],
        "properties": {
            "original_bytes": { "type": "integer", "minimum": 0 },
            "kept_from": { "type": "integer", "minimum": 0, "description": "Where the kept part starts in the original line." }
        }
    })
}

fn file_count_schema() -> Value {
    json!({
        "type": "object",
        "required": ["path", "count"],
        "properties": {
            "path": { "type": "string", "description": "Relative to the served root." },
            "count": { "type": "integer", "minimum": 1, "description": "Matching lines in the file." }
        }
    })
}

fn path_schema() -> Value {
    json!({ "type": "string", "description": "A file path relative to the served root." })
}

fn line_schema() -> Value {
    json!({
        "type": "object",
        "required": ["line_number", "byte_offset", "line"],
        "properties": {
            "line_number": { "type": "integer", "minimum": 1 },
            "byte_offset": { "type": "integer", "minimum": 0 },
            "line": { "type": "string" },
            "line_cut": line_cut_schema()
        }
    })
}

fn properties(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap_or_default()
}

/// The arguments of the three search tools, besides paging.
fn query_properties() -> JsonObject {
    properties(json!({
        "query": { "type": "string", "description": "What to look for." },
        "mode": {
            "type": "string",
            "enum": ["literal", "regex"],
            "default": "literal",
            "description": "\"literal\" (default): `query` is plain text. \"regex\": `query` is a Rust regular expression."
        },
        "case_insensitive": { "type": "boolean", "default": false },
        "whole_word": { "type": "boolean", "default": false, "description": "Match whole words only." },
        "path": {
            "type": "string",
            "description": "A file or folder under the served root (relative, or absolute inside the root) to confine the search to. Default: the whole root."
        }
    }))
}

fn tools(policy: &Policy, deadline: Duration) -> Vec<Tool> {
    let defaults = format!(
        "A call works for at most {} ms; past that it returns what it found, marked incomplete, with a cursor. \
         max_bytes (default {}) bounds the whole tool result as sent: every content block and structuredContent. \
         {LLM_GUIDE}",
        deadline.as_millis(),
        PageArgs::default().budget(policy)
    );
    let mut search = query_properties();
    search.insert("max_columns".into(), json!({
        "type": "integer", "minimum": 1,
        "description": format!("Cut matched lines longer than this many bytes around their first match (the item then has line_cut). Default {DEFAULT_MAX_COLUMNS}.")
    }));
    let excerpt = properties(json!({
        "path": { "type": "string", "description": "A file under the served root." },
        "start_line": { "type": "integer", "minimum": 1, "default": 1, "description": "The first line, 1-based." },
        "end_line": { "type": "integer", "minimum": 1, "description": "The last line, inclusive. Default: the end of the file." },
        "max_columns": { "type": "integer", "minimum": 1, "description": "Cut lines longer than this many bytes. Default: no cut." }
    }));
    let input = |props, required: &[&str]| PageArgs::input_schema(props, required, policy);
    vec![
        bounded_tool(
            "search_text",
            format!(
                "Search the files under the served root for lines matching `query`. Each item is one matching line \
                 (path, line_number, byte_offset, line, byte ranges of the matches), in path order then byte offset. \
                 {defaults}"
            ),
            input(search, &["query"]),
            match_schema(),
        ),
        bounded_tool(
            "count_matches",
            format!(
                "Count the matching lines of `query` per file: one item {{path, count}} per file that has any, in \
                 path order. `total` counts files, not lines. {defaults}"
            ),
            input(query_properties(), &["query"]),
            file_count_schema(),
        ),
        bounded_tool(
            "files_with_matches",
            format!(
                "List the paths of the files with at least one line matching `query`, in path order. {defaults}"
            ),
            input(query_properties(), &["query"]),
            path_schema(),
        ),
        bounded_tool(
            "excerpt",
            format!(
                "Read lines start_line..=end_line of one file under the served root. `limit` counts lines. {defaults}"
            ),
            input(excerpt, &["path"]),
            line_schema(),
        ),
    ]
}

/// A tool's own arguments, read with errors that name the one at fault.
struct Arguments<'a>(&'a JsonObject);

impl Arguments<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    fn string(&self, name: &'static str) -> Result<Option<&str>, Error> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(invalid_argument(
                name,
                format!("must be a string, got {other}"),
            )),
        }
    }

    fn required(&self, name: &'static str) -> Result<&str, Error> {
        self.string(name)?
            .ok_or_else(|| invalid_argument(name, "is required"))
    }

    fn flag(&self, name: &'static str) -> Result<bool, Error> {
        match self.get(name) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(invalid_argument(
                name,
                format!("must be true or false, got {other}"),
            )),
        }
    }

    /// A non-negative integer, as JSON Schema has it: `10.0` is one.
    fn number(&self, name: &'static str) -> Result<Option<u64>, Error> {
        self.get(name)
            .map(|v| {
                let integral = v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0);
                v.as_u64()
                    // Below 2^53 a float's integer is exact.
                    .or_else(|| {
                        integral
                            .filter(|f| *f < 9_007_199_254_740_992.0)
                            .map(|f| f as u64)
                    })
                    .ok_or_else(|| {
                        invalid_argument(name, format!("must be a non-negative integer, got {v}"))
                    })
            })
            .transpose()
    }
}

impl Inner {
    fn query(&self, args: &Arguments<'_>, max_columns: Option<usize>) -> Result<Query, Error> {
        let text = args.required("query")?;
        let query = match args.string("mode")?.unwrap_or("literal") {
            "literal" => Query::literal(text),
            "regex" => Query::regex(text),
            other => {
                return Err(invalid_argument(
                    "mode",
                    format!("must be \"literal\" or \"regex\", got {other:?}"),
                ));
            }
        };
        let query = query
            .case_insensitive(args.flag("case_insensitive")?)
            .whole_word(args.flag("whole_word")?);
        let query = match args.string("path")? {
            Some(path) => query.paths([path]),
            None => query,
        };
        Ok(match max_columns {
            Some(n) => query.max_columns(n),
            None => query,
        })
    }

    fn call(&self, tool: &Tool, arguments: &JsonObject, cancel: CancelToken) -> CallToolResult {
        let args = Arguments(arguments);
        // Unknown arguments are refused here: the schema says
        // `additionalProperties: false`.
        let page = match PageArgs::from_arguments(arguments, &tool.input_schema) {
            Ok(page) => page,
            // The client's max_bytes is not known: the default applies.
            Err(e) => return error_result(&e, PageArgs::default().budget(&self.policy)),
        };
        let budget = page.budget(&self.policy);
        let limits: Limits = page
            .limits(&self.policy)
            .deadline(self.deadline)
            .cancel_token(cancel);
        let cursor = match page.cursor() {
            Ok(cursor) => cursor,
            Err(e) => return error_result(&e, budget),
        };
        let cursor = cursor.as_ref();
        let columns = || Ok::<_, Error>(args.number("max_columns")?.map(|n| n as usize));
        match tool.name.as_ref() {
            "search_text" => page.respond(
                columns()
                    .and_then(|c| self.query(&args, Some(c.unwrap_or(DEFAULT_MAX_COLUMNS))))
                    .and_then(|q| self.tree.search(&q, &limits, cursor)),
                "matches",
                &self.policy,
            ),
            "count_matches" => page.respond(
                self.query(&args, None)
                    .and_then(|q| self.tree.count_per_file(&q, &limits, cursor)),
                "files with matches",
                &self.policy,
            ),
            "files_with_matches" => page.respond(
                self.query(&args, None)
                    .and_then(|q| self.tree.files_with_matches(&q, &limits, cursor)),
                "files",
                &self.policy,
            ),
            _ => page.respond(
                (|| {
                    let first = args.number("start_line")?.unwrap_or(1);
                    // The excerpt reads up to the end of the file.
                    let last = args.number("end_line")?.unwrap_or(u64::MAX);
                    let mut excerpt = Excerpt::new(args.required("path")?, first..=last);
                    if let Some(n) = columns()? {
                        excerpt = excerpt.max_columns(n);
                    }
                    self.tree.excerpt(&excerpt, &limits, cursor)
                })(),
                "lines",
                &self.policy,
            ),
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("candor-mcp-server", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Text search over one directory tree: search_text, count_matches, files_with_matches, excerpt. \
                 {LLM_GUIDE}"
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(tool) = self.get_tool(&request.name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let inner = Arc::clone(&self.inner);
        // A search reads files and runs its own threads: keep it off the
        // async workers. If this future is dropped (the client cancelled
        // the request), the guard cancels the search.
        let cancel = CancelToken::new();
        let _cancel_on_drop = cancel.cancel_on_drop();
        let result = tokio::task::spawn_blocking(move || inner.call(&tool, &arguments, cancel))
            .await
            .unwrap_or_else(|e| error_result(&e, usize::MAX));
        Ok(result.into())
    }
}

/// Serves `server` on stdin/stdout behind candor's guard, which answers
/// every line the SDK would not.
async fn serve_stdio(server: Server) -> Result<(), String> {
    let (transport, output) = StdioGuard::new().stdio();
    let service = server
        .serve(transport)
        .await
        .map_err(|e| format!("cannot start: {e}"))?;
    let ended = service
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| e.to_string());
    output.finish().await;
    ended
}

/// The corpus the tools ask: the tree, or its index kept fresh by a
/// watcher and a thread that updates it once a second when it is behind.
fn corpus(
    tree: Tree,
    index: Option<&std::path::Path>,
) -> Result<Arc<dyn Corpus + Send + Sync>, String> {
    let Some(path) = index else {
        return Ok(Arc::new(tree));
    };
    {
        let index =
            Arc::new(candor_search::Index::open_or_build(tree, path).map_err(|e| e.to_string())?);
        if !index.watch().map_err(|e| e.to_string())? {
            eprintln!("mcp_server: note: the tree cannot be watched; each query checks it");
        }
        let updated = Arc::downgrade(&index);
        std::thread::spawn(move || {
            while let Some(index) = updated.upgrade() {
                if index.is_behind() {
                    if let Err(e) = index.update() {
                        eprintln!("mcp_server: note: the index was not updated: {e}");
                    }
                }
                drop(index);
                std::thread::sleep(Duration::from_secs(1));
            }
        });
        Ok(index)
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let tree = match Tree::new(&args.root) {
        Ok(tree) => tree.follow_links(args.follow_links),
        Err(e) => {
            eprintln!(
                "mcp_server: --root: {}",
                error_result(&e, usize::MAX).content[0]
                    .as_text()
                    .map_or("", |t| &t.text)
            );
            return std::process::ExitCode::from(2);
        }
    };
    let tree = match corpus(tree, args.index.as_deref()) {
        Ok(tree) => tree,
        Err(e) => {
            eprintln!("mcp_server: --index: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let deadline = Duration::from_millis(args.deadline_ms);
    let policy = Policy::new().ceiling(args.ceiling);
    let tools = tools(&policy, deadline);
    let server = Server {
        inner: Arc::new(Inner {
            tree,
            policy,
            deadline,
            tools,
        }),
    };
    match serve_stdio(server).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp_server: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

//! An MCP server over stdio that searches one directory tree with candor.
//!
//! ```text
//! cargo run --release --example mcp_server -- --root /path/to/project [--ceiling 1000]
//! ```
//!
//! Tools: `search_text`, `count_matches`, `files_with_matches` and
//! `excerpt`. Every result carries candor's wire shape in
//! `structuredContent` (its JSON Schema is the tool's `outputSchema`), and a
//! text content that starts with a one-line disclosure, for clients that
//! read only the text. A bad pattern, a bad cursor or a path outside the
//! root is a tool error (`isError: true`); the server keeps serving.
//!
//! Standard output is the protocol channel: the server logs nothing there.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use candor::{
    Bounded, Corpus, Cursor, ErrorKind, Excerpt, LLM_GUIDE, Limits, Query, Tree, envelope_schema,
};
use clap::Parser;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde::Serialize;
use serde_json::{Value, json};

/// The item limit when the client gives none.
const DEFAULT_LIMIT: usize = 100;
/// The response budget, in bytes of the structured JSON, when the client
/// gives none.
const DEFAULT_MAX_BYTES: usize = 64 * 1024;
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
}

const SEARCH_TEXT: &str = "search_text";
const COUNT_MATCHES: &str = "count_matches";
const FILES_WITH_MATCHES: &str = "files_with_matches";
const EXCERPT: &str = "excerpt";

#[derive(Clone)]
struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    tree: Tree,
    ceiling: usize,
    deadline: Duration,
    tools: Vec<Tool>,
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("a schema literal is an object"),
    }
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

/// The input properties the three search tools share.
fn query_properties(ceiling: usize) -> JsonObject {
    object(json!({
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
        },
        "limit": {
            "type": "integer",
            "minimum": 0,
            "description": format!("The most items to return. Default {DEFAULT_LIMIT}; at most {ceiling} (a larger value is clamped, and the result says so).")
        },
        "max_bytes": {
            "type": "integer",
            "minimum": 1,
            "description": format!("The most bytes of the JSON result. Default {DEFAULT_MAX_BYTES}.")
        },
        "cursor": {
            "type": "string",
            "description": "A next_cursor from an earlier result of this tool, to get the next page. Send the same query and options with it."
        },
        "count_total": {
            "type": "boolean",
            "default": false,
            "description": "Keep counting past the limit, so that total is exact (relation \"eq\")."
        },
        "strict": {
            "type": "boolean",
            "default": false,
            "description": "Return an error instead of an incomplete result."
        }
    }))
}

fn input_schema(mut properties: JsonObject, required: &[&str]) -> Arc<JsonObject> {
    let mut schema = object(json!({
        "type": "object",
        "required": required,
        "additionalProperties": false
    }));
    schema.insert(
        "properties".into(),
        Value::Object(std::mem::take(&mut properties)),
    );
    Arc::new(schema)
}

fn tool(name: &'static str, description: String, input: Arc<JsonObject>, item: Value) -> Tool {
    Tool::new(name, description, input)
        .with_raw_output_schema(Arc::new(object(envelope_schema(item))))
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
}

fn tools(ceiling: usize, deadline: Duration) -> Vec<Tool> {
    let defaults = format!(
        "Defaults: limit {DEFAULT_LIMIT} (at most {ceiling}), max_bytes {DEFAULT_MAX_BYTES}. A call works for at \
         most {} ms; past that it returns what it found, marked incomplete, with a cursor.",
        deadline.as_millis()
    );
    let mut search_props = query_properties(ceiling);
    search_props.insert(
        "max_columns".into(),
        json!({
            "type": "integer",
            "minimum": 1,
            "description": format!("Cut matched lines longer than this many bytes around their first match (the item then has line_cut). Default {DEFAULT_MAX_COLUMNS}.")
        }),
    );
    let mut excerpt_props = query_properties(ceiling);
    excerpt_props.retain(|k, _| matches!(k.as_str(), "limit" | "max_bytes" | "cursor" | "strict"));
    excerpt_props.insert(
        "path".into(),
        json!({ "type": "string", "description": "A file under the served root." }),
    );
    excerpt_props.insert(
        "start_line".into(),
        json!({ "type": "integer", "minimum": 1, "default": 1, "description": "The first line, 1-based." }),
    );
    excerpt_props.insert(
        "end_line".into(),
        json!({ "type": "integer", "minimum": 1, "description": "The last line, inclusive. Default: the end of the file." }),
    );
    excerpt_props.insert(
        "max_columns".into(),
        json!({ "type": "integer", "minimum": 1, "description": "Cut lines longer than this many bytes. Default: no cut." }),
    );
    vec![
        tool(
            SEARCH_TEXT,
            format!(
                "Search the files under the served root for lines matching `query`. Each item is one matching line \
                 (path, line_number, byte_offset, line, byte ranges of the matches), in path order then byte offset. \
                 {defaults} {LLM_GUIDE}"
            ),
            input_schema(search_props, &["query"]),
            match_schema(),
        ),
        tool(
            COUNT_MATCHES,
            format!(
                "Count the matching lines of `query` per file: one item {{path, count}} per file that has any, in \
                 path order. `total` counts files, not lines. {defaults} {LLM_GUIDE}"
            ),
            input_schema(query_properties(ceiling), &["query"]),
            file_count_schema(),
        ),
        tool(
            FILES_WITH_MATCHES,
            format!(
                "List the paths of the files with at least one line matching `query`, in path order. {defaults} \
                 {LLM_GUIDE}"
            ),
            input_schema(query_properties(ceiling), &["query"]),
            path_schema(),
        ),
        tool(
            EXCERPT,
            format!(
                "Read lines start_line..=end_line of one file under the served root. `limit` counts lines. \
                 {defaults} {LLM_GUIDE}"
            ),
            input_schema(excerpt_props, &["path"]),
            line_schema(),
        ),
    ]
}

/// A tool's arguments, read with messages that name the argument at
/// fault.
struct Arguments<'a>(&'a JsonObject);

impl Arguments<'_> {
    fn check_names(&self, tool: &Tool) -> Result<(), String> {
        let known = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object);
        for name in self.0.keys() {
            if !known.is_some_and(|k| k.contains_key(name)) {
                let mut names: Vec<&str> = known
                    .map(|k| k.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                names.sort_unstable();
                return Err(format!(
                    "unknown argument `{name}` for {}; the arguments are: {}",
                    tool.name,
                    names.join(", ")
                ));
            }
        }
        Ok(())
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    fn string(&self, name: &str) -> Result<Option<&str>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(format!("`{name}` must be a string, got {other}")),
        }
    }

    fn required_string(&self, name: &str) -> Result<&str, String> {
        self.string(name)?
            .ok_or_else(|| format!("the argument `{name}` is required"))
    }

    fn boolean(&self, name: &str) -> Result<bool, String> {
        match self.get(name) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!("`{name}` must be true or false, got {other}")),
        }
    }

    fn number(&self, name: &str) -> Result<Option<u64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| format!("`{name}` must be a non-negative integer, got {v}")),
        }
    }

    fn size(&self, name: &str) -> Result<Option<usize>, String> {
        self.number(name)?
            .map(|n| usize::try_from(n).map_err(|_| format!("`{name}` is too large: {n}")))
            .transpose()
    }
}

/// Why a call failed, as the text of a tool error.
enum Failure {
    Arguments(String),
    Candor(candor::Error),
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Arguments(message)
    }
}

impl From<candor::Error> for Failure {
    fn from(e: candor::Error) -> Failure {
        Failure::Candor(e)
    }
}

fn tool_error(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The error and its causes, joined.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The wire shape, in `structuredContent` and, after the one-line
/// disclosure, in the text.
fn success<T: Serialize>(result: &Bounded<T>, noun: &str) -> CallToolResult {
    // `to_json` is what max_bytes bounds.
    let json = match result.to_json() {
        Ok(json) => json,
        Err(e) => return tool_error(chain(&e)),
    };
    let structured: Value = match serde_json::from_str(&json) {
        Ok(value) => value,
        Err(e) => return tool_error(format!("cannot re-read the result as JSON: {e}")),
    };
    let mut answer = CallToolResult::success(vec![ContentBlock::text(format!(
        "{}\n{json}",
        result.summary(noun)
    ))]);
    answer.structured_content = Some(structured);
    answer
}

fn respond<T: Serialize + 'static>(
    result: Result<Bounded<T>, Failure>,
    noun: &str,
) -> CallToolResult {
    match result {
        Ok(bounded) => success(&bounded, noun),
        Err(Failure::Arguments(message)) => tool_error(message),
        Err(Failure::Candor(e)) if matches!(e.kind(), ErrorKind::Incomplete { .. }) => {
            let message = chain(&e);
            match e.into_partial::<T>() {
                Ok(partial) => {
                    let json = partial.to_json().unwrap_or_else(|e| {
                        format!("(the partial result could not be encoded: {e})")
                    });
                    tool_error(format!(
                        "{message}. Strict mode was asked for, so this is an error: the result is incomplete \
                         and must not be treated as all of the answer. What was found:\n{}\n{json}",
                        partial.summary(noun)
                    ))
                }
                Err(e) => tool_error(chain(&e)),
            }
        }
        Err(Failure::Candor(e)) => tool_error(chain(&e)),
    }
}

impl Inner {
    fn limits(&self, args: &Arguments<'_>) -> Result<Limits, String> {
        // A default above a low ceiling would disclose a clamp the client
        // never asked for.
        let limit = args
            .size("limit")?
            .unwrap_or(DEFAULT_LIMIT.min(self.ceiling));
        Ok(Limits::new()
            .ceiling(self.ceiling)
            .limit(limit)
            .max_bytes(args.size("max_bytes")?.unwrap_or(DEFAULT_MAX_BYTES))
            .deadline(self.deadline)
            .count_total(args.boolean("count_total")?)
            .strict(args.boolean("strict")?))
    }

    fn query(&self, args: &Arguments<'_>, max_columns: Option<usize>) -> Result<Query, String> {
        let text = args.required_string("query")?;
        let query = match args.string("mode")?.unwrap_or("literal") {
            "literal" => Query::literal(text),
            "regex" => Query::regex(text),
            other => {
                return Err(format!(
                    "`mode` must be \"literal\" or \"regex\", got {other:?}"
                ));
            }
        };
        let query = query
            .case_insensitive(args.boolean("case_insensitive")?)
            .whole_word(args.boolean("whole_word")?);
        let query = match args.string("path")? {
            Some(path) => query.paths([path]),
            None => query,
        };
        Ok(match max_columns {
            Some(n) => query.max_columns(n),
            None => query,
        })
    }

    fn cursor(args: &Arguments<'_>) -> Result<Option<Cursor>, Failure> {
        Ok(args.string("cursor")?.map(Cursor::parse).transpose()?)
    }

    fn call(&self, name: &str, arguments: &JsonObject) -> CallToolResult {
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            return tool_error(format!("unknown tool {name:?}"));
        };
        let args = Arguments(arguments);
        if let Err(message) = args.check_names(tool) {
            return tool_error(message);
        }
        match name {
            SEARCH_TEXT => respond(
                (|| {
                    let columns = args.size("max_columns")?.unwrap_or(DEFAULT_MAX_COLUMNS);
                    let query = self.query(&args, Some(columns))?;
                    let limits = self.limits(&args)?;
                    let cursor = Self::cursor(&args)?;
                    Ok(self.tree.search(&query, &limits, cursor.as_ref())?)
                })(),
                "matches",
            ),
            COUNT_MATCHES => respond(
                (|| {
                    let query = self.query(&args, None)?;
                    let limits = self.limits(&args)?;
                    let cursor = Self::cursor(&args)?;
                    Ok(self.tree.count(&query, &limits, cursor.as_ref())?)
                })(),
                "files with matches",
            ),
            FILES_WITH_MATCHES => respond(
                (|| {
                    let query = self.query(&args, None)?;
                    let limits = self.limits(&args)?;
                    let cursor = Self::cursor(&args)?;
                    Ok(self
                        .tree
                        .files_with_matches(&query, &limits, cursor.as_ref())?)
                })(),
                "files",
            ),
            EXCERPT => respond(
                (|| {
                    let path = args.required_string("path")?;
                    let first = args.number("start_line")?.unwrap_or(1);
                    // The excerpt reads up to the end of the file.
                    let last = args.number("end_line")?.unwrap_or(u64::MAX);
                    let mut excerpt = Excerpt::new(path, first..=last);
                    if let Some(n) = args.size("max_columns")? {
                        excerpt = excerpt.max_columns(n);
                    }
                    let limits = self.limits(&args)?;
                    let cursor = Self::cursor(&args)?;
                    Ok(self.tree.excerpt(&excerpt, &limits, cursor.as_ref())?)
                })(),
                "lines",
            ),
            other => tool_error(format!("unknown tool {other:?}")),
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "candor-mcp-server",
                env!("CARGO_PKG_VERSION"),
            ))
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
        let name = request.name.to_string();
        if self.get_tool(&name).is_none() {
            return Err(McpError::invalid_params(
                format!("unknown tool {name:?}"),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let inner = Arc::clone(&self.inner);
        // A search reads files and runs its own threads: keep it off the
        // async workers.
        let result = tokio::task::spawn_blocking(move || inner.call(&name, &arguments))
            .await
            .unwrap_or_else(|e| tool_error(format!("the tool call failed: {e}")));
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let tree = match Tree::new(&args.root) {
        Ok(tree) => tree.follow_links(args.follow_links),
        Err(e) => {
            eprintln!("mcp_server: --root: {}", chain(&e));
            return std::process::ExitCode::from(2);
        }
    };
    let deadline = Duration::from_millis(args.deadline_ms);
    let server = Server {
        inner: Arc::new(Inner {
            tree,
            ceiling: args.ceiling,
            deadline,
            tools: tools(args.ceiling, deadline),
        }),
    };
    let service = match server.serve(rmcp::transport::stdio()).await {
        Ok(service) => service,
        Err(e) => {
            eprintln!("mcp_server: cannot start: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    match service.waiting().await {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp_server: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

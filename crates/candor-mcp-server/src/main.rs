//! `candor-mcp-server`: an MCP server over stdio whose search tools never
//! pass a capped answer off as a whole one.
//!
//! ```text
//! cargo install --path crates/candor-mcp-server
//! candor-mcp-server --root /path/to/project [--root /another/folder] [--ceiling 1000]
//! ```
//!
//! Tools: `search_text` (matching lines), `count_matches` (matching lines
//! per file), `files_with_matches` and `excerpt` (lines of one file).
//! Each takes `directory`, a folder below one of the roots the server was
//! started with (`--root`, one or more: no call reads outside them), and
//! answers through `candor_mcp`: the wire shape in `structuredContent`
//! (its JSON Schema is the tool's `outputSchema`), a text block with the
//! one-line disclosure, and one with exactly the JSON, the whole within
//! the client's `max_bytes`. A misspelled argument, a bad pattern, a bad
//! cursor or a folder outside the roots is an error that says so.
//!
//! Each folder a call names gets an index of its own, kept below
//! `--index-dir` (never inside a root), built in the background on first
//! use while a scan answers, watched where the watch budget allows and
//! checked against the tree by stamps where not: every answer is about the
//! tree as it is when asked. Searches run on `--workers` threads at most;
//! a call waits its turn within its deadline (`--deadline-ms`), and one
//! that waited it all is told the server is busy. In front of the SDK,
//! `candor_mcp::StdioGuard` answers every line the SDK would not.
//!
//! Standard output is the protocol channel: the server logs nothing there.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use candor_mcp::{
    PageArgs, Parameters, Policy, StdioGuard, Workers, bounded_tool, error_result, respond,
};
use candor_search::{
    Bounded, CancelToken, Corpus, Error, ErrorKind, Excerpt, FileCount, Indexes, LLM_GUIDE, Limits,
    Line, Match, Query, SkipReason, Tree,
};
use clap::Parser;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

/// Matched lines longer than this are cut around their first match, unless
/// the client asks otherwise: one minified file must not eat the budget.
const DEFAULT_MAX_COLUMNS: usize = 500;

/// An excerpt's lines longer than this are cut, unless the client asks
/// otherwise: a line too long to send would make the page say so for ever.
const DEFAULT_EXCERPT_COLUMNS: usize = 2000;

/// An MCP server over stdio whose search tools never pass a capped answer
/// off as a whole one: text search, counts, file lists and excerpts of the
/// folders below its roots, paged, within the client's byte budget.
#[derive(Debug, Parser)]
#[command(name = "candor-mcp-server", version, about, long_about = None)]
struct Args {
    /// A folder the tools may search, and everything below it (give it
    /// again for more). A call's `directory` is a folder below one of
    /// them, relative to the first by default; nothing outside is read.
    #[arg(long, value_name = "DIR", required = true)]
    root: Vec<PathBuf>,

    /// Where the indexes of the folders searched are kept, one folder
    /// each (never inside a root: a root that holds it is scanned).
    /// Default: $XDG_CACHE_HOME/candor-mcp-server, or
    /// ~/.cache/candor-mcp-server.
    #[arg(long, value_name = "DIR")]
    index_dir: Option<PathBuf>,

    /// Keep no index: every call scans the tree.
    #[arg(long)]
    no_index: bool,

    /// The most indexes open at once; the least recently used is let go.
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_indexes: usize,

    /// The most folders the open indexes watch in all; an index that would
    /// watch more is checked against the tree by stamps instead.
    #[arg(long, value_name = "N", default_value_t = 65_536)]
    max_watches: u64,

    /// The most MiB the open indexes' records hold in memory in all.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    index_memory_mib: u64,

    /// The largest `limit` a client may ask for; a larger one is clamped,
    /// and the result says so.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    ceiling: usize,

    /// The longest a tool call may take, waiting its turn included, before
    /// it answers with what it has (and a cursor to resume).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    deadline_ms: u64,

    /// The longest deadline a call may ask for with `deadline_ms` (a
    /// count cut by the deadline says to allow more time).
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    max_deadline_ms: u64,

    /// The most searches at once (default: the machine's cores); other
    /// calls wait their turn within their deadline.
    #[arg(long, value_name = "N")]
    workers: Option<usize>,

    /// The most calls that wait for a search thread at once (default: 32
    /// for each); one more is told at once that the server is busy.
    #[arg(long, value_name = "N")]
    max_waiting: Option<usize>,

    /// Follow symbolic links inside the roots (never out of them) unless a
    /// call says otherwise. By default they are counted as skipped.
    #[arg(long)]
    follow_links: bool,
}

/// A search's `mode`.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    /// `query` is plain text.
    #[default]
    Literal,
    /// `query` is a Rust regular expression.
    Regex,
}

/// Defines a search tool's arguments: what to look for, where and how
/// the folder is walked, the paging arguments, and the tool's own
/// `$extra` fields. Every argument is a field of its own, never inside a
/// flattened struct but `PageArgs` (whose errors name their argument), so
/// that a wrong value's error names the argument it is about.
macro_rules! search_arguments {
    ($(#[$meta:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize, JsonSchema)]
        struct $name {
            /// What to look for.
            query: String,
            /// "literal" (default): `query` is plain text. "regex": a Rust
            /// regular expression.
            #[serde(default)]
            mode: Mode,
            /// Match regardless of case.
            #[serde(default)]
            case_insensitive: bool,
            /// Match whole words only.
            #[serde(default)]
            whole_word: bool,
            /// A file or folder below `directory` to confine the search to.
            #[serde(default)]
            path: Option<String>,
            /// The folder to search: below one of the server's roots,
            /// relative to the first root, or absolute. Default: the root an
            /// absolute `path` is below, else the first root. Item paths
            /// are relative to this folder: to read one with `excerpt`,
            /// pass the same `directory`.
            #[serde(default)]
            directory: Option<String>,
            /// Search hidden files and folders too (ripgrep's --hidden).
            #[serde(default)]
            hidden: bool,
            /// Search files that .gitignore, .ignore and git's excludes
            /// leave out too (ripgrep's --no-ignore).
            #[serde(default)]
            no_ignore: bool,
            /// Follow symbolic links, within the roots (ripgrep's -L).
            /// Default: the server's setting.
            #[serde(default)]
            follow_links: Option<bool>,
            /// Descend at most this many folders below `path` (or the
            /// folder), as ripgrep's --max-depth: 0 searches only a file
            /// named by `path`, 1 the files directly in the folder. Each
            /// folder not entered is counted in `skipped` as max_depth.
            /// Default: no limit.
            #[serde(default, deserialize_with = "whole")]
            #[schemars(with = "Option<u64>", range(min = 0))]
            max_depth: Option<u64>,
            /// How long this call may take, in milliseconds, waiting its
            /// turn included; past it, it answers with what it found, and
            /// says so. Default: the server's; at most the server's most.
            #[serde(default, deserialize_with = "whole")]
            #[schemars(with = "Option<u64>", range(min = 1))]
            deadline_ms: Option<u64>,
            $($extra)*
            #[serde(flatten)]
            page: PageArgs,
        }

        impl $name {
            /// The folder this call searches, and how its walk goes.
            fn folder(&self, server: &Inner) -> Folder {
                Folder {
                    directory: server.directory(self.directory.as_deref(), self.path.as_deref()),
                    hidden: self.hidden,
                    no_ignore: self.no_ignore,
                    follow_links: self.follow_links,
                    max_depth: self.max_depth,
                }
            }

            /// The search's query.
            fn query(&self, server: &Inner) -> Query {
                let query = match self.mode {
                    Mode::Literal => Query::literal(&self.query),
                    Mode::Regex => Query::regex(&self.query),
                };
                let query = query
                    .case_insensitive(self.case_insensitive)
                    .whole_word(self.whole_word);
                match &self.path {
                    Some(path) => query.paths([server.path(path)]),
                    None => query,
                }
            }
        }
    };
}

search_arguments! {
    /// The arguments of `count_matches` and `files_with_matches`.
    Search {}
}

search_arguments! {
    /// The arguments of `search_text`: a search, and how long a line may
    /// be.
    SearchText {
        /// Cut matched lines longer than this many bytes around their
        /// first match (the item then has line_cut). Default 500.
        #[serde(default, deserialize_with = "whole")]
        #[schemars(with = "Option<u64>", range(min = 1))]
        max_columns: Option<u64>,
    }
}

/// The folder a call searches (below a root, `""` the first root), and
/// how its walk goes.
#[derive(Debug, Clone, Default)]
struct Folder {
    directory: String,
    hidden: bool,
    no_ignore: bool,
    follow_links: Option<bool>,
    max_depth: Option<u64>,
}

/// The arguments of `excerpt`.
#[derive(Debug, Deserialize, JsonSchema)]
struct ExcerptArgs {
    /// A file below `directory`.
    path: String,
    /// The first line, 1-based. Default 1.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u64>", range(min = 1))]
    start_line: Option<u64>,
    /// The last line, inclusive. Default: the end of the file.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u64>", range(min = 1))]
    end_line: Option<u64>,
    /// Cut lines longer than this many bytes (the item then has
    /// line_cut). Default 2000.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u64>", range(min = 1))]
    max_columns: Option<u64>,
    /// The folder the file is in, or above it: below one of the server's
    /// roots, relative to the first root, or absolute. Default: the root
    /// an absolute `path` is below, else the first root.
    #[serde(default)]
    directory: Option<String>,
    /// Follow symbolic links, within the roots. Default: the server's
    /// setting.
    #[serde(default)]
    follow_links: Option<bool>,
    /// How long this call may take, in milliseconds, waiting its turn
    /// included. Default: the server's; at most the server's most.
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "Option<u64>", range(min = 1))]
    deadline_ms: Option<u64>,
    #[serde(flatten)]
    page: PageArgs,
}

/// A whole number as JSON Schema has it (`10.0` is one), or null.
fn whole<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = Option::<serde_json::Number>::deserialize(deserializer)?;
    value
        .map(|n| {
            n.as_u64()
                .or_else(|| {
                    // Below 2^53 a float's integer is exact.
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && (0.0..9_007_199_254_740_992.0).contains(f))
                        .map(|f| f as u64)
                })
                .ok_or_else(|| {
                    serde::de::Error::custom(format!("must be a non-negative integer, got {n}"))
                })
        })
        .transpose()
}

#[derive(Clone)]
struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    /// The roots, and the folders' indexes.
    indexes: Indexes,
    /// Whether calls are answered from indexes.
    indexed: bool,
    follow_links: bool,
    policy: Policy,
    deadline: Duration,
    max_deadline: Duration,
    /// The roots as given on the command line, beside the folders they
    /// resolve to (a call may spell a path through either).
    given_roots: Vec<(PathBuf, PathBuf)>,
    workers: Workers,
    tools: Vec<Tool>,
}

fn tools(policy: &Policy, deadline: Duration, max_deadline: Duration, workers: usize) -> Vec<Tool> {
    let defaults = format!(
        "A call takes at most {} ms, waiting its turn included (at most {workers} searches run at once; \
         deadline_ms asks for up to {} ms, when a count or a page was cut by the deadline); past that it \
         returns what it found, marked incomplete, with a cursor. max_bytes (default {}) \
         bounds the whole tool result as sent: every content block and structuredContent; the JSON gets \
         (max_bytes - 672) / 3 of it, and every budget figure a result states is in max_bytes units. \
         An argument sent as null is read as absent (its default). {LLM_GUIDE}",
        deadline.as_millis(),
        max_deadline.as_millis(),
        PageArgs::default().budget(policy)
    );
    vec![
        bounded_tool::<Match>(
            "search_text",
            format!(
                "Search the files of a folder for lines matching `query`. Each item is one matching line \
                 (path, line_number, byte_offset, line, byte ranges of the matches), in path order then byte \
                 offset; `total` counts matching lines. With limit 0 and count_total, the answer lists no \
                 line and `total` is the folder's number of matching lines (exact when its relation is \
                 \"eq\"); it is never `complete` while any line matches, as its lines are not listed, so \
                 strict refuses it. {defaults}"
            ),
            Parameters::<SearchText>::input_schema(),
        ),
        bounded_tool::<FileCount>(
            "count_matches",
            format!(
                "Count the matching lines of `query` per file: one item {{path, count}} per file that has \
                 any, in path order. `total` counts files, not lines (for the lines of the whole folder, \
                 ask search_text with limit 0 and count_total). {defaults}"
            ),
            Parameters::<Search>::input_schema(),
        ),
        bounded_tool::<String>(
            "files_with_matches",
            format!(
                "List the paths of the files with at least one line matching `query`, in path order. \
                 {defaults}"
            ),
            Parameters::<Search>::input_schema(),
        ),
        bounded_tool::<Line>(
            "excerpt",
            format!(
                "Read lines start_line..=end_line of one file of a folder. `limit` counts lines, and the \
                 disclosure line counts the lines of the excerpt returned (excerpt lines 1-5 of at least \
                 6), not the file's line numbers: each item has its line_number. {defaults}"
            ),
            Parameters::<ExcerptArgs>::input_schema(),
        ),
    ]
}

impl Inner {
    /// The corpus a call asks: the folder's index (a scan while it is
    /// built), or the folder's tree.
    fn corpus(&self, folder: Folder) -> Result<Arc<dyn Corpus + Send + Sync>, Error> {
        let tree = self
            .indexes
            .folder(&folder.directory)?
            .hidden(folder.hidden)
            .gitignore(!folder.no_ignore)
            .follow_links(folder.follow_links.unwrap_or(self.follow_links));
        let tree: Tree = match folder.max_depth {
            Some(depth) => tree.max_depth(usize::try_from(depth).unwrap_or(usize::MAX)),
            None => tree,
        };
        if !self.indexed {
            return Ok(Arc::new(tree));
        }
        Ok(self.indexes.serve(&tree)?.to_corpus())
    }

    /// The limits of a call: the page's, within the call's deadline
    /// counted from when it `arrived` (its wait for a turn included, and
    /// stated as the client gave it), cancelled when the client cancels
    /// it.
    fn limits(&self, page: &PageArgs, turn: Turn, cancel: CancelToken) -> Limits {
        page.limits(&self.policy)
            .deadline(turn.deadline)
            .deadline_from(turn.arrived)
            .cancel_token(cancel)
    }

    /// A call's arguments, read (on the async side, before the call
    /// waits its turn: its deadline is one of them).
    ///
    /// An argument sent as `null` is read as absent (its default), for
    /// every argument alike: some clients send `null` for each optional
    /// argument they leave out.
    fn parse(&self, tool: &str, mut arguments: JsonObject) -> Result<Call, Error> {
        arguments.retain(|_, value| !value.is_null());
        Ok(match tool {
            "search_text" => {
                Call::SearchText(Parameters::<SearchText>::from_arguments(arguments)?.0)
            }
            "count_matches" => Call::Count(Parameters::<Search>::from_arguments(arguments)?.0),
            "files_with_matches" => Call::Files(Parameters::<Search>::from_arguments(arguments)?.0),
            _ => Call::Excerpt(Parameters::<ExcerptArgs>::from_arguments(arguments)?.0),
        })
    }

    /// How long a call may take: what it asked for, at most the server's
    /// most; else the server's.
    fn deadline(&self, call: &Call) -> Duration {
        let asked = match call {
            Call::SearchText(a) => a.search_deadline(),
            Call::Count(a) | Call::Files(a) => a.deadline_ms,
            Call::Excerpt(a) => a.deadline_ms,
        };
        asked.map_or(self.deadline, |ms| {
            Duration::from_millis(ms).min(self.max_deadline)
        })
    }

    /// The folder a call names, spelled from a root as the command line
    /// gave it (a root may be a link): or, when it names none, the root an
    /// absolute `path` is below.
    fn directory(&self, directory: Option<&str>, path: Option<&str>) -> String {
        let spelled = |p: &str| -> String {
            for (given, resolved) in &self.given_roots {
                if let Ok(rest) = std::path::Path::new(p).strip_prefix(given) {
                    return resolved.join(rest).to_string_lossy().into_owned();
                }
            }
            p.to_owned()
        };
        match (directory, path) {
            (Some(directory), _) => spelled(directory),
            (None, Some(path)) if std::path::Path::new(path).is_absolute() => {
                let path = spelled(path);
                self.given_roots
                    .iter()
                    .map(|(_, resolved)| resolved)
                    .filter(|root| std::path::Path::new(&path).starts_with(root))
                    .max_by_key(|root| root.as_os_str().len())
                    .map_or_else(String::new, |root| root.to_string_lossy().into_owned())
            }
            (None, _) => String::new(),
        }
    }

    /// An absolute `path` spelled from a root as the command line gave it,
    /// as the folder's tree reads it.
    fn path(&self, path: &str) -> String {
        for (given, resolved) in &self.given_roots {
            if let Ok(rest) = std::path::Path::new(path).strip_prefix(given) {
                return resolved.join(rest).to_string_lossy().into_owned();
            }
        }
        path.to_owned()
    }

    fn run(&self, call: Call, cancel: CancelToken, turn: Turn) -> CallToolResult {
        match call {
            Call::SearchText(search) => {
                let columns = search.max_columns.map_or(DEFAULT_MAX_COLUMNS, |n| {
                    usize::try_from(n).unwrap_or(usize::MAX)
                });
                let limits = self.limits(&search.page, turn, cancel);
                let result = self.corpus(search.folder(self)).and_then(|corpus| {
                    let cursor = search.page.cursor()?;
                    corpus.search(
                        &search.query(self).max_columns(columns),
                        &limits,
                        cursor.as_ref(),
                    )
                });
                let result = named_path_found(result, search.path.as_deref());
                respond(result, "matching lines", &search.page, &self.policy)
            }
            Call::Count(search) => {
                let limits = self.limits(&search.page, turn, cancel);
                let result = self.corpus(search.folder(self)).and_then(|corpus| {
                    let cursor = search.page.cursor()?;
                    corpus.count_per_file(&search.query(self), &limits, cursor.as_ref())
                });
                let result = named_path_found(result, search.path.as_deref());
                respond(
                    result,
                    "files with matching lines",
                    &search.page,
                    &self.policy,
                )
            }
            Call::Files(search) => {
                let limits = self.limits(&search.page, turn, cancel);
                let result = self.corpus(search.folder(self)).and_then(|corpus| {
                    let cursor = search.page.cursor()?;
                    corpus.files_with_matches(&search.query(self), &limits, cursor.as_ref())
                });
                let result = named_path_found(result, search.path.as_deref());
                respond(result, "files", &search.page, &self.policy)
            }
            Call::Excerpt(args) => {
                let limits = self.limits(&args.page, turn, cancel);
                let directory = self.directory(args.directory.as_deref(), Some(&args.path));
                let folder = Folder {
                    directory,
                    follow_links: args.follow_links,
                    ..Folder::default()
                };
                let result = self.corpus(folder).and_then(|corpus| {
                    let first = args.start_line.unwrap_or(1);
                    // The excerpt reads up to the end of the file.
                    let last = args.end_line.unwrap_or(u64::MAX);
                    let columns = args.max_columns.map_or(DEFAULT_EXCERPT_COLUMNS, |n| {
                        usize::try_from(n).unwrap_or(usize::MAX)
                    });
                    let excerpt =
                        Excerpt::new(self.path(&args.path), first..=last).max_columns(columns);
                    corpus.excerpt(&excerpt, &limits, args.page.cursor()?.as_ref())
                });
                // Counted as the excerpt's, not the file's: "excerpt
                // lines 1-3" of an excerpt from line 100.
                respond(result, "excerpt lines", &args.page, &self.policy)
            }
        }
    }
}

/// A search whose `path` names nothing in the folder is a tool error
/// that names the path, as `excerpt`'s is, rather than an empty answer
/// with one skip: a misspelled path is the caller's to fix. (The corpus
/// counts such a path as skipped, `vanished` with the detail "not
/// found", where it comes in path order; the search, confined to it,
/// found nothing.)
fn named_path_found<T>(
    result: Result<Bounded<T>, Error>,
    path: Option<&str>,
) -> Result<Bounded<T>, Error> {
    if let (Ok(found), Some(path)) = (&result, path) {
        let missing = found
            .skipped()
            .sample()
            .iter()
            .any(|s| *s.reason() == SkipReason::Vanished && s.detail() == Some("not found"));
        if missing && found.is_empty() {
            return Err(ErrorKind::NotFound {
                path: path.to_owned(),
            }
            .into());
        }
    }
    result
}

/// A call's deadline, and when it arrived: its time counts from then,
/// its wait for a turn included.
#[derive(Clone, Copy)]
struct Turn {
    deadline: Duration,
    arrived: std::time::Instant,
}

/// A call, its arguments read.
enum Call {
    SearchText(SearchText),
    Count(Search),
    Files(Search),
    Excerpt(ExcerptArgs),
}

impl SearchText {
    /// The deadline this call asked for.
    fn search_deadline(&self) -> Option<u64> {
        self.deadline_ms
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
                "Text search over the folders below this server's roots: search_text, count_matches, \
                 files_with_matches, excerpt. {LLM_GUIDE}"
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
        let default_budget = PageArgs::default().budget(&inner.policy);
        // Read before the call waits its turn: a bad argument is answered
        // at once, and the call's deadline is one of its arguments.
        let call = match inner.parse(&tool.name, arguments) {
            Ok(call) => call,
            // The client's max_bytes is not known: the default applies.
            Err(e) => return Ok(error_result(&e, default_budget).into()),
        };
        let deadline = inner.deadline(&call);
        // If this future is dropped (the client cancelled the request), the
        // guard cancels the search, and a call still waiting its turn
        // leaves the queue.
        let cancel = CancelToken::new();
        let _cancel_on_drop = cancel.cancel_on_drop();
        let workers = inner.workers.clone();
        let turn = Turn {
            deadline,
            arrived: std::time::Instant::now(),
        };
        let result = workers
            .run(deadline, move |_waited| inner.run(call, cancel, turn))
            .await
            .unwrap_or_else(|e| error_result(&e, default_budget));
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

/// Where indexes are kept by default: the user's cache folder.
fn default_index_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("candor-mcp-server")
}

/// The server from its command line, or what is wrong with it.
fn server(args: Args) -> Result<Server, String> {
    let index_dir = args.index_dir.unwrap_or_else(default_index_dir);
    let mut indexes = Indexes::new(&index_dir)
        .max_indexes(args.max_indexes)
        .max_watches(args.max_watches)
        .max_memory(args.index_memory_mib.saturating_mul(1 << 20));
    let mut given_roots = Vec::new();
    for root in &args.root {
        let tree = Tree::new(root).map_err(|e| {
            let text = error_result(&e, usize::MAX);
            let message = text.content[0].as_text().map_or("", |t| t.text.as_str());
            format!("--root {}: {message}", root.display())
        })?;
        let given = std::path::absolute(root).unwrap_or_else(|_| root.clone());
        given_roots.push((given, tree.get_root().to_owned()));
        indexes = indexes.root(tree.follow_links(args.follow_links));
    }
    let deadline = Duration::from_millis(args.deadline_ms);
    let policy = Policy::new().ceiling(args.ceiling);
    let threads = args.workers.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
    });
    let workers = Workers::new(threads);
    let workers = match args.max_waiting {
        Some(n) => workers.max_waiting(n),
        None => workers,
    };
    let max_deadline = Duration::from_millis(args.max_deadline_ms.max(args.deadline_ms));
    let tools = tools(&policy, deadline, max_deadline, workers.threads());
    Ok(Server {
        inner: Arc::new(Inner {
            indexes,
            indexed: !args.no_index,
            follow_links: args.follow_links,
            policy,
            deadline,
            max_deadline,
            given_roots,
            workers,
            tools,
        }),
    })
}

fn main() -> std::process::ExitCode {
    few_malloc_arenas();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("candor-mcp-server: cannot start: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    runtime.block_on(run())
}

/// glibc's allocator gives each thread that allocates an arena of its
/// own, up to eight per core, and keeps their memory: a server whose
/// searches start threads of their own grew with the calls it had seen
/// (57 MiB at 100 calls in flight, 69 at 800, 81 at 1,600); with two
/// arenas it holds 31 MiB at every load. The setting is read when the
/// process starts, so the server runs itself again with it, once, unless
/// it is set already (to any value: the caller's choice stands). Where
/// running again fails, the server goes on as it is.
fn few_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::process::CommandExt as _;
        const ARENAS: &str = "MALLOC_ARENA_MAX";
        if std::env::var_os(ARENAS).is_some() {
            return;
        }
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let mut command = std::process::Command::new(exe);
        if let Some(name) = args.next() {
            command.arg0(name);
        }
        // Returns only when it could not run.
        let _ = command.args(args).env(ARENAS, "2").exec();
    }
}

async fn run() -> std::process::ExitCode {
    let server = match server(Args::parse()) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("candor-mcp-server: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match serve_stdio(server).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("candor-mcp-server: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

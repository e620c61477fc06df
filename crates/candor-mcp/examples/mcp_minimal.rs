//! A minimal MCP server: one tool that searches a directory tree, on
//! rmcp's own stdio transport and `#[tool]` macros.
//!
//! ```text
//! cargo run -p candor-mcp --example mcp_minimal -- DIR
//! ```
//!
//! The tool's parameters flatten candor's `PageArgs` (limit, cursor,
//! max_bytes, count_total, strict) into its own and are taken as
//! `candor_mcp::Parameters` (in place of rmcp's: a misspelled argument is
//! an error), the query runs on `Workers` (a bounded number of threads),
//! and `respond` answers with the disclosed page, taking the `PageArgs`
//! it answers: `structuredContent`, the one-line disclosure, the JSON
//! mirror, the whole within the client's `max_bytes`, and an error in
//! `strict` mode when the answer is not whole.
//!
//! The installable server (`crates/candor-mcp-server`) is the hardened
//! one: four tools, a folder per call, an index per folder, and
//! `candor_mcp::StdioGuard` in front of the SDK, so that every request
//! line gets an answer.

use std::sync::Arc;
use std::time::Duration;

use candor_mcp::{PageArgs, Parameters, Policy, Workers, error_result, output_schema, respond};
use candor_search::{Corpus, Match, Query, Tree};
use rmcp::model::CallToolResult;
use rmcp::{ServiceExt, tool, tool_router};

/// The search tool's arguments: its own, then the paging ones.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    /// The text to look for, literally.
    query: String,
    #[serde(flatten)]
    page: PageArgs,
}

#[derive(Clone)]
struct Server {
    tree: Arc<Tree>,
    policy: Policy,
    workers: Workers,
}

#[tool_router(server_handler)]
impl Server {
    /// Search the files under the served root for lines containing
    /// `query`, in path order. The result says whether it holds every
    /// match (complete, truncation, total); follow next_cursor for the
    /// rest.
    #[tool(output_schema = output_schema::<Match>())]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> CallToolResult {
        let (tree, policy) = (Arc::clone(&self.tree), self.policy);
        let deadline = Duration::from_secs(10);
        let answer = self
            .workers
            .run(deadline, move |waited| {
                let limits = args
                    .page
                    .limits(&policy)
                    .deadline(deadline.saturating_sub(waited));
                let result = args.page.cursor().and_then(|cursor| {
                    tree.search(&Query::literal(&args.query), &limits, cursor.as_ref())
                });
                respond(result, "matching lines", &args.page, &policy)
            })
            .await;
        answer.unwrap_or_else(|e| error_result(&e, PageArgs::default().budget(&self.policy)))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args_os().nth(1).ok_or("usage: mcp_minimal DIR")?;
    let server = Server {
        tree: Arc::new(Tree::new(root)?),
        policy: Policy::new(),
        workers: Workers::new(2),
    };
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

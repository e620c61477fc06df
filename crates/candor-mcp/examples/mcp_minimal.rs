//! A minimal MCP server: one tool that searches a directory tree, on
//! rmcp's own stdio transport and `#[tool]` macros.
//!
//! ```text
//! cargo run -p candor-mcp --example mcp_minimal -- DIR
//! ```
//!
//! The tool's parameters flatten candor's `PageArgs` (limit, cursor,
//! max_bytes, count_total, strict) into its own, and `respond` answers
//! with the disclosed page: `structuredContent`, the one-line disclosure,
//! the JSON mirror, the whole within the client's `max_bytes`.
//!
//! `candor-mcp-server` is the hardened server: four tools, a deadline,
//! unknown arguments refused, and `candor_mcp::StdioGuard` in front of
//! the SDK, so that every request line gets an answer (rmcp's transport
//! drops a line that is not JSON or longer than its cap, and the client
//! waits for ever).

use std::sync::Arc;

use candor_mcp::{PageArgs, Policy, output_schema, respond};
use candor_search::{Corpus, Query, Tree};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ServiceExt, schemars, tool, tool_router};
use serde_json::{Value, json};

/// The search tool's arguments: its own, then the paging ones.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    /// The text to look for, literally.
    query: String,
    #[serde(flatten)]
    page: PageArgs,
}

/// One matching line, as `Tree::search` answers it.
fn match_schema() -> Value {
    json!({
        "type": "object",
        "required": ["path", "line_number", "byte_offset", "line", "matches"],
        "properties": {
            "path": { "type": "string" },
            "line_number": { "type": "integer", "minimum": 1 },
            "byte_offset": { "type": "integer", "minimum": 0 },
            "line": { "type": "string" },
            "matches": { "type": "array", "items": { "type": "object" } },
            "line_cut": { "type": "object" }
        }
    })
}

#[derive(Clone)]
struct Server {
    tree: Arc<Tree>,
    policy: Policy,
}

#[tool_router(server_handler)]
impl Server {
    /// Search the files under the served root for lines containing
    /// `query`, in path order. The result says whether it holds every
    /// match (complete, truncation, total); follow next_cursor for the
    /// rest.
    #[tool(output_schema = output_schema(match_schema()))]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> CallToolResult {
        let budget = args.page.budget(&self.policy);
        let limits = args.page.limits(&self.policy);
        let tree = Arc::clone(&self.tree);
        // A search reads files: keep it off the async workers.
        let result = tokio::task::spawn_blocking(move || {
            let cursor = args.page.cursor()?;
            tree.search(&Query::literal(&args.query), &limits, cursor.as_ref())
        })
        .await;
        match result {
            Ok(result) => respond(result, "matches", budget),
            Err(e) => candor_mcp::error_result(&e, budget),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args_os().nth(1).ok_or("usage: mcp_minimal DIR")?;
    let server = Server {
        tree: Arc::new(Tree::new(root)?),
        policy: Policy::new(),
    };
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

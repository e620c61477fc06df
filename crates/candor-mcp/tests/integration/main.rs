//! The MCP helpers' integration tests: one binary (`autotests = false`),
//! one module per area.

mod mcp_args;
mod mcp_budget;

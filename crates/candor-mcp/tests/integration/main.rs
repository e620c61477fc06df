//! The MCP helpers' integration tests: one binary (`autotests = false`),
//! one module per area.

mod mcp_args;
mod mcp_budget;
// The search tests' fixture: trees and files for the texts' answers.
#[allow(dead_code)]
#[path = "../../../candor-search/tests/integration/fixture.rs"]
mod fixture;
mod item_schemas;
mod texts;

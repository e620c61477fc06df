//! The MCP helpers' integration tests: one binary (`autotests = false`),
//! one module per area.
//!
//! - `arguments`: the paging arguments and the answers, as a server uses
//!   them;
//! - `budget`: the byte budget of a tool result;
//! - `item_schemas`: the item schemas against what the tools send;
//! - `texts`: the texts a reader acts on, against the documented table.

mod arguments;
mod budget;
// The search tests' fixture: trees and files for the texts' answers.
#[allow(dead_code)]
#[path = "../../../candor-search/tests/integration/fixture.rs"]
mod fixture;
mod item_schemas;
mod texts;

//! The integration tests: one binary (`autotests = false`), one module per
//! area.

mod core_errors;
mod core_props;
mod core_support;
mod core_wire;
mod examples_cli;
mod examples_mcp;
mod reading;
mod search_props;
mod search_tree;

//! The integration tests: one binary (`autotests = false`), one module per
//! area.

mod adopters;
mod code_index;
mod core_disclosure;
mod core_errors;
mod core_paging;
mod core_props;
mod core_support;
mod core_wire;
mod examples_cli;
mod examples_mcp;
mod fuzz_replay;
#[cfg(unix)]
mod hostile;
mod reading;
mod schemas;
#[cfg(unix)]
mod seams;
mod search_props;
mod search_tree;

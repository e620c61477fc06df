//! The search crate's integration tests: one binary (`autotests = false`),
//! one module per area.

mod adopters;
mod binary_named;
mod core_disclosure;
// Shared with the contract's tests, which use the rest of it.
#[allow(dead_code)]
#[path = "../../../../tests/integration/core_support.rs"]
mod core_support;
mod disclosure_truth;
mod examples_cli;
mod fixture;
mod fuzz_replay;
#[cfg(unix)]
mod hostile;
#[cfg(feature = "index")]
mod index_corpus;
#[cfg(feature = "index")]
mod index_queries;
#[cfg(feature = "index")]
mod indexes;
mod json_stream;
#[path = "../../../../fuzz/checks/oracle.rs"]
mod oracle;
#[path = "../../../../fuzz/checks/pages.rs"]
mod pages;
mod paging;
mod reading;
mod sample;
mod schemas;
#[cfg(unix)]
mod seams;
mod search_budgets;
mod search_cases;
mod search_lines;
mod search_props;
#[cfg(unix)]
mod tree_depth;
#[cfg(unix)]
mod tree_links;
mod tree_walk;

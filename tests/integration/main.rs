//! The integration tests: one binary (`autotests = false`), one module per
//! area.

mod adopters;
mod cluster_opensearch;
mod cluster_opensearch_props;
mod cluster_zoekt;
mod code_index;
mod core_disclosure;
mod core_errors;
mod core_paging;
mod core_props;
mod core_resume;
mod core_support;
mod core_wire;
mod disclosure_truth;
mod examples_cli;
mod examples_mcp;
mod examples_opensearch;
mod fixture;
mod fuzz_replay;
#[cfg(unix)]
mod hostile;
#[cfg(feature = "index")]
mod index_corpus;
mod layers;
mod mcp_args;
mod mcp_budget;
#[path = "../../fuzz/checks/oracle.rs"]
mod oracle;
#[path = "../../fuzz/checks/pages.rs"]
mod pages;
mod reading;
mod schemas;
#[cfg(unix)]
mod seams;
mod search_budgets;
mod search_cases;
mod search_lines;
mod search_paging;
mod search_props;
mod texts;
#[cfg(unix)]
mod tree_links;
mod tree_walk;

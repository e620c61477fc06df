//! The contract's integration tests: one binary (`autotests = false`), one
//! module per area. The search, the index and the MCP helpers are tested
//! in their own crates (`crates/*/tests`).

#[cfg(feature = "opensearch")]
mod cluster_opensearch;
#[cfg(feature = "opensearch")]
mod cluster_opensearch_props;
#[cfg(feature = "zoekt")]
mod cluster_zoekt;
mod core_errors;
mod core_props;
mod core_resume;
mod core_support;
mod core_wire;
mod docs;
mod layers;
// The walk of pages the search tests share; the contract uses part of it.
#[allow(dead_code)]
#[path = "../../fuzz/checks/pages.rs"]
mod pages;

//! The contract's integration tests: one binary (`autotests = false`), one
//! module per area. The search, the index and the MCP helpers are tested
//! in their own crates (`crates/*/tests`).
//!
//! - `rules`: the contract's rules as properties of collect, page, merge
//!   and the wire, against the plain input as the oracle;
//! - `resume`: where a resumed page starts and what its total counts;
//! - `errors`: each error kind, and the cursors refused;
//! - `wire`: the wire shape, its golden JSON, its schema and the
//!   one-line disclosure;
//! - `opensearch`, `opensearch_props`: the OpenSearch adapter on recorded
//!   and on generated responses; `zoekt`: the Zoekt adapter;
//! - `docs`, `layers`: the repository's citations and the layering of the
//!   sources;
//! - `core_support`: helpers the core tests share (the search crate's
//!   tests use them too).

mod core_support;
mod docs;
mod errors;
mod layers;
#[cfg(feature = "opensearch")]
mod opensearch;
#[cfg(feature = "opensearch")]
mod opensearch_props;
// The walk of pages the search tests share; the contract uses part of it.
#[allow(dead_code)]
#[path = "../../fuzz/checks/pages.rs"]
mod pages;
mod resume;
mod rules;
mod wire;
#[cfg(feature = "zoekt")]
mod zoekt;

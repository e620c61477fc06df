//! Query results that cannot hide their truncation: the contract.
//!
//! A query runs within [`Limits`] and returns a [`Bounded<T>`]: the items,
//! plus whether they are the whole answer ([`Completeness`]), how many the
//! whole answer holds ([`Total`], exact or a lower bound), where this page
//! starts ([`Bounded::start`]), where to resume ([`Cursor`]) and what was
//! not searched ([`Skipped`]).
//!
//! A search tool that caps its answer at 1000 and reports `count: 1000`
//! gives an answer identical to a complete one, and its reader, often an
//! LLM agent, concludes there are 1000 references when there are 8,963.
//! With candor the disclosure travels with the items, in Rust and on the
//! wire, so that mistake cannot be made silently. The rules every result
//! keeps, and its wire shape, are in [`contract`].
//!
//! This crate is the contract alone, for tools that wrap their own
//! queries (references in a database, callers in a code index, hits from
//! a search cluster). Built on it:
//!
//! - `candor-search`: text search over documents, directory trees and a
//!   trigram index, each answer a `Bounded<Match>`; it re-exports this
//!   crate whole.
//! - `candor-mcp`: MCP tool results from a `Bounded<T>`, within the
//!   client's byte budget, on the official SDK `rmcp`.
//! - `candor-mcp-server`: an MCP server whose search tools disclose
//!   truncation.
//!
//! An engine of your own decides its stops the same way through
//! [`collector`].
//!
//! # Collect any query under limits
//!
//! Three verbs make a result of a tool's own query:
//! [`Bounded::collect`] (an answer without a cursor), [`Bounded::page`]
//! (one page of an ordered source, with a cursor) and [`Bounded::merge`]
//! (results from shards under one global limit).
//!
//! ```
//! use candor::{Bounded, Completeness, Limits, Total};
//!
//! let limits = Limits::new().limit(10);
//! let b = Bounded::collect(0..25u32, &limits)?;
//! assert!(!b.is_complete());
//! assert!(matches!(b.completeness(), Completeness::TruncatedByLimit { .. }));
//! assert_eq!(b.total(), Total::AtLeast(11)); // item 11 was found, so more exist
//!
//! let json = serde_json::to_string(&b)?; // disclosure first, items last
//! assert!(json.starts_with(r#"{"complete":false,"truncation":{"by":"limit","limit":10"#));
//!
//! // A caller who needs the whole answer gets an error that keeps it.
//! assert_eq!(b.into_exact().unwrap_err().bounded().len(), 10);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Page through an answer with cursors
//!
//! ```
//! use candor::{Bounded, Fingerprint, Limits, Scope};
//!
//! let scope = Scope::new(Fingerprint::of("callers of flush"));
//! let source = || (0..95u32).map(|n| format!("caller_{n}"));
//! let mut cursor = None;
//! let mut seen = 0;
//! loop {
//!     let page = Bounded::page(source(), &Limits::new().limit(20), &scope, cursor.as_ref())?;
//!     assert_eq!(page.start(), seen as u64); // every page says where it starts
//!     seen += page.len();
//!     match page.next_cursor() {
//!         Some(next) => cursor = Some(next.clone()),
//!         None => break,
//!     }
//! }
//! assert_eq!(seen, 95); // every item exactly once
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Page a database by key
//!
//! A [`Keyset`] resumes after the last key returned, so a page does not
//! read the earlier ones again; [`Fallible`] rows end the query at their
//! first error with a [`TryError`] that keeps what was read; and a source
//! that can count answers [`Limits::count_total`] with one query.
//!
//! ```
//! use candor::{Bounded, Fallible, Fingerprint, KeyRequest, Keyset, Limits, Scope, Total};
//!
//! let table: Vec<u64> = (1..=8963).collect(); // `refs (id)`
//! // SELECT id FROM refs WHERE id > ?after ORDER BY id LIMIT ?fetch
//! let rows = |request: KeyRequest<u64>| {
//!     let after = request.after().copied().unwrap_or(0);
//!     let rows = table.iter().copied().filter(move |id| *id > after);
//!     Fallible(rows.take(request.fetch().unwrap_or(usize::MAX)).map(Ok::<u64, std::io::Error>))
//! };
//! // SELECT COUNT(*) FROM refs WHERE id > ?after
//! let count = |after: Option<&u64>| Ok(table.iter().filter(|id| Some(*id) > after).count() as u64);
//! let scope = Scope::new(Fingerprint::of("references of Typography"));
//! let limits = Limits::new().limit(1000).count_total(true);
//! let page = Bounded::page(Keyset::new(rows, |id: &u64| *id).count(count), &limits, &scope, None)?;
//! assert_eq!(page.total(), Total::Exact(8963));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Keep a response under a byte budget
//!
//! ```
//! use candor::{Bounded, BudgetKind, Limits};
//!
//! let items = (0..10_000u32).map(|n| format!("item {n}"));
//! let b = Bounded::collect(items, &Limits::new().max_bytes(1024))?;
//! assert!(b.to_json()?.len() <= 1024);
//! assert_eq!(b.completeness().budget().map(|b| b.kind()), Some(BudgetKind::OutputBytes));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Merge shards under one global limit
//!
//! ```
//! use candor::{Bounded, Limits};
//!
//! let shards = vec![Bounded::exact(vec![1, 5, 9]), Bounded::exact(vec![2, 3, 10])];
//! let merged = Bounded::merge(shards, &Limits::new().limit(4), |a: &i32, b: &i32| a.cmp(b))?;
//! assert_eq!(merged.items(), &[1, 2, 3, 5]);
//! assert!(merged.completeness().is_truncated());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! To page through shards with cursors, see [`Shards`].
//!
//! # Wrap a backend that knows its own total
//!
//! ```
//! use candor::{Bounded, Completeness, Disclosure, Total};
//!
//! // A backend that returned 2 hits of 10,000 or more.
//! let disclosure = Disclosure::new(
//!     Completeness::TruncatedByLimit { limit: 2, requested: None },
//!     Total::AtLeast(10_000),
//! );
//! let b = Bounded::from_parts(vec!["a", "b"], disclosure)?; // the rules are checked
//! assert_eq!(b.summary("hits"), "Incomplete: hits 1-2 of at least 10000 (limit 2). Raise the limit or narrow the query to see the rest.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Say when the items are a subset, not the first ones
//!
//! A search cluster whose shards each return what they found before a
//! time-out gives some of the answer's items, not its first N: the
//! result says so, offers no cursor (resuming after its last item could
//! skip items for good), and states both stops when the limit was
//! reached as well. The `opensearch` and `zoekt` features write such
//! disclosures from the engines' responses.
//!
//! ```
//! use candor::{Bounded, Budget, BudgetKind, Completeness, Disclosure, Total};
//!
//! let deadline = Completeness::TruncatedByBudget {
//!     budget: Budget::new(BudgetKind::Deadline, 500, 1012),
//!     clamp: None,
//! };
//! let d = Disclosure::new(deadline, Total::AtLeast(3)).with_subset().with_limit_reached(2);
//! let b = Bounded::from_parts(vec!["k.rs", "q.rs"], d)?;
//! assert!(!b.is_complete() && b.next_cursor().is_none());
//! assert_eq!(
//!     b.summary("hits"),
//!     "Incomplete: 2 hits of at least 3 (deadline budget of 500 ms ran out; limit 2 reached as well). \
//!      A subset: some of the hits, not the first ones. Allow more time or narrow the query to see the rest."
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Names
//!
//! One set of rules, followed everywhere, so that a name says what it does:
//!
//! - **Settings values** ([`Limits`], [`Scope`], `Query`, `Excerpt`,
//!   `Tree`) have setters under the plain name that take and return the
//!   value (`Limits::new().max_bytes(4096)`), and read back what was set,
//!   by a setter or by the constructor, with `get_` and the same name
//!   (`get_max_bytes()`, `Scope::get_fingerprint()`, `Tree::get_root()`).
//!   What they work out rather than hold has the plain name
//!   ([`Limits::applied_limit`]).
//! - **Every other value** (results, cursors, requests, errors) reads with
//!   the plain name (`Bounded::total()`, `Cursor::start()`,
//!   `KeyRequest::after()`), and a result's builders start with `with_`
//!   (`Disclosure::with_start`).
//! - **Predicates** start with `is_`. A result has one about the whole
//!   answer, `is_complete()`: the wire's `complete`, false when items are
//!   missing or an input could not be searched. Whether items were cut is
//!   its completeness's, `completeness().is_exact()` or `is_truncated()`,
//!   which are opposites.
//! - **Conversions** start with `as_`, `to_` or `into_` (`to_json()`,
//!   `into_parts()`, `into_exact()`, `Fingerprint::as_u64()`).
//! - **Numbers of items.** `total` is how many there are in all (the
//!   whole answer's items, [`Bounded::total`]; every input skipped,
//!   [`Skipped::total`]); `len()`, how many a value holds; `count`, how
//!   many a response or a
//!   stream handed on (the wire's `count`, `Streamed::count`), or, for
//!   one thing a name says, how many of it there are (a `FileCount`'s
//!   matching lines, [`Skipped::count`] of a reason). To count is to count
//!   the whole answer past the limit for an exact total
//!   ([`Limits::count_total`], [`Keyset::count`]) or the matching lines of
//!   each file (`Corpus::count_per_file`).
//! - **What can fail** says so: in its name when it sits beside a form
//!   that cannot (`Corpus::try_search_each`), or in its type for a source
//!   ([`Fallible`] rows); its error keeps what was done before the failure
//!   ([`TryError`], [`StreamError`]).
//!
//! # Features
//!
//! None is on by default.
//!
//! - `schemars`: `Bounded<T>` implements `schemars::JsonSchema`, with the
//!   schema of `envelope_schema`.
//! - `opensearch`: the `opensearch` module, OpenSearch and Elasticsearch
//!   searches paged into `Bounded<T>` with the cluster's own disclosure
//!   (time-outs, failed shards, capped totals), and a fan-out across
//!   clusters; pure and transport-free (serde_json only).
//! - `zoekt`: the `zoekt` module, Zoekt's JSON search API into
//!   `Bounded<T>`, whole only when none of Zoekt's limits could have cut
//!   the answer.
//!
//! Text search (`Tree`, `Documents`, `Index`) is in `candor-search`, and
//! the MCP helpers are in `candor-mcp`: the CHANGELOG lists where each
//! item of the single crate went.

#![forbid(unsafe_code)]
// docs.rs (`--cfg docsrs`, nightly): badge each item with the features it
// needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

/// The contract: the rules every result keeps, numbered (rules 1 to 14,
/// and M1 to M7 for a page merged from shards), its wire shape, the
/// search items, limits and budgets, trees on disk, and how disclosures
/// compose across shards and clusters. Code, tests and docs cite these
/// rules by number.
///
/// This module holds documentation only; the same text is `docs/CONTRACT.md`
/// in the repository.
#[doc = include_str!("../docs/CONTRACT.md")]
pub mod contract {}

mod as_of;
mod bounded;
mod cancel;
mod clock;
#[cfg(any(feature = "opensearch", feature = "zoekt"))]
mod cluster;
pub mod collector;
mod completeness;
mod cursor;
mod disclosure;
mod envelope;
mod error;
mod json_stream;
mod limits;
mod note;
#[cfg(feature = "opensearch")]
pub mod opensearch;
mod page;
#[cfg(feature = "schemars")]
mod schema;
mod skipped;
mod stream_error;
mod streamed;
mod summary;
mod total;
mod wire;
#[cfg(feature = "zoekt")]
pub mod zoekt;

pub use as_of::{AsOf, InvalidAsOf};
pub use bounded::Bounded;
pub use bounded::Incomplete;
pub use cancel::{CancelOnDrop, CancelToken};
pub use clock::{Clock, ManualClock, SystemClock};
pub use completeness::{Budget, BudgetKind, Clamp, Completeness, UnknownBudgetKind};
pub use cursor::{Cursor, CursorKey, Fingerprint, Scope};
pub use disclosure::Disclosure;
pub use error::{Error, ErrorKind};
pub use json_stream::JsonStream;
pub use limits::{AppliedLimit, Enclosing, Limits};
pub use page::{
    Fallible, Interrupted, Items, KeyRequest, Keyset, NoCount, PageSource, Shards, TryError,
};
pub use skipped::{SKIPPED_SAMPLE_LEN, SkipReason, SkipTally, Skipped, SkippedInput};
pub use stream_error::StreamError;
pub use streamed::Streamed;
pub use total::Total;
pub use wire::{LLM_GUIDE, envelope_schema};

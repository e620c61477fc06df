//! Fast text search whose every answer discloses its truncation: a
//! [`Query`] runs a matcher over a corpus ([`Documents`] in memory, a
//! [`Tree`] on disk, or an [`Index`] of a tree) within [`Limits`] and
//! returns a [`Bounded<Match>`](Bounded).
//!
//! The result type and its rules come from the contract crate,
//! [`candor`], which this crate re-exports whole: a dependency on
//! `candor-search` alone gives `Bounded`, `Limits`, cursors and the wire
//! as well as the search.
//!
//! # Search a tree
//!
//! ```
//! use candor_search::{Corpus, Limits, Query, Tree};
//! # let dir = tempfile::tempdir()?;
//! # std::fs::write(dir.path().join("a.rs"), "fn main() {}\nfn parse() {}\n")?;
//! let tree = Tree::new(dir.path())?;
//! let page = tree.search(&Query::regex(r"fn \w+"), &Limits::new().limit(1), None)?;
//! assert!(!page.is_complete()); // a second match exists, and the page says so
//! assert_eq!(page.summary("matches"), "Incomplete: matches 1-1 of at least 2 (limit 1). Resume with next_cursor.");
//! let rest = tree.search(&Query::regex(r"fn \w+"), &Limits::new().limit(1), page.next_cursor())?;
//! assert_eq!(rest.items()[0].line, "fn parse() {}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Search documents in memory
//!
//! ```
//! use candor_search::{Corpus, Documents, Limits, Query};
//! let mut docs = Documents::new();
//! docs.insert("notes.txt", "flush the cache\nflush again\n")?;
//! let counted = docs.count_per_file(&Query::literal("flush"), &Limits::new(), None)?;
//! assert_eq!(counted.items()[0].count, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The pipeline
//!
//! The public [`Corpus`] trait (`corpus.rs`) runs each query through the
//! runner (`run.rs`, or `excerpt.rs`), which asks a corpus's `Source`
//! (`source.rs`; each corpus's `as_source.rs` in `documents/`, `tree/`,
//! `index/`) for its files in path order, each query kind as
//! `operation.rs` describes it; the engine
//! (`engine/`) searches each file with the matcher (`matcher/`) over the
//! reader's chunks (`reader.rs`, split into lines by `lines.rs`) and turns
//! the outcomes into the result through candor's
//! [`Collector`](candor::collector::Collector). No file imports one above
//! it. The index reaches the engine through one module, `seam.rs`, and
//! through nothing else that is private.
//!
//! # Features
//!
//! - `tree` (default): text search over directory trees, walked in path
//!   order (.gitignore-aware, with the `ignore` crate's rule matching) and
//!   searched in parallel, every open confined below the root.
//! - `index`: [`Index`], a trigram index of a tree on disk, checked
//!   against the tree by stamps on each query or kept fresh by a watcher.
//! - `schemars`: the items implement `schemars::JsonSchema`, and so does
//!   `Bounded<T>`.
//!
//! Without default features only in-memory [`Documents`] remain.

#![forbid(unsafe_code)]
// docs.rs (`--cfg docsrs`, nightly): badge each item with the features it
// needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "tree")]
mod confine;
mod corpus;
mod document;
mod documents;
mod engine;
mod excerpt;
mod item;
mod lines;
mod matcher;
mod operation;
mod path;
mod position;
mod query;
mod reader;
mod run;
mod source;
#[cfg(feature = "tree")]
mod tree;
#[cfg(feature = "tree")]
mod walk;

pub use corpus::Corpus;
pub use document::DocBytes;
pub use documents::Documents;
pub use excerpt::Excerpt;
pub use item::{FileCount, Line, LineCut, Match, Span};
pub use query::{PatternKind, Query};
#[cfg(feature = "tree")]
pub use tree::Tree;

#[cfg(feature = "index")]
mod index;
#[cfg(feature = "index")]
pub use index::{Index, IndexState, Indexes, Served};
// All that the index uses of the engine.
#[cfg(feature = "index")]
mod seam;

// The contract, re-exported whole: one dependency gives the result type
// and the search.
pub use candor;
// Every public item of the contract, by the same name (a new one too).
pub use candor::*;

//! Text search: a [`Query`] runs a matcher over a corpus within
//! [`Limits`](crate::Limits) and returns a [`Bounded`](crate::Bounded).
//!
//! The pipeline, from the top: the public [`Corpus`] trait (`corpus.rs`)
//! runs each query through the runner (`run.rs`, or `excerpt.rs`), which
//! asks a corpus's private `Source` (`source.rs`: `documents.rs`,
//! `tree/`) for its files in path order, each query kind as
//! `operation.rs` describes it; the engine (`engine/`) searches each file
//! with the matcher (`matcher/`) over the reader's chunks (`reader.rs`,
//! split into lines by `lines.rs`) and turns the outcomes into the
//! result. No file imports one above it.

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

// The tree names them from here.
#[cfg(feature = "tree")]
pub(crate) use source::{Resolved, Source};
// The index plans its queries from the matcher's syntax tree.
#[cfg(feature = "index")]
pub(crate) use matcher::{Matcher, literals_hir, parse};

// What the index (feature `index`) builds on: the tree's walk, reader and
// engine, used as the tree uses them.
#[cfg(all(feature = "index", target_os = "linux"))]
pub(crate) use confine::open_file_beneath;
#[cfg(all(test, feature = "index"))]
pub(crate) use confine::open_root;
#[cfg(feature = "index")]
pub(crate) use confine::{DirHandle, mix, mtime_at, open_dir, open_file, size_at, stamp_at};
#[cfg(feature = "index")]
pub(crate) use engine::{FileOutcome, PartsScan, Plan, Search, no_match, search_file};
#[cfg(feature = "index")]
pub(crate) use path::os_name;
#[cfg(feature = "index")]
pub(crate) use path::{
    cmp_paths, is_plain_position, is_position, is_within, parse_position, push_name,
};
#[cfg(feature = "index")]
pub(crate) use reader::{BINARY_PREFIX, MAX_LINE, Opened};
#[cfg(feature = "index")]
pub(crate) use source::Entry;
#[cfg(feature = "index")]
pub(crate) use walk::Job;

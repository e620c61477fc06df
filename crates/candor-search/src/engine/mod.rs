//! The search engine, after ripgrep's grep-searcher: the per-file
//! searcher (`searcher.rs`, its chunks searched by `scan.rs`, its matching
//! lines packed by `packed.rs` and shown by `show.rs`) reads a file under
//! the query's fixed plan (`plan.rs`) and budgets (`budgets.rs`, the one
//! control of stopping), and yields its outcome (`outcome.rs`, `hits.rs`);
//! the result stage (`result_stage.rs`) takes the outcomes in path order
//! and offers each file's items through the sink (`sink.rs`) to the
//! collector, each kind of query (`kind.rs`) saying how its items are
//! made; `resume.rs` writes where the next page starts. `spares.rs` and
//! `recycle.rs` give emptied buffers back to the thread that filled them.
//!
//! A corpus (in memory or on disk) yields the files in path order; it
//! hands them to the per-file searcher and its outcomes to the result
//! stage in that order (a tree does the per-file work in parallel and
//! reorders).

mod budgets;
mod hits;
mod kind;
mod long_line;
mod outcome;
mod packed;
mod plan;
mod recycle;
mod result_stage;
mod resume;
mod scan;
mod search;
// The index reaches `PartsScan` here (see `seam.rs`).
pub(crate) mod searcher;
mod show;
mod sink;
mod spares;

pub(crate) use budgets::{Budgets, Tally};
pub(crate) use hits::Hits;
#[cfg(feature = "tree")]
pub(crate) use hits::{PART_BYTES, PART_LINES};
pub(crate) use kind::QueryKind;
pub(crate) use long_line::LongLine;
pub(crate) use outcome::FileOutcome;
pub(crate) use plan::{FileReport, Plan};
#[cfg(feature = "tree")]
pub(crate) use recycle::Returns;
pub(crate) use result_stage::{Receiver, Refusal, ResultStage};
pub(crate) use resume::StampLookup;
pub(crate) use search::QuerySearch;
#[cfg(feature = "tree")]
pub(crate) use searcher::search_owned;
pub(crate) use searcher::{no_match, search_file, search_more};
pub(crate) use show::show;
pub(crate) use sink::ItemSink;
pub(crate) use spares::Spares;

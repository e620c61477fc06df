//! The search engine: the per-file search (`file.rs`, its chunks searched
//! by `scan.rs` under the query's `plan.rs`, its matching lines packed by
//! `packed.rs` and shown by `show.rs`; `recycle.rs` gives emptied
//! buffers back to the thread that filled them) and the result stage (`result_stage.rs`) that turns the
//! files' outcomes, in path order, into a `Bounded` result, with the
//! search cursor's key (`position.rs`).
//!
//! A corpus (in memory or on disk) hands the files to the per-file search
//! and its outcomes to the result stage in path order (a tree does the
//! per-file work in parallel and reorders).

mod file;
mod packed;
mod plan;
mod position;
mod recycle;
mod result_stage;
mod scan;
mod show;

pub(crate) use file::{FileOutcome, Hits, no_hits, search_more, search_opened, unread};
#[cfg(feature = "tree")]
pub(crate) use file::{PART_BYTES, PART_LINES};
pub(crate) use packed::Spares;
pub(crate) use plan::{Deadline, Mode, Plan};
pub(crate) use position::read as read_position;
#[cfg(feature = "tree")]
pub(crate) use recycle::Returns;
pub(crate) use result_stage::{Each, Refusal, ResultStage, Sink, ToItems};
pub(crate) use show::show;

//! Any source under `Limits`: `collect`, `page`, `page_by_key` and `merge`, and their
//! fallible `try_` forms for sources whose rows are `Result`s (a database).
//!
//! A [`Collector`](crate::collect::Collector) makes the stop decisions;
//! these modules feed it, check what the source promised (key order, the
//! number of rows asked for) and turn a source's error into a [`TryError`]
//! that keeps what was read.
//!
//! - `source`: a source of `Result`s read up to its first fault, and the
//!   collector driven over it to a result or an error;
//! - `try_error`: the errors of the `try_` forms;
//! - `collect`: `collect` and `try_collect`;
//! - `offset`: `page` and `try_page`, resumed after a count of items;
//! - `keyset`: `page_by_key` and its `try_` forms, resumed after a key
//!   (a [`KeyRequest`] to the source);
//! - `merge`: `merge` and `merge_by_key`, sorted shards under one global
//!   limit, the second resumed after a key like `page_by_key`.

mod collect;
mod keyset;
mod merge;
mod offset;
mod source;
mod try_error;

pub use keyset::KeyRequest;
pub use try_error::{Interrupted, TryError};

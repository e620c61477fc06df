//! Any source under `Limits`: [`Bounded::collect`], [`Bounded::page`] and
//! [`Bounded::merge`], the three ways the contract names to make a result
//! of a tool's own query (collect any items, page by cursor over any
//! ordered source, merge shards under one global limit).
//!
//! A [`Collector`](crate::collector::Collector) makes the stop decisions;
//! these modules feed it, check what a source promised (key order, the
//! number of rows asked for) and turn a source's error into a
//! [`TryError`] that keeps what was read.
//!
//! - `items`: [`Items`], what items are read from (an iterator, or
//!   [`Fallible`] rows), and the sealing of the sources;
//! - `page_source`: [`PageSource`], what a page is read from, and
//!   `Bounded::page`;
//! - `drive`: the collector driven over a source of `Result`s read up to
//!   its first fault, to a result or an error;
//! - `try_error`: the errors of a source that can fail;
//! - `collect`: `Bounded::collect`;
//! - `offset`: iterators paged by a count of items, read again from the
//!   start;
//! - `key_request`: [`KeyRequest`], what a source that resumes after a key
//!   is asked for;
//! - `keyset`: [`Keyset`], a source that resumes after a key and may count;
//! - `merge`: `Bounded::merge`, sorted shards under one global limit;
//! - `shards`: [`Shards`], shards paged as one by key.

mod collect;
mod drive;
mod items;
mod key_request;
mod keyset;
mod merge;
mod offset;
mod page_source;
mod shards;
mod try_error;

pub use items::{Fallible, Items};
pub use key_request::KeyRequest;
pub use keyset::{Keyset, NoCount};
#[cfg(feature = "opensearch")]
pub(crate) use merge::merge_by_key;
pub use page_source::PageSource;
pub use shards::Shards;
pub use try_error::{Interrupted, TryError};

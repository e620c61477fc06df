//! What a kind of query is to the engine: its name (part of its cursors'
//! fingerprint), what it asks of each file, and how a file's hits become
//! its items. Each kind is one small type (`operation.rs`).

use std::ops::ControlFlow;

use crate::engine::hits::Hits;
use crate::engine::plan::FileReport;
use crate::engine::sink::ItemSink;
use crate::item::Item;

/// One kind of query.
pub(crate) trait QueryKind {
    /// The items the query returns.
    type Item: Item;
    /// Its name, part of its cursors' fingerprint.
    const NAME: &'static str;
    /// What it asks of each file.
    const MODE: FileReport;

    /// Offers the items of one file's hits to `sink`, until it breaks.
    fn offer_items(path: &str, hits: &Hits, sink: &mut dyn ItemSink<Self::Item>)
    -> ControlFlow<()>;

    /// How many items of the full answer a file's hits make: its matching
    /// lines, or one for a file with any.
    fn answer_items(hits: &Hits) -> u64 {
        match Self::MODE {
            FileReport::Lines => hits.matching_lines(),
            FileReport::Count | FileReport::Any => u64::from(hits.matching_lines() > 0),
        }
    }
}

//! Emptied buffers of matching lines, passed from file to file and given
//! back to the thread that filled them.

use crate::engine::packed::PackedLines;
use crate::engine::recycle::Returns;

/// Emptied `PackedLines`, kept for their memory and given back to the
/// thread that filled them (see `recycle.rs`): the thread that takes a
/// file's lines gives the buffers back, and the searching thread that
/// filled them takes them for its next file with matching lines. A search
/// then allocates for its matching lines about once per thread, not once
/// per file.
pub(crate) struct Spares(Returns<PackedLines>);

/// The most bytes one thread's kept buffers may hold, and the most one
/// buffer may hold to be kept: emptied buffers stay within a fixed bound
/// per searching thread, whatever the files. One buffer may take it all:
/// a full part of short lines (about 250 KiB) is kept, not freed and
/// grown again for the next (freed, its memory went back to the system,
/// and the next part's took a page fault per 4 KiB).
const SPARE_BYTES: usize = 512 * 1024;
const SPARE_BUFFER: usize = SPARE_BYTES;

impl Default for Spares {
    fn default() -> Spares {
        Spares(Returns::new(
            SPARE_BYTES,
            SPARE_BUFFER,
            PackedLines::capacity_bytes,
        ))
    }
}

impl Spares {
    /// An empty `PackedLines`, with room from an earlier file this thread
    /// filled if there is one.
    pub(crate) fn take(&self) -> PackedLines {
        let mut lines = self.0.take().unwrap_or_default();
        lines.owner = Some(std::thread::current().id());
        lines
    }

    /// Gives back `lines` once taken, emptied, to the thread that filled
    /// them.
    pub(crate) fn give(&self, mut lines: PackedLines) {
        let Some(owner) = lines.owner else { return };
        lines.clear();
        self.0.give(owner, lines);
    }
}

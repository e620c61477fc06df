//! One generation of an index: its record of the tree (see `entry.rs`),
//! left in its manifest and read as queries need it (see `manifest.rs`),
//! and its posting lists (a base, and a small delta over it).

use std::path::PathBuf;
use std::sync::Arc;

use crate::index::format::{self, DIRECTORY, Directory, Written};
use crate::index::grams::{Disk, Grams};
use crate::index::manifest::Manifest;

// The record's entries, as the build names them.
pub(crate) use crate::index::entry::{FileEntry, FolderEntry, RecordEntry, Segment, SkipEntry};

/// One generation of the index: its entries, left in its manifest and
/// read as queries need them (see `manifest.rs`), and its posting lists.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    pub(crate) generation: u64,
    pub(crate) entries: Arc<Manifest>,
    pub(crate) base: Arc<Grams>,
    pub(crate) delta: Arc<Grams>,
    /// When the tree was last read in full for this generation (the start
    /// of the traversal that wrote it, or of a later update that found
    /// nothing changed), nanoseconds since the epoch.
    pub(crate) read_ns: u64,
}

impl Snapshot {
    /// An index of nothing: every folder is new to it.
    pub(crate) fn empty() -> Snapshot {
        let delta = Grams::default();
        let written = Written {
            base_generation: 0,
            parents: 0,
            read_ns: 0,
            entries: &[],
            delta: &delta,
        };
        let body = format::manifest(&written);
        let dir = Directory::decode(&body[..DIRECTORY], body.len() as u64)
            .unwrap_or_else(|e| unreachable!("an empty manifest reads back: {e}"));
        let entries = Manifest::open(Disk::memory(body), dir, PathBuf::new())
            .unwrap_or_else(|e| unreachable!("an empty manifest opens: {e}"));
        Snapshot {
            generation: 0,
            entries: Arc::new(entries),
            base: Arc::new(Grams::default()),
            delta: Arc::new(delta),
            read_ns: 0,
        }
    }

    /// The generation whose build wrote the base posting lists.
    pub(crate) fn base_generation(&self) -> u64 {
        self.entries.directory().base_generation
    }

    /// The stamp of the ignore files above the root.
    pub(crate) fn parents(&self) -> u64 {
        self.entries.directory().parents
    }
}
